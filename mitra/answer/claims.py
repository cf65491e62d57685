"""A number in an answer must be the passage's number *for the same quantity*.

``bind`` checks each number a claim states against where its cited passages state it
(``quantities.mentions``): the qualifiers bound there must agree with the claim's.

* **contradicted**: the claim names another value of a class the passage binds
  ("vector" where the passage says 2.05 TeV is the axial-vector mediator's);
* **left out**: the passage binds a specific channel or category (1.6 σ in WW), or a
  value of a class the shown passages use to tell this number from another of its kind
  (expected 5.8 σ beside observed 5.0 σ), and the claim says nothing of it. The question
  and the analysis title count as said: "What is the expected significance?" answered
  "It is 5.8 σ" names "expected".

A passage that states the number in a sentence too broad to bind it ("mediator masses up
to 2.05 TeV" for both mediators) reads as the shown passages' more specific sentences
about the same number do.

``quote`` finds the passage sentence that states the quantity a claim (or a question)
asks for: the member is shown it, number highlighted, in place of a figure that failed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Literal, Sequence

from pydantic import BaseModel

from mitra.answer.qualifiers import CONDITIONS, DATA, DEFAULTS, NOUNS, STRICT, SUBJECTS, qualifiers_of
from mitra.answer.quantities import Mention, mentions
from mitra.core.text import math_to_words, tokenize
from mitra.core.types import Hit


@dataclass(frozen=True)
class PassageText:
    """A passage as the check reads it: its number in the answer, its text and section path."""

    n: int
    text: str
    heading: str = ""

    @property
    def mentions(self) -> tuple[Mention, ...]:
        return mentions(self.text, self.heading)

    @classmethod
    def of(cls, n: int, hit: Hit) -> "PassageText":
        return cls(n, math_to_words(hit.chunk.text), " > ".join(hit.chunk.section))


class NumberCheck(BaseModel):
    """A number of the claim that its passage states for another quantity."""

    written: str  # "2.05 TeV" as the claim writes it
    passage: int  # [n] that states the number
    problem: Literal["contradicted", "left out", "unit"]
    qualifier: str  # the class ("mediator"), or "unit"
    stated_for: list[str]  # what the passage binds ("axial-vector")
    claimed_for: list[str] = []  # what the claim (or its question) says ("vector")

    def explain(self) -> str:
        """In plain words: "[1] states 2.05 TeV for the axial-vector mediator, not the vector mediator"."""
        if self.problem == "unit":
            return f"[{self.passage}] states {self.written.split()[0]} in {_join(self.stated_for)}, not {_join(self.claimed_for)}"
        stated = describe(self.qualifier, self.stated_for)
        if self.problem == "contradicted":
            return f"[{self.passage}] states {self.written} for {stated}, not {describe(self.qualifier, self.claimed_for)}"
        return f"[{self.passage}] states {self.written} for {stated}, which the sentence does not say"


class Quote(BaseModel):
    """A passage's own sentence stating a quantity, the number in it located."""

    passage: int  # [n]
    sentence: str
    number: str  # as the passage writes it, with the unit its list shares ("2.15 TeV" of "2.15 and 2.20 TeV")
    start: int  # of the number in ``sentence``
    end: int
    label: str = ""  # the qualifiers it is stated for, in words ("observed local"), where known
    header: str = ""  # a table row's column headers ("Decay mode | Expected (σ) | Observed (σ)")
    siblings: list["Quote"] = []  # the other values of its sentence or row, told apart by a qualifier


def _join(values: Iterable[str]) -> str:
    values = sorted(values)
    return " and ".join(values) if len(values) < 3 else ", ".join(values[:-1]) + " and " + values[-1]


def describe(cls: str, values: Iterable[str]) -> str:
    """A class value as a sentence says it: "the axial-vector mediator", "the WW channel"."""
    noun = NOUNS.get(cls, "")
    values = list(values)
    if not values:
        return "no " + (noun or cls)
    if cls == "uncertainty" and values == ["central value"]:  # "states 0.053 as the central value", no "uncertainty"
        return "the central value"
    if cls == "channel" and "combined" in values and len(values) > 2:
        return "the combination of " + _join(v for v in values if v != "combined")
    return f"the {_join(values)} {noun}".rstrip() if noun else f"the {_join(values)} value"


