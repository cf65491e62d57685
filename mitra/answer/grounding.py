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
  ``recite`` rewrites the answer's markers to match. A sentence that cites nothing but
  states a number no passage holds is not supported (``recite`` leaves it out when no
  shown passage states the number at all); one that points at a passage where its value
  should be ("The systematic uncertainty is [3].") is no supported claim (``pointer``);
  one that only points at passages ("See [2].") is no claim at all (``signpost``).
  Numbers are values only: the digits of "Fig. 10", "Ref. [12]", "SMP-24-002" or a year
  are names (``figures.names``).
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from typing import Callable, Sequence

from pydantic import BaseModel

from mitra.answer.claims import NumberCheck, PassageText, Quote, asked_kind, bind, quote
from mitra.answer.figures import in_name, is_year, named_after, names
from mitra.answer.prompts import CITATION, expand_citation
from mitra.answer.quantities import mentions
from mitra.core.text import math_to_words, split_sentences, tokenize
from mitra.core.types import Analysis, Hit
from mitra.store.reader import KnowledgeReader

# Words about the asking, not the subject: a question may use them whatever the analysis says.
_ASKING = "paper note document analysis summary summarise summarize explain describe tell please give list main should"
# The words of a sentence that only points at passages ("This value is given in the table [4].",
# "See [2].", "As shown in [1] and [3]."): a closed list, so that no claim passes for one.
_SIGNPOST = ("see seen state stated given shown show list listed report reported describe described found find "
             "detail details refer reference referred mention mentioned provide provided present presented discuss "
             "discussed contain contains quote quoted summarise summarised summarize summarized passage passages "
             "table tables figure figures fig figs eq eqs equation equations section sections appendix ref refs "
             "value values result results number numbers information further full complete more here above below "
             "text source sources explicitly directly clearly")
# A predicate that ends at a citation marker, the value left out: "… is [3].", "… amounts to [2].", "…: [1]."
# One way only to read the spaces between markers: two optional runs of spaces around an optional
# "and" read a run of markers in 2ⁿ ways, and a model's reply of 30 markers took minutes.
_MARKERS = r"(?:\s*(?:(?:,|;|and)\s*)?\[\s*\d+\s*(?:[-–,;]\s*\d+\s*)*\])+\s*[.!?…]*\s*$"
_POINTER = re.compile(
    r"(?:\b(?:is|are|was|were|be|been|becomes?|became|equals?|equalled|amounts? to|amounted to|corresponds? to|"
    r"reads?|reach(?:es|ed)?|totals?|stands? at|about|approximately|around|roughly|nearly|up to|"
    r"at (?:least|most)|(?:less|more|greater|smaller|larger|lower|higher) than|"
    r"(?:values?|uncertaint(?:y|ies)|significances?|mass(?:es)?|widths?|limits?|precision|resolution|"
    r"cross[- ]sections?|luminosity|efficienc(?:y|ies)|lifetimes?|thresholds?|fractions?|ratios?|energy|level|"
    r"constraints?|bounds?|errors?|contributions?) of)|[:=≈~<>≤≥])" + _MARKERS, re.I)
# "95% CL", "at 90% confidence level": the level a limit is set at, not a value the sentence states.
_LEVEL = re.compile(r"\d+(?:\.\d+)?\s?%\s?(?:CL\b|C\.\s?L\.|CLs\b|confidence|credib)", re.I)
# A catalogue name ("HIG-24-001", "CMS-HIG-12-028", "AN-2024-002"): no value, but a claim naming
# one stands only on passages that name it or belong to it ("In HIG-24-001, …" citing EXO-24-002's).
_CATALOGUE = re.compile(r"\b[A-Z][A-Za-z]*(?:-[A-Za-z]+)*(?:-\d+){2,}\b")
_CONTENT = re.compile(r"[^\W\d_]{3,}")  # a sentence with a word in it, not only markers or figures
_LEADING_CITATIONS = re.compile(r"^(?:\s*\[[\d\s,;\-–]+\])+")
# A number as written in physics text: 80.4, 3.1e-9, 80 353 (a thin or plain space between digit groups).
_NUMBER = re.compile(r"(?<![\w.])\d{1,3}(?:[ \u2009\u202f]\d{3})+(?![\d.])|(?<![\w.])\d+(?:\.\d+)?(?:[eE][-−]?\d+)?")


@lru_cache(maxsize=1)
def _asking_words() -> frozenset[str]:
    return frozenset(tokenize(_ASKING))


