"""Checks that keep an answer to the locked analysis's passages and do not depend on the
model behaving: both are lexical and numeric, so they work with any model, the packaged
ones included.

* ``question_coverage``: the share of a question's content words the locked analysis uses
  anywhere (its BM25 vocabulary). An off-topic question ("How long should I boil an egg?")
  shares almost none of them, whatever the dense scores say; the answerer abstains below
  ``min_question_coverage`` without calling the model.
* ``check_support``: every answer sentence that cites passages, against those passages:
  each number it states must occur in them, and ``support_min_overlap`` of its content
  words. "The egg should be boiled for 10 minutes [2]" fails when passage [2] has no 10.
  A sentence that fails against what it cites, or cites nothing, but holds in another
  passage the model was shown gets that passage as its citation instead (small models
  write the right fact with the wrong number: 4 of 15 demo answers did);
  ``recite`` rewrites the answer's markers to match.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from typing import Callable, Sequence

from pydantic import BaseModel

from mitra.answer.prompts import CITATION, expand_citation
from mitra.core.text import math_to_words, split_sentences, tokenize
from mitra.core.types import Analysis, Hit
from mitra.store.reader import KnowledgeReader

# Words about the asking, not the subject: a question may use them whatever the analysis says.
_ASKING = "paper note document analysis summary summarise summarize explain describe tell please give list main should"
_CONTENT = re.compile(r"[^\W\d_]{3,}")  # a sentence with a word in it, not only markers or figures
_LEADING_CITATIONS = re.compile(r"^(?:\s*\[[\d\s,;\-–]+\])+")
# A number as written in physics text: 80.4, 3.1e-9, 80 353 (a thin or plain space between digit groups).
_NUMBER = re.compile(r"(?<![\w.])\d{1,3}(?:[ \u2009\u202f]\d{3})+(?![\d.])|(?<![\w.])\d+(?:\.\d+)?(?:[eE][-−]?\d+)?")


@lru_cache(maxsize=1)
def _asking_words() -> frozenset[str]:
    return frozenset(tokenize(_ASKING))


def content_words(text: str) -> list[str]:
    """The text's BM25 tokens less words about the asking, each once, in order."""
    return list(dict.fromkeys(t for t in tokenize(text) if t not in _asking_words()))


class QuestionCoverage(BaseModel):
    share: float  # of the question's content words, those the analysis uses
    unknown: list[str]  # the question's words the analysis never uses


def question_coverage(question: str, known: Callable[[str], bool]) -> QuestionCoverage:
    """How much of ``question`` the analysis speaks of; ``known(token)`` says whether a
    token occurs in it. A question with no content words is fully covered (nothing to miss)."""
    words = content_words(question)
    missing = {w for w in words if not known(w)}
    share = 1.0 - len(missing) / len(words) if words else 1.0
    unknown = [w for w in re.findall(r"[^\W_][\w\-]*", question) if (t := tokenize(w)) and set(t) <= missing]
    return QuestionCoverage(share=round(share, 4), unknown=list(dict.fromkeys(unknown)))


def analysis_coverage(kb: KnowledgeReader, analysis: Analysis, question: str) -> QuestionCoverage:
    """How much of the question's vocabulary the analysis uses: its documents, title or abstract."""
    index = kb.bm25_index(analysis.id)
    own = set(tokenize(analysis.routing_text))
    return question_coverage(question, lambda token: token in own or index.idf(token) > 0)


def numbers(text: str) -> set[str]:
    """The numbers a text states, canonical (80.40 = 80.4; 80 353 = 80353; signs dropped)."""
    found = set()
    for raw in _NUMBER.findall(text.replace("−", "-")):
        try:
            value = Decimal(re.sub(r"[ \u2009\u202f]", "", raw))
        except InvalidOperation:
            continue
        found.add(format(value.normalize(), "f"))
    return found


class SentenceSupport(BaseModel):
    """One answer sentence checked against the passages it cites."""

    text: str
    cited: list[int]
    supported: bool | None  # None: it cites nothing, so there is nothing to check it against
    overlap: float = 1.0  # share of its content words found in the cited passages
    missing_numbers: list[str] = []
    missing_words: list[str] = []
    recited_from: list[int] | None = None  # the citations the model wrote, when the check replaced them
    misattributed: bool = False  # it named an analysis and cited only passages of another: citations removed

    @property
    def problem(self) -> str:
        """Why it is not supported, in a line ("" when it is, or cites nothing)."""
        if self.supported is not False:
            return ""
        if self.misattributed:
            return "it cites passages of another analysis than the one it names"
        where = ", ".join(f"[{n}]" for n in self.cited)
        if self.missing_numbers:
            return f"{', '.join(self.missing_numbers)} is not in {where}"
        return f"most of its words ({', '.join(self.missing_words[:5])}) are not in {where}"


