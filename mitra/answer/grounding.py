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

from mitra.answer.claims import NumberCheck, PassageText, Quote, asked_kind, bind, quote
from mitra.answer.prompts import CITATION, expand_citation
from mitra.answer.quantities import mentions
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


class Credit(BaseModel):
    """An across sentence credited to the analysis whose passage holds it, not the one it named."""

    named: str  # the analysis the model wrote
    holder: str  # the analysis whose passage holds the claim


class SentenceSupport(BaseModel):
    """One answer sentence checked against the passages it cites."""

    text: str
    cited: list[int]
    supported: bool | None  # None: it cites nothing, so there is nothing to check it against
    overlap: float = 1.0  # share of its content words found in the cited passages
    missing_numbers: list[str] = []
    missing_words: list[str] = []  # as the sentence writes them
    numbers: list[NumberCheck] = []  # numbers its passages state, but for another quantity
    quote: Quote | None = None  # the passage's own sentence for the quantity, shown in its place
    recited_from: list[int] | None = None  # the citations the model wrote, when the check replaced them
    misattributed: bool = False  # it named an analysis and cited only passages of another: citations removed
    named: list[str] = []  # the analyses it names (across answers)
    credit: Credit | None = None  # it named another analysis than the one whose passage holds it: renamed

    @property
    def problem(self) -> str:
        """Why it is not supported, in a line ("" when it is, or cites nothing)."""
        if self.supported is not False:
            return ""
        if self.misattributed:
            return "it cites passages of another analysis than the one it names"
        where = ", ".join(f"[{n}]" for n in self.cited)
        if self.numbers:
            return "; ".join(check.explain() for check in self.numbers)
        if self.missing_numbers:
            return f"{', '.join(self.missing_numbers)} is not in {where}"
        return f"most of its words ({', '.join(self.missing_words[:5])}) are not in {where}"

    @property
    def wrong_figure(self) -> bool:
        """Its passages state its numbers for other quantities: not shown as the model wrote it."""
        return self.supported is False and bool(self.numbers)


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


def surface_words(text: str, stems: Sequence[str]) -> list[str]:
    """The words of ``text`` behind ``stems``, as written ("resolution", not "resolut")."""
    wanted = set(stems)
    found = [w for w in re.findall(r"[^\W_][\w\-]*", text) if (t := tokenize(w)) and set(t) <= wanted]
    return list(dict.fromkeys(found)) or list(stems)


class _Passages:
    """The passages the model was shown, as the checks read them: words with their section
    path, and numbers bound to their quantities (``claims``)."""

    def __init__(self, sources: Sequence[Hit]):
        self.texts = [f"{' '.join(h.chunk.section)} {math_to_words(h.chunk.text)}" for h in sources]
        self.bound = [PassageText.of(n, h) for n, h in enumerate(sources, start=1)]

    def against(self, body: str, cited: Sequence[int], min_overlap: float, entails: Entails | None,
                question: str, title: str) -> SentenceSupport:
        """Numbers are never excused: each must be in the cited passages, stated there for the
        quantity the sentence (with its question) names. Words short of ``min_overlap`` are
        excused when ``entails`` says the passages state the claim in other words."""
        passages = " ".join(self.texts[n - 1] for n in cited)
        have = set(tokenize(passages))
        words = content_words(body)
        missing = [w for w in words if w not in have]
        overlap = 1.0 - len(missing) / len(words) if words else 1.0
        missing_numbers = sorted(numbers(body) - numbers(passages))
        wrong = [] if missing_numbers else bind(body, f"{question} {title}", [self.bound[n - 1] for n in cited],
                                                self.bound)
        worded = overlap >= min_overlap or (entails is not None and entails(body, passages))
        return SentenceSupport(text=body, cited=list(cited), supported=not missing_numbers and not wrong and worded,
                               overlap=round(overlap, 4), missing_numbers=missing_numbers,
                               missing_words=surface_words(body, missing) if missing else [], numbers=wrong)

    def quote(self, body: str, question: str, wrong: Sequence[NumberCheck]) -> Quote | None:
        """The sentence of a shown passage that states the quantity a failed figure was claimed for."""
        figures = [m for m in mentions(body) if any(m.written == w.written for w in wrong)]
        avoid = figures[0] if figures else None
        kind = avoid.kind if avoid is not None and avoid.kind else asked_kind(f"{question} {body}")
        return quote(f"{question} {body}", kind, self.bound, avoid=avoid, asked=question or body)