# ------------------------------------------------------------------ binding
def _claimed(mention: Mention, context: dict[str, frozenset[str]]) -> dict[str, frozenset[str]]:
    """The claim's qualifiers: its own clause's, then its question's and title's for the rest."""
    out = dict(mention.qualifiers)
    for cls, values in context.items():
        out.setdefault(cls, values)
    return out


def resolved(shown: Sequence[Mention], number: Mention) -> dict[str, frozenset[str]]:
    """What the shown passages bind this value to where a sentence names one value of a class."""
    out: dict[str, set[str]] = {}
    for m in shown:
        if m.restates(number):
            for cls, values in m.qualifiers.items():
                if len(values) == 1:
                    out.setdefault(cls, set()).update(values)
    return {cls: frozenset(v) for cls, v in out.items()}


def narrowed(occurrence: Mention, bound: dict[str, frozenset[str]]) -> dict[str, frozenset[str]]:
    """An occurrence's qualifiers, each class it names several values of narrowed to the one
    the shown passages bind the value to (``resolved``)."""
    out = dict(occurrence.qualifiers)
    for cls, values in out.items():
        if len(values) > 1 and (values & bound.get(cls, frozenset())):
            out[cls] = values & bound[cls]
    return out


def _in_play(cls: str, values: frozenset[str], number: Mention, shown: Sequence[Mention]) -> bool:
    """Do the shown passages state another number of this kind for another value of ``cls``?"""
    return any(m.compatible_kind(number) and not m.same_value(number) and not m.condition
               and m.qualifiers.get(cls) and not (m.qualifiers[cls] & values) for m in shown)


def problem_of(claimed: dict[str, frozenset[str]], stated: dict[str, frozenset[str]], number: Mention,
             shown: Sequence[Mention]) -> tuple[str, str, frozenset[str], frozenset[str]] | None:
    """(problem, class, stated, claimed) for the first class the claim gets wrong, or None."""
    for cls, values in stated.items():
        said = claimed.get(cls, frozenset())
        if said:
            combination = cls == "channel" and ("combined" in said) != ("combined" in values)
            if not (said & values) or (combination and len(values - {"combined"}) != 1):
                return "contradicted", cls, values, said
        elif len(values) == 1 and not values <= DEFAULTS.get(cls, frozenset()) and (
                cls in STRICT or _in_play(cls, values, number, shown)):
            return "left out", cls, values, said
    return None


def _nearest(claim: str, found: list[tuple[int, Mention]]) -> list[tuple[int, Mention]]:
    """The statements of a number the claim is about: those whose sentence shares most of
    its words. A value stated twice, once bound (0.11 syst) and once bare (a table cell, an
    aside), is judged where the claim's words are, not excused by the bare one."""
    words = set(tokenize(claim))
    scores = [len(words & (m.words | set(tokenize(m.sentence)))) for _, m in found]
    return [f for f, score in zip(found, scores) if score == max(scores)]


def bind(claim: str, context: str, cited: Sequence[PassageText], shown: Sequence[PassageText]) -> list[NumberCheck]:
    """The claim's numbers that its cited passages state, but only for other quantities.
    ``context`` is the question (and the analysis title) the claim answers; ``shown`` every
    passage the model read. A number the passages do not state at all is not reported
    here: the presence check (``grounding.numbers``) reports it."""
    wanted = qualifiers_of(context)
    everything = [m for p in shown for m in p.mentions]
    failures: list[NumberCheck] = []
    for number in mentions(claim):
        if number.condition:
            continue
        found = [(p.n, m) for p in cited for m in p.mentions if m.same_value(number)]
        if not found:
            continue
        same_kind = [(n, m) for n, m in found if m.compatible_kind(number)]
        if not same_kind:
            n, m = found[0]
            failures.append(NumberCheck(written=number.written, passage=n, problem="unit", qualifier="unit",
                                        stated_for=[m.unit or "no unit"], claimed_for=[number.unit]))
            continue
        claimed = _claimed(number, wanted)
        bound = resolved(everything, number)
        problems = [(n, problem_of(claimed, narrowed(m, bound), number, everything))
                    for n, m in _nearest(claim, same_kind)]
        if any(p is None for _, p in problems):
            continue
        n, (kind, cls, stated, said) = problems[0]
        failures.append(NumberCheck(written=number.written, passage=n, problem=kind, qualifier=cls,
                                    stated_for=sorted(stated), claimed_for=sorted(said)))
    return failures