@lru_cache(maxsize=1)
def _signpost_words() -> frozenset[str]:
    return frozenset(tokenize(_SIGNPOST))


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
    """The values a text states, canonical (80.40 = 80.4; 80 353 = 80353; signs dropped); not
    the digits of a name ("Fig. 10", "Ref. [12]", "Run 2", "SMP-24-002", "4ℓ") or a year
    written alone ("Planck 2018", "in 2016")."""
    found = set()
    text = text.replace("−", "-")
    spans = names(text)
    for match in _NUMBER.finditer(text):
        raw = match.group()
        if in_name(spans, match.start()) or named_after(text, match.end()) or is_year(text, *match.span()):
            continue
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
    supported: bool | None  # None: it states no number and cites nothing, or only points at passages
    overlap: float = 1.0  # share of its content words found in the cited passages
    missing_numbers: list[str] = []
    missing_names: list[str] = []  # the catalogue names it gives ("HIG-24-001") that its passages are not of
    missing_words: list[str] = []  # as the sentence writes them
    numbers: list[NumberCheck] = []  # numbers its passages state, but for another quantity
    quote: Quote | None = None  # the passage's own sentence for the quantity, shown in its place
    recited_from: list[int] | None = None  # the citations the model wrote, when the check replaced them
    uncited: bool = False  # it cites nothing but states a number: checked against every passage shown
    pointer: bool = False  # "… is [3].": the model pointed at a passage instead of stating the value
    absent: bool = False  # a number it states is in none of the passages shown
    signpost: bool = False  # "See [2].": it only points at passages, so it claims nothing

    @property
    def problem(self) -> str:
        """Why it is not supported, in a line ("" when it is, or cites nothing)."""
        if self.supported is not False:
            return ""
        where = ", ".join(f"[{n}]" for n in self.cited) or "any passage shown"
        if self.pointer:
            return f"it names no value: the model pointed at {where} instead of stating it"
        if self.numbers:
            return "; ".join(check.explain() for check in self.numbers)
        if self.missing_numbers or self.missing_names:
            return f"{', '.join(self.missing_numbers + self.missing_names)} is not in {where}"
        if not self.missing_words:
            return "no one passage shown states it"
        return f"most of its words ({', '.join(self.missing_words[:5])}) are not in {where}"

    @property
    def wrong_figure(self) -> bool:
        """Its passages state its numbers for other quantities: not shown as the model wrote it."""
        return self.supported is False and bool(self.numbers)

    @property
    def unstated(self) -> bool:
        """It states a number no shown passage states (cited nowhere, or cited and in none of
        the passages shown): not shown at all, as the stream's gate never showed it."""
        return self.supported is False and bool(self.missing_numbers) and (self.uncited or self.absent)


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


def _verbatim(text: str) -> str:
    """Text as compared word for word: lower case, white space and end punctuation folded."""
    return " ".join(text.lower().split()).rstrip(" .!?")


def points_at_value(sentence: str, question: str = "") -> bool:
    """Does the sentence end its predicate at a citation marker, stating nothing ("The
    systematic uncertainty on the measured boson mass is [3].", "… amounts to [2].")? One
    that states a value elsewhere ("… 91 percent of the total [1].") points at nothing; the
    data or mass point it names ("The excess in the 13 TeV data is [2, 3].") is no value,
    nor is one it repeats from the question ("… of the 8 TeV / 7 TeV ratio is [2, 3].")."""
    if not _POINTER.search(sentence):
        return False
    asked = {m.value for m in mentions(question)}
    body = _LEVEL.sub(" ", CITATION.sub(" ", sentence))
    return not any(not m.condition and m.value not in asked for m in mentions(body))


def signpost(body: str) -> bool:
    """Does the sentence (its markers removed) only point at passages ("See .", "This is
    stated in passage .", "As shown in  and .")? Every content word must be one of
    ``_SIGNPOST``'s, and it states no value."""
    words = [w for w in content_words(body) if not w.isdigit()]
    return not numbers(body) and set(words) <= _signpost_words()


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
        self.owners = [f"{h.chunk.analysis_id} {h.chunk.doc_id}" for h in sources]

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
        held = set(_CATALOGUE.findall(" ".join([passages] + [self.owners[n - 1] for n in cited])))
        missing_names = [name for name in dict.fromkeys(_CATALOGUE.findall(body)) if name not in held]
        # A sentence its passage states word for word is the passage's own claim, whatever it is stated for.
        verbatim = _verbatim(body) in _verbatim(passages)
        wrong = [] if missing_numbers or verbatim else bind(
            body, f"{question} {title}", [self.bound[n - 1] for n in cited], self.bound)
        worded = overlap >= min_overlap or (entails is not None and entails(body, passages))
        return SentenceSupport(text=body, cited=list(cited), overlap=round(overlap, 4),
                               supported=not missing_numbers and not missing_names and not wrong and worded,
                               missing_numbers=missing_numbers, missing_names=missing_names,
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
        if cited and points_at_value(sentence, question):
            checked.append(SentenceSupport(text=sentence, cited=cited, supported=False, pointer=True))
            continue
        if cited and signpost(body):
            checked.append(SentenceSupport(text=sentence, cited=cited, supported=None, signpost=True))
            continue
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
            elif result is None and numbers(body):  # a number cited nowhere is checked against every passage
                everywhere = range(1, len(sources) + 1)
                result = passages.against(body, everywhere, min_overlap, entails, question, title).model_copy(
                    update={"text": sentence, "cited": [], "supported": False, "uncited": True})
            elif result is not None and result.missing_numbers:  # stated in none of the passages shown?
                everywhere = passages.against(body, range(1, len(sources) + 1), min_overlap, entails, question, title)
                result.absent = bool(everywhere.missing_numbers)
            if result is not None and not result.supported and result.numbers:
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
    if not any(s.recited_from is not None or s.wrong_figure or s.unstated for s in support):
        return None
    kept = []
    for s in support:
        if s.wrong_figure:
            if s.quote is not None:
                kept.append(quoted(s.quote))
        elif s.unstated:
            continue  # a number cited nowhere that no shown passage states: never shown as if checked
        elif s.recited_from is not None:
            kept.append(_cite(s.text, s.cited))
        else:
            kept.append(s.text)
    return " ".join(kept)


def shown_supported(support: Sequence[SentenceSupport]) -> bool:
    """Does the answer as shown hold a supported sentence (a quote in place of a figure counts;
    a sentence that only points at a passage, for its value or for anything, does not)?"""
    return any((s.supported and not (s.pointer or s.signpost)) or s.quote is not None for s in support)
