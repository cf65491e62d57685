"""Retrieval depends on the ``KnowledgeReader`` protocol; the knowledge base implements all of it."""

import inspect

from mitra.store.knowledge_base import KnowledgeBase
from mitra.store.reader import KnowledgeReader


def test_the_knowledge_base_is_a_knowledge_reader():
    wanted = {n for n, f in vars(KnowledgeReader).items() if inspect.isfunction(f) and not n.startswith("_")}
    assert wanted >= {"route_dense", "route_bm25", "dense_search", "bm25_search", "get_chunks"}
    for name in wanted:
        assert inspect.signature(getattr(KnowledgeBase, name)) == inspect.signature(getattr(KnowledgeReader, name)), name