# ------------------------------------------------------------------ the passage's own sentence
QUANTITY_KINDS = [  # words of a question -> the kind of number it asks for
    # "σeff", "σ90", "σ_m": a resolution's symbol, not standard deviations
    # "Sigma(1775)", "Sigma+", "Sigma_c": a baryon, not standard deviations
    ("significance", re.compile(r"\bsignifican|\bstandard deviations?\b|\bsigma\b(?!\s*[(+*_^]|[-−0])|σ(?![\w{_])", re.I)),
    ("cross section", re.compile(r"\bcross[- ]sections?\b", re.I)),
    # "How large is the 8 TeV data set …?": its size is its integrated luminosity
    ("luminosity", re.compile(r"\bluminosit|\bhow much\s+(?:\w+\s+)?data\b|"
                              r"\b(?:how (?:large|big) (?:is|was|are|were) the|size of the)\s+"
                              r"(?:(?!(?:in|of|for|on|with|from)\b)[\w.]+\s+){0,3}?data ?(?:sets?|samples?)\b", re.I)),
    ("frequency", re.compile(r"\b(?:oscillation )?frequenc(?:y|ies)\b|\bdelta\s?m_?[sd]\b|Δ\s?m_?[sd]\b", re.I)),
    # "How long does the Higgs boson live?", "the decay time constant": a lifetime
    ("time", re.compile(r"\blifetimes?\b|\bhow long\b[^?]*\blives?\b|\bdecay[- ]times?\b|\btim(?:e|ing) resolution\b",
                        re.I)),
    # "the hit resolution", "how thick": a length (μm), not the energy a resolution is otherwise
    ("length", re.compile(r"\b(?:hit|spatial|position|impact[- ]parameter|vertex) resolution\b|\bthick|\bpitch\b",
                          re.I)),
    ("angle", re.compile(r"\bangles?\b", re.I)),
    # before a mass or width: "How many events fall within the signal half-width?" asks a count
    ("count", re.compile(r"\bhow many\b|\bnumbers? of (?:signal |background )?(?:events|candidates)\b|\byields?\b",
                         re.I)),
    ("energy", re.compile(r"\bmass(?:es)?\b|\bwidths?\b|\benerg(?:y|ies)\b|\bexclud|\bresolution\b|\bGeV\b|\bTeV\b|"
                          r"\bmoment(?:um|a)\b|\bthresholds?\b|\bp_?T\b",
                          re.I)),
    ("percent", re.compile(r"\bper\s?cent|\bpercentage\b|%|\befficienc", re.I)),
]
VALUE_QUESTION = re.compile(
    r"\b(?:how (?:many|much|large|big|small|precise|precisely|heavy|long|high|low|significant|close|far|thick|"
    r"wide|strong|sensitive|stable|fast|frequent|often)|up to what|at what|"
    # "What H→μμ branching fraction …", "What does the global fit predict for the W boson mass?"
    r"(?:what|which)\b(?:\s+\S+){0,12}?\s+(?:[\w-]+-)?(?:values?|levels?|constants?|probabilit(?:y|ies)|mass(?:es)?|"
    r"widths?|significances?|limits?|thresholds?|"
    r"luminosit(?:y|ies)|cross[- ]sections?|lifetimes?|uncertaint(?:y|ies)|yields?|efficienc(?:y|ies)|resolutions?|"
    r"fractions?|ratios?|asymmetr(?:y|ies)|precision|numbers?|energ(?:y|ies)|momentum|momenta|strength|purit(?:y|ies)|"
    r"lengths?|pitch|thickness|size|sensitivit(?:y|ies)|intervals?|bounds?|rates?|factors?|shifts?|scales?|"
    r"power|correlations?|edges?|radius|radii|coefficients?|parameter|angles?|phase(?!-)|differences?|coverage|"
    r"offsets?|biases?|percentages?|exclusions?|slopes?|polari[sz]ations?|chi2|χ2|χ²|chisq|temperatures?|"
    r"\w*pressures?|voltages?|gains?|occupanc(?:y|ies)|distances?|durations?|densit(?:y|ies)|magnitudes?)\b"
    # "How does the cross section compare with the SM (as a ratio)?"
    r"|\bas an? (?:ratio|fraction|percentage)\b"
    # "What lambda_theta is measured …": a symbol asked for
    r"|(?:what|which)\s+[^\W\d_]+_[\w{}]+\s+(?:is|are|was|were|does|do)\b"
    # "What minimum chi2_IP … is required …?": a cut, whatever it is on
    r"|(?:what|which)\s+(?:minimum|maximum|lowest|highest|smallest|largest)\b)",
    re.I)


