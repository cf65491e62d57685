"""How much of a document's text reaches its chunks, in all and by kind of block.

``coverage``: the share of the source's words (less those left out on purpose:
references, acknowledgements, author lists, markup) that search finds in the chunks.
``coverage_by_kind``: the same share for each kind of block the front end read (body,
table, equation, caption, heading), and for words no block held ("other"): when a
document falls short, which of its blocks lost text.
"""

from __future__ import annotations

from collections import Counter
from typing import Iterable

from mitra.core.text import clean_latex, escape_percent, math_to_words, tokenize
from mitra.core.types import Chunk

OTHER = "other"  # source words no block the front end read held


def word_counts(texts: Iterable[str], latex: bool = False) -> Counter:
    """Content words (the BM25 tokens) of source texts. ``latex``: LaTeX source, where %
    starts a comment; elsewhere it is a percent sign."""
    counts: Counter = Counter()
    for text in texts:
        counts.update(tokenize(clean_latex(text if latex else escape_percent(text))))
    return counts


def reached_words(chunks: list[Chunk], headings: Iterable[str]) -> Counter:
    """The words search finds: the chunks' text as indexed, and the section titles they carry."""
    reached: Counter = Counter()
    for text in [*(math_to_words(c.text) for c in chunks), *headings]:
        reached.update(tokenize(text))
    return reached


def _share(wanted: Counter, reached: Counter) -> float:
    total = sum(wanted.values())
    return sum(min(n, reached[w]) for w, n in wanted.items()) / total if total else 1.0


def coverage(source: Counter, dropped: Counter, chunks: list[Chunk], headings: Iterable[str]) -> float:
    """Share of the source's words, less those dropped on purpose, that search finds in
    the chunks (their text as indexed, or the section titles they carry). 1.0 for a
    source with no words left."""
    return _share(source - dropped, reached_words(chunks, headings))


def coverage_by_kind(source: Counter, dropped: Counter, chunks: list[Chunk], headings: Iterable[str],
                     read: Iterable[tuple[str, str]], latex: bool = False) -> dict[str, dict[str, float]]:
    """Per kind of block read (``read``: (kind, its source text)), its words and the share
    of them that reaches a chunk; words of the source no block held are ``other``."""
    wanted = source - dropped
    reached = reached_words(chunks, headings)
    kinds: dict[str, Counter] = {}
    for kind, text in read:
        kinds.setdefault(kind, Counter()).update(word_counts([text], latex=latex))
    held: Counter = Counter()
    out = {}
    for kind, counts in sorted(kinds.items()):
        counts &= wanted
        held = (held + counts) & wanted  # the kinds' blocks are apart in the source: their words add up
        if counts:
            out[kind] = {"words": sum(counts.values()), "coverage": round(_share(counts, reached), 4)}
    rest = wanted - held
    if rest:
        out[OTHER] = {"words": sum(rest.values()), "coverage": round(_share(rest, reached - held), 4)}
    return out
