"""What a writer embeds for a batch of chunks, and each chunk's vectors from that.

A paragraph longer than ``dense_window_words`` gets a vector per run of sentences (its
windows) beside its own. Its own vector is, by default, the length-weighted mean of its
windows' vectors rather than a second encoding of the same words: the encoder's time
goes by the token, the windows hold every token of the paragraph already, and the
paragraph's own encoding was cut at the encoder's 256 tokens. On 40 LHCb papers that
embeds 303k tokens instead of 538k (``dense_paragraph_vector`` "text" encodes both).
Every text is embedded once per batch, in one call, so the encoder's batches mix
paragraphs and windows of the same length.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mitra.core.settings import Settings
from mitra.core.types import Chunk


@dataclass
class EmbeddingPlan:
    """``texts`` to embed; chunk ``i``'s own vector is row ``own[i]`` of their vectors (or,
    where None, the mean of its windows'), its windows' are rows ``windows[i]``."""

    texts: list[str]
    own: list[int | None]
    windows: list[range]

    @classmethod
    def of(cls, chunks: list[Chunk], settings: Settings) -> "EmbeddingPlan":
        window_words = settings.dense_window_words
        encode_paragraphs = settings.dense_paragraph_vector == "text"
        texts: list[str] = []
        own: list[int | None] = []
        windows: list[range] = []
        for chunk in chunks:
            runs = chunk.index_windows(window_words) if window_words else []
            if runs and not encode_paragraphs:
                own.append(None)
            else:
                own.append(len(texts))
                texts.append(chunk.index_text)
            windows.append(range(len(texts), len(texts) + len(runs)))
            texts.extend(runs)
        return cls(texts, own, windows)

    def vectors(self, embedded: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]]:
        """Each chunk's unit vector and its windows' vectors (no rows where it has none),
        from ``embedded`` (row ``j``: ``texts[j]``'s unit vector)."""
        embedded = np.asarray(embedded, np.float32).reshape(len(self.texts), -1)
        windows = [embedded[rows.start : rows.stop] for rows in self.windows]
        own = np.zeros((len(self.own), embedded.shape[1]), np.float32)
        for i, row in enumerate(self.own):
            if row is not None:
                own[i] = embedded[row]
                continue
            weights = np.array([len(self.texts[j]) for j in self.windows[i]], np.float32)
            mean = weights @ windows[i]
            own[i] = mean / (np.linalg.norm(mean) or 1.0)
        return own, windows
