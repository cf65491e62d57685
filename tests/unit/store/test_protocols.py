"""Retrieval reads through the ``KnowledgeReader`` protocol and the writers write through
``KnowledgeWriter``; the knowledge base implements both, method for method. A new back end
is one module: add it to ``BACK_ENDS`` and this suite checks it the same way."""

import inspect

import pytest

from mitra.core.settings import Settings
from mitra.store.knowledge_base import KnowledgeBase
from mitra.store.reader import KnowledgeReader
from mitra.store.writer import KnowledgeWriter

BACK_ENDS = [KnowledgeBase]


def _methods(protocol) -> set[str]:
    return {n for n, f in vars(protocol).items() if inspect.isfunction(f) and not n.startswith("_")}


def test_the_protocols_name_what_retrieval_and_the_writers_call():
    assert _methods(KnowledgeReader) >= {"route_dense", "route_bm25", "dense_search", "bm25_search", "get_chunks"}
    assert _methods(KnowledgeWriter) >= {"replace_analysis", "add_document_version", "collect_garbage",
                                         "sync_abstracts", "is_indexed"}


@pytest.mark.parametrize("back_end", BACK_ENDS)
@pytest.mark.parametrize("protocol", [KnowledgeReader, KnowledgeWriter])
def test_the_back_end_implements_the_protocol_method_for_method(back_end, protocol):
    for name in _methods(protocol):
        assert inspect.signature(getattr(back_end, name)) == inspect.signature(getattr(protocol, name)), name


@pytest.mark.parametrize("back_end", BACK_ENDS)
def test_an_open_back_end_is_a_knowledge_writer(back_end, tmp_path):
    assert isinstance(back_end(Settings(data_dir=tmp_path)), KnowledgeWriter)