def check_support(text: str, sources: Sequence[Hit], min_overlap: float,
                  entails: Entails | None = None, question: str = "", title: str = "") -> list[SentenceSupport]:
    """Each sentence of ``text`` with its support in the passages it cites (``sources[n - 1]``
    is [n]); one that fails there, or cites nothing, is checked against each other passage.
    ``entails``, where a cross-encoder is loaded, accepts paraphrase the word check misses.
    ``question`` and ``title`` (the analysis's) name what a sentence's numbers are for
    where the sentence leaves it open; a figure its passages state only for another quantity
    gets the shown passage sentence that states the asked one as its ``quote``."""
    checked = []
    passages = _Passages(sources)
    for sentence in sentences_with_citations(text):
        cited = _cited(sentence, len(sources))
        body = CITATION.sub(" ", sentence)
        result = None
        if cited:
            result = passages.against(body, cited, min_overlap, entails, question, title).model_copy(update={"text": sentence})
        if result is None or not result.supported:
            holding = [(n, passages.against(body, [n], min_overlap, entails, question, title))
                       for n in range(1, len(sources) + 1) if n not in cited and _CONTENT.search(body)]
            best = max((h for h in holding if h[1].supported), key=lambda h: h[1].overlap, default=None)
            if best is not None:
                result = SentenceSupport(text=sentence, cited=[best[0]], supported=True, overlap=best[1].overlap,
                                         recited_from=cited)
            elif result is not None and result.numbers:
                result.quote = passages.quote(body, question, result.numbers)
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


def _cite(sentence: str, cited: Sequence[int]) -> str:
    """The sentence without its markers, citing ``cited`` before its closing full stop."""
    bare = CITATION.sub("", sentence).rstrip()
    if not cited:
        return bare
    stop = re.search(r"[.!?…:;]+$", bare)
    end = stop.start() if stop else len(bare)
    return f"{bare[:end]} [{', '.join(map(str, cited))}]{bare[end:]}"


def quoted(quote: Quote) -> str:
    """A passage's sentence as an answer shows it in place of a figure that failed."""
    return f"“{quote.sentence}” [{quote.passage}]"


def recite(support: Sequence[SentenceSupport]) -> str | None:
    """The answer as the checks leave it, or None when they changed nothing: the citations
    they found in place of the model's, and a sentence whose figure its passages state for
    another quantity replaced by the passage sentence that states the asked one (or left out
    when no shown passage does). Never the model's wrong figure beside a citation."""
    if not any(s.recited_from is not None or s.wrong_figure or s.misattributed for s in support):
        return None
    kept = []
    for s in support:
        if s.wrong_figure:
            if s.quote is not None:
                kept.append(quoted(s.quote))
        elif s.credit is not None:
            named = re.compile(rf"(?<![\w-]){re.escape(s.credit.named)}(?![\w-])")
            kept.append(_cite(named.sub(s.credit.holder, s.text), s.cited))
        elif s.misattributed and not s.supported:
            continue  # credits an analysis with what none of its passages says: not shown
        elif s.recited_from is not None:
            kept.append(_cite(s.text, s.cited))
        else:
            kept.append(s.text)
    return " ".join(kept)


def shown_supported(support: Sequence[SentenceSupport]) -> bool:
    """Does the answer as shown hold a supported sentence (a quote in place of a figure counts)?"""
    return any(s.supported or s.quote is not None for s in support)
