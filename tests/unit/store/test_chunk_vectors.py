"""Each token is embedded once: a paragraph with sentence windows takes its own vector
from theirs instead of a second encoding of the same words."""

import numpy as np

from mitra.core.settings import Settings
from mitra.core.types import Chunk
from mitra.store.chunk_vectors import EmbeddingPlan

LONG = " ".join(f"Sentence {i} says something about the muon trigger efficiency here." for i in range(9))


def _chunk(position: int, text: str) -> Chunk:
    return Chunk(id=f"c{position}", analysis_id="A", doc_id="d", version="1", position=position,
                 section=["Trigger"], text=text)


def _unit(rows: list[list[float]]) -> np.ndarray:
    rows = np.array(rows, np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def test_a_paragraph_with_windows_is_not_encoded_again_and_takes_their_weighted_mean():
    long, short = _chunk(0, LONG), _chunk(1, "The luminosity is 138 fb-1.")
    plan = EmbeddingPlan.of([long, short], Settings(dense_window_words=30))

    windows = long.index_windows(30)
    assert plan.texts == [*windows, short.index_text]  # no text embedded twice, none left out
    embedded = _unit([[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 0]])
    own, own_windows = plan.vectors(embedded)

    weights = np.array([len(w) for w in windows], np.float32)
    expected = weights @ embedded[:3]
    np.testing.assert_allclose(own[0], expected / np.linalg.norm(expected), rtol=1e-6)
    np.testing.assert_allclose(own_windows[0], embedded[:3])
    np.testing.assert_allclose(own[1], embedded[3])  # one window: its own text's vector
    assert own_windows[1].shape == (0, 3)


def test_paragraphs_can_still_be_encoded_whole_beside_their_windows():
    long = _chunk(0, LONG)
    plan = EmbeddingPlan.of([long], Settings(dense_window_words=30, dense_paragraph_vector="text"))
    assert plan.texts == [long.index_text, *long.index_windows(30)]
    embedded = _unit([[1, 0], [0, 1], [0, 1], [0, 1]])
    own, windows = plan.vectors(embedded)
    np.testing.assert_allclose(own[0], embedded[0])
    assert len(windows[0]) == 3


def test_without_windows_each_paragraph_is_encoded_whole():
    long = _chunk(0, LONG)
    plan = EmbeddingPlan.of([long], Settings(dense_window_words=0))
    assert plan.texts == [long.index_text] and plan.windows == [range(1, 1)]
