"""How a document is organised: its section tree, one line per section taken from the section
itself (its most central sentence: the one sharing most of the section's frequent words; its
heading where it has no text), each line citing the section's first passage."""

from __future__ import annotations

from collections import Counter
from typing import Sequence

from mitra.brief.record import DocumentTree, Section
from mitra.brief.values import place_of
from mitra.core.text import math_to_words, split_sentences, tokenize
from mitra.core.types import Chunk

MIN_WORDS, MAX_WORDS = 6, 45  # a line a member reads at a glance, not a caption's fragment
LINE_CHARS = 240


def central_sentence(texts: Sequence[str]) -> str:
    """The sentence of ``texts`` whose words are the section's most frequent (each word once,
    normalised by the sentence's length), or "" where none is a readable sentence."""
    sentences = [s for t in texts for s in split_sentences(math_to_words(t))
                 if MIN_WORDS <= len(s.split()) <= MAX_WORDS and "|" not in s]
    if not sentences:
        return ""
    counts = Counter(w for s in sentences for w in set(tokenize(s)))

    def centrality(sentence: str) -> float:
        words = set(tokenize(sentence))
        return sum(counts[w] - 1 for w in words) / (len(words) ** 0.5 or 1)

    best = max(sentences, key=centrality)
    return best if len(best) <= LINE_CHARS else best[:LINE_CHARS].rsplit(" ", 1)[0] + "…"


def document_tree(doc_id: str, title: str, version: str, chunks: Sequence[Chunk]) -> DocumentTree:
    """The sections of one document version in reading order, a line each."""
    sections: dict[tuple[str, ...], list[Chunk]] = {}
    for chunk in sorted(chunks, key=lambda c: c.position):
        sections.setdefault(tuple(chunk.section), []).append(chunk)
    out = []
    for path, members in sections.items():
        if not path:
            continue
        line = central_sentence([c.text for c in members if c.kind.value == "body"]) or path[-1]
        out.append(Section(path=list(path), line=line, place=place_of(members[0], line)))
    return DocumentTree(doc_id=doc_id, title=title, version=version, sections=out)
