"""Pseudo-queries drawn from the indexed corpus: the training data of ``mitra adapt``.

No human labels: every query comes with the passage it was made from.

* ``llm``      a question the configured local LLM writes about a passage (the
               style users ask in), for as many passages as its time budget allows;
* ``heading``  a section title asks for the first passage of its section, shown
               without its section path.

Inverse-cloze sentences (a sentence asking for the passage it was cut from) were
measured too and made the encoder worse on real questions (README): they are not used.

Each query is assigned to the training or the held-out split by its passage, so no
passage is seen in both. Hard negatives are the passages BM25 and the dense retriever
rank highest for the query in the same analysis, other than the positive.
"""

from __future__ import annotations

import hashlib
import random
import re
import time
from dataclasses import dataclass
from typing import Callable, Iterable, Iterator, Literal

from pydantic import BaseModel

from mitra.core.text import math_to_words
from mitra.core.types import Chunk, ChunkKind

Kind = Literal["heading", "llm"]
HELDOUT_SHARE = 5  # one passage in five is held out


class PseudoQuery(BaseModel):
    query: str
    analysis_id: str
    chunk_id: str
    kind: Kind
    # Show the positive passage without its section path (a heading query would match itself).
    strip_section: bool = False

    @property
    def heldout(self) -> bool:
        return is_heldout(self.chunk_id)


def is_heldout(chunk_id: str) -> bool:
    return int(hashlib.sha1(chunk_id.encode()).hexdigest(), 16) % HELDOUT_SHARE == 0


def passage_for(query: PseudoQuery, chunk: Chunk) -> str:
    """The positive passage as the model sees it in training."""
    return math_to_words(chunk.text) if query.strip_section else chunk.index_text


_NUMBERING = re.compile(r"^(?:[\dIVXA-Z]+[.)]?)+\s+")


def heading_queries(chunks: Iterable[Chunk]) -> Iterator[PseudoQuery]:
    seen: set[tuple[str, tuple[str, ...]]] = set()
    for chunk in chunks:
        key = (chunk.analysis_id, tuple(chunk.section))
        if not chunk.section or key in seen or chunk.kind is not ChunkKind.body:
            continue
        seen.add(key)
        title = _NUMBERING.sub("", chunk.section[-1]).strip()
        if len(title) >= 4:
            yield PseudoQuery(query=title, analysis_id=chunk.analysis_id, chunk_id=chunk.id, kind="heading",
                              strip_section=True)


QuestionWriter = Callable[[Chunk], str]
_NOT_ABOUT_THE_CONTENT = re.compile(r"\b(passage|paragraph|excerpt|this (text|paper|study|article|section))\b", re.I)


def usable_question(text: str) -> str | None:
    """The first line of an LLM reply when it is a real question about the content."""
    line = text.strip().split("\n")[0].strip().strip('"')
    words = line.split()
    if not line.endswith("?") or not 4 <= len(words) <= 40 or _NOT_ABOUT_THE_CONTENT.search(line):
        return None
    return line


@dataclass
class LLMBudget:
    seconds: float
    max_questions: int


def llm_queries(
    chunks: list[Chunk], write: QuestionWriter, budget: LLMBudget, rng: random.Random,
    done: set[str] = frozenset(), on_query: Callable[[PseudoQuery | None], None] | None = None,
) -> Iterator[PseudoQuery]:
    """Questions for randomly chosen passages (longer than a caption), until the time or
    count budget is spent. ``done`` lists passages already asked about (a resumed run)."""
    pool = [c for c in chunks if len(c.text) >= 150 and c.id not in done]
    rng.shuffle(pool)
    deadline = time.monotonic() + budget.seconds
    made = 0
    for chunk in pool:
        if made >= budget.max_questions or time.monotonic() >= deadline:
            return
        question = usable_question(write(chunk))
        query = question and PseudoQuery(query=question, analysis_id=chunk.analysis_id, chunk_id=chunk.id, kind="llm")
        if on_query:
            on_query(query or None)
        if query:
            made += 1
            yield query
