"""The writer embeds in fixed-size batches and hands freed heap pages back once they are done."""

import numpy as np

from mitra.core.settings import Settings
from mitra.store import knowledge_base
from mitra.store.knowledge_base import KnowledgeBase


class RecordingEmbedder:
    """Vectors that carry their text's length (so each can be traced to its text), and the batches asked for."""

    name = "recording"
    dim = 4

    def __init__(self) -> None:
        self.batches: list[list[str]] = []

    def embed_passages(self, texts: list[str], show_progress: bool = False) -> np.ndarray:
        self.batches.append(list(texts))
        return np.array([[len(t), 0, 0, 1] for t in texts], np.float32)

    embed_queries = embed_passages

    def lengths(self, texts: list[str]) -> list[int]:
        return [len(t) for t in texts]


def test_writer_embeds_longest_first_in_batches_and_trims_once_after_them(tmp_path, monkeypatch):
    trims = []
    monkeypatch.setattr(knowledge_base, "release_freed", lambda: trims.append(1))
    embedder = RecordingEmbedder()
    kb = KnowledgeBase(Settings(data_dir=tmp_path, embed_batch_size=3), embedder)
    texts = ["a" * n for n in (5, 1, 9, 3, 7, 2, 8)]

    vectors = kb._embed(texts)

    # every vector lands at its own text's place, whatever batch computed it
    assert vectors[:, 0].tolist() == [len(t) for t in texts]
    assert [len(b) for b in embedder.batches] == [3, 3, 1]
    lengths = [len(t) for b in embedder.batches for t in b]
    assert lengths == sorted(lengths, reverse=True)  # the batches an encoder would form itself
    assert len(trims) == 1  # a trim costs ~0.4 ms: once per call, not per batch
    assert kb._embed([]).shape == (0, 4)


def test_a_trim_looks_the_c_library_up_once(monkeypatch):
    """Finding libc runs ldconfig in a subprocess (~10 ms): not once per batch."""
    import ctypes.util

    from mitra.core import memory

    lookups = []
    find = ctypes.util.find_library
    monkeypatch.setattr(ctypes.util, "find_library", lambda name: lookups.append(name) or find(name))
    memory._libc.cache_clear()
    for _ in range(3):
        memory.release_freed()
    assert lookups == ["c"]


def test_batches_are_formed_by_what_the_encoder_counts_not_by_characters(tmp_path):
    """Maths has more tokens per character than prose: the encoder's count decides."""

    class TokenCounting(RecordingEmbedder):
        def lengths(self, texts: list[str]) -> list[int]:
            return [t.count("$") * 10 + len(t) // 10 for t in texts]  # "$" stands for a dense maths token

    embedder = TokenCounting()
    kb = KnowledgeBase(Settings(data_dir=tmp_path, embed_batch_size=2), embedder)
    prose, maths = ["a" * 90, "b" * 80], ["$$$$", "$$$"]
    kb._embed([*prose, *maths])
    assert embedder.batches == [maths, prose]