def sentences_with_citations(text: str) -> list[str]:
    """The answer's sentences; a citation written after the full stop ("… mass. [2]")
    stays with the sentence before it."""
    out: list[str] = []
    for sentence in split_sentences(text):
        leading = _LEADING_CITATIONS.match(sentence)
        if out and leading:
            out[-1] += " " + leading.group().strip()
            sentence = sentence[leading.end():].strip()
        if sentence:
            out.append(sentence)
    return out


def _cited(sentence: str, n_sources: int) -> list[int]:
    found: list[int] = []
    for match in CITATION.finditer(sentence):
        found += [n for n in expand_citation(match.group(2), n_sources)[0] if n not in found]
    return found


Entails = Callable[[str, str], bool]  # (claim, passage text): does a model read the claim in it?


def _against(body: str, passages: str, min_overlap: float,
             entails: Entails | None = None) -> tuple[bool, float, list[str], list[str]]:
    """Numbers are never excused; words short of ``min_overlap`` are, when ``entails`` says
    the passages state the claim in other words."""
    have = set(tokenize(passages))
    words = content_words(body)
    missing_words = [w for w in words if w not in have]
    overlap = 1.0 - len(missing_words) / len(words) if words else 1.0
    missing_numbers = sorted(numbers(body) - numbers(passages))
    worded = overlap >= min_overlap or (entails is not None and entails(body, passages))
    return not missing_numbers and worded, round(overlap, 4), missing_numbers, missing_words


def _passage_text(hit: Hit) -> str:
    return f"{' '.join(hit.chunk.section)} {math_to_words(hit.chunk.text)}"


def check_support(text: str, sources: Sequence[Hit], min_overlap: float,
                  entails: Entails | None = None) -> list[SentenceSupport]:
    """Each sentence of ``text`` with its support in the passages it cites (``sources[n - 1]``
    is [n]); one that fails there, or cites nothing, is checked against each other passage.
    ``entails``, where a cross-encoder is loaded, accepts paraphrase the word check misses."""
    checked = []
    texts = [_passage_text(h) for h in sources]
    for sentence in sentences_with_citations(text):
        cited = _cited(sentence, len(sources))
        body = CITATION.sub(" ", sentence)
        result = None
        if cited:
            supported, overlap, numbers_missing, words_missing = _against(
                body, " ".join(texts[n - 1] for n in cited), min_overlap, entails)
            result = SentenceSupport(text=sentence, cited=cited, supported=supported, overlap=overlap,
                                     missing_numbers=numbers_missing, missing_words=words_missing)
        if result is None or not result.supported:
            holding = [(n, _against(body, texts[n - 1], min_overlap, entails)) for n in range(1, len(sources) + 1)
                       if n not in cited and _CONTENT.search(body)]
            best = max((h for h in holding if h[1][0]), key=lambda h: h[1][1], default=None)
            if best is not None:
                result = SentenceSupport(text=sentence, cited=[best[0]], supported=True, overlap=best[1][1],
                                         recited_from=cited)
        checked.append(result or SentenceSupport(text=sentence, cited=[], supported=None))
    return checked


def off_topic(coverage: QuestionCoverage, floor: float | None) -> bool:
    """Does the analysis use too few of the question's words to answer it (``min_question_coverage``)?"""
    return floor is not None and coverage.share < floor


def supported_share(support: Sequence[SentenceSupport], passages: Sequence[int] | None = None) -> float | None:
    """Of the checked sentences (those citing one of ``passages``, when given), the share
    their passages support; None when none was checked."""
    mine = None if passages is None else set(passages)
    checked = [s.supported for s in support if s.supported is not None and (mine is None or mine & set(s.cited))]
    return round(sum(checked) / len(checked), 4) if checked else None


def recite(support: Sequence[SentenceSupport]) -> str | None:
    """The answer with the citations the check found in place of the model's, or None when
    it changed none."""
    if not any(s.recited_from is not None for s in support):
        return None
    return " ".join(
        CITATION.sub("", s.text).rstrip() + (f" [{', '.join(map(str, s.cited))}]" if s.cited else "")
        if s.recited_from is not None else s.text
        for s in support
    )
