"""The router and the retriever embed the same question: the second time is free."""

import numpy as np

from mitra.models.embedders import QueryCache, SentenceTransformerEmbedder
from mitra.models.threads import BatchThreads


class CountingModel:
    """Stands in for the sentence-transformers model: one vector per text, counted."""

    def __init__(self):
        self.encoded: list[str] = []

    def encode(self, texts, **_):
        self.encoded += texts
        return np.array([[len(t), 1.0] for t in texts], np.float32)


def embedder() -> SentenceTransformerEmbedder:
    bare = SentenceTransformerEmbedder.__new__(SentenceTransformerEmbedder)
    bare.model, bare.batch_size, bare.queries = CountingModel(), 32, QueryCache(size=2)
    bare.onnx_dir, bare.threads = None, BatchThreads(1)  # on torch: the counting model
    return bare


def test_a_question_asked_again_is_not_embedded_again():
    e = embedder()
    first = e.embed_queries(["what is the dominant background?"])
    again = e.embed_queries(["what is the dominant background?"])
    assert e.model.encoded == ["what is the dominant background?"]
    np.testing.assert_array_equal(first, again)


def test_only_missing_texts_are_embedded_and_order_is_kept():
    e = embedder()
    e.embed_queries(["a"])
    vectors = e.embed_queries(["bb", "a", "bb"])
    assert e.model.encoded == ["a", "bb"]
    assert vectors[:, 0].tolist() == [2, 1, 2]


def test_the_cache_keeps_the_latest_texts_only():
    e = embedder()
    for text in ("a", "bb", "ccc", "a"):
        e.embed_queries([text])
    assert e.model.encoded == ["a", "bb", "ccc", "a"]  # "a" was the oldest of three when "ccc" came
    assert e.embed_queries([]).shape[0] == 0


def test_a_batch_larger_than_the_cache_is_embedded_whole():
    e = embedder()
    vectors = e.embed_queries(["a", "bb", "ccc"])  # three texts, a cache of two
    assert vectors[:, 0].tolist() == [1, 2, 3]
