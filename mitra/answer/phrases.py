"""Phrases, a signal of the candidate ranking (``candidates``): the share of the question's
adjacent word pairs ("momentum resolution", "signal region"; ``Asked.phrases``) that a value's
sentence or table row, or its column's header, also writes side by side. A sentence that
writes "momentum resolution" names what the question names more surely than one that holds
"momentum" and "resolution" apart; the word shares count each word alone.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Sequence

from mitra.answer.asked import Asked
from mitra.core.text import tokenize


def adjacent(tokens: Sequence[str]) -> frozenset[tuple[str, str]]:
    """Each pair of adjacent tokens, in either order ("resolution of the momentum")."""
    return frozenset(p for a, b in zip(tokens, tokens[1:]) if a != b for p in ((a, b), (b, a)))


@lru_cache(maxsize=1024)
def _header_pairs(column: str) -> frozenset[tuple[str, str]]:
    return adjacent(tokenize(column))


def phrase_share(asked: Asked, sentence_pairs: frozenset[tuple[str, str]], column: str) -> float:
    """The share of the question's phrases the sentence (its ``adjacent`` pairs) or the column writes."""
    if not asked.phrases:
        return 0.0
    return len(asked.phrases & (sentence_pairs | _header_pairs(column))) / len(asked.phrases)