def answers_asked(asked: dict[str, frozenset[str]], stated: dict[str, frozenset[str]]) -> bool:
    """Is a number so bound an answer to what is asked, not merely compatible with it? It
    names each specific thing asked (a channel, a mediator …), and no specific value of a
    class the question leaves open (an expected limit for "the limit")."""
    for cls, values in asked.items():
        specific = values - DEFAULTS.get(cls, frozenset())
        if cls in SUBJECTS - DATA and specific and not (stated.get(cls, frozenset()) & specific):
            return False
    return not any(cls not in asked and values and not values <= DEFAULTS.get(cls, frozenset()) and len(values) == 1
                   for cls, values in stated.items() if cls not in DATA | CONDITIONS)


def value_question(question: str) -> bool:
    """Does the question ask for a value ("How many …", "What is the expected limit …")?"""
    return bool(VALUE_QUESTION.search(question))


def asked_kind(question: str) -> str:
    """The kind of number a question asks for ("" when it names none)."""
    return next((kind for kind, pattern in QUANTITY_KINDS if pattern.search(question)), "")


# A quoted sentence (with its heading) holds at least this share of the question's words:
# "What observed significance did the previous result report?" is not answered by the
# current result's sentence, which shares only "observed significance".
QUOTE_MIN_SHARE = 0.4


def quote(wanted: str, kind: str, passages: Sequence[PassageText], avoid: Mention | None = None,
          asked: str | None = None) -> Quote | None:
    """The passage sentence that best states the quantity ``wanted`` (a question, or a claim
    with its question) asks for: a number of ``kind`` (any, when "") whose qualifiers the
    wanted text does not contradict or leave out, in a sentence that (with its section
    heading) holds ``min_share`` of the question's words (``asked``; default ``wanted``),
    best by the qualifiers it names, then the words it shares. ``avoid`` (the claim's own
    wrong figure) is never the answer. None rather than a sentence about something else."""
    named_classes = qualifiers_of(wanted)
    words = set(tokenize(wanted))
    question = set(tokenize(asked if asked is not None else wanted))
    everything = [m for p in passages for m in p.mentions]
    best: tuple[tuple[float, ...], int, Mention] | None = None
    for rank, passage in enumerate(passages):
        heading = set(tokenize(passage.heading))
        for m in passage.mentions:
            if m.condition or (kind and m.kind and m.kind != kind) or (kind and not m.kind and not m.unit and
                                                                       kind not in ("count", "")):
                continue
            if avoid is not None and m.same_value(avoid):
                continue
            stated = narrowed(m, resolved(everything, m))
            if problem_of(named_classes, stated, m, everything) is not None or not answers_asked(named_classes, stated):
                continue
            sentence = set(tokenize(m.sentence))
            if question and len(question & (sentence | heading)) < QUOTE_MIN_SHARE * len(question):
                continue
            own, overlap = len(words & m.words), len(words & sentence)
            named = sum(1 for cls, values in named_classes.items() if m.qualifiers.get(cls, frozenset()) & values)
            score = (named, own + overlap, own, bool(m.kind), -rank)
            if best is None or score > best[0]:
                best = (score, passage.n, m)
    if best is None:
        return None
    _, n, m = best
    return Quote(passage=n, sentence=m.sentence, number=m.as_written, start=m.span[0],
                 end=m.span[1])
