"""The question, read once at the answer's entry: what it asks, for which quantity, under
which qualifiers, in which unit, and whether it asks several things.

Every later stage takes this record (the value candidates, what is shown first, the
choice prompt, the check) instead of tokenizing the question and guessing again whether
it asks for a value.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property

from mitra.answer.claims import QUANTITY_KINDS, asked_kind, value_question
from mitra.answer.figures import Figure, figures, unit_at
from mitra.answer.multipart import coordinated, looks_multipart
from mitra.answer.qualifiers import TAKEN_IN, qualifiers, qualifiers_of
from mitra.core.text import math_to_words, tokenize

# "in GeV", "in %", "(in fb)": the unit the member wants the value in.
_IN_UNIT = re.compile(r"\bin\s+(?=\S)", re.I)
_LAST_WORDS = re.compile(r"(?:\S+\s+){1,3}\Z")  # the three words before a number
_OF_WHAT = re.compile(r"\s+of\s+[^?,.;()]{1,40}")  # "15 MeV of the known Λc+ mass": what a number is reckoned from
_WORD = re.compile(r"[^\W\d_]+")
_COMPOUND = re.compile(r"(?<![\w-])([^\W\d_]{2,})-([^\W\d_]{2,})(?![\w-])")
_SMALL = frozenset("at of the in on for and to a an by with".split())
# A spin-parity ("the (3/2−, 5/2+) model", "J^P = 1/2+") names states, not a setting of the value.
_SPIN_PARITY = re.compile(r"\d/2\s?[-+−]")
_AGAINST_PREDICTION = re.compile(r"\b(?:from|with|to|than)\s+(?:the\s+)?(?:SM\s+|Standard\s+Model\s+|theory\s+|"
                                 r"theoretical\s+)?(?:predictions?|expectations?)\b", re.I)
# "(not including the PID asymmetry)", "excluding the luminosity": what the quantity is not.
_LEFT_OUT = re.compile(r"\b(?:not\s+(?:including|counting)|excluding|other\s+than|apart\s+from|except(?:\s+for)?)"
                       r"\s+[^,;:()?]{1,50}", re.I)
_SPREAD = re.compile(r"\buncertaint|\berrors?\b|\bprecis", re.I)
# Words about the asking or about numbers in general: they name no quantity.
_ASKING = frozenset(tokenize(
    "what which how many much large big small precise precisely is are was were the a an of for in on at by to "
    "value values number numbers quoted stated reported measured obtained found given paper note analysis "
    "analyses result results does do did give find quote report state determine obtain"))


@dataclass(frozen=True)
class Asked:
    """A question as every stage of the answer reads it."""

    text: str
    title: str = ""  # the locked analysis's title: it names what the question leaves open
    value: bool = False  # asks for a value ("How many …", "What is the expected limit …")
    kind: str = ""  # the kind of number asked for ("significance", "energy" …; "" when it names none)
    spread: bool = False  # asks for an uncertainty ("How precise …", "the systematic uncertainty on μ")
    unit: str = ""  # the unit the question names ("in GeV"), canonical
    qualifiers: dict[str, frozenset[str]] = field(default_factory=dict)  # the question's own
    context: dict[str, frozenset[str]] = field(default_factory=dict)  # the question's, then the title's
    words: tuple[str, ...] = ()  # BM25 tokens
    quantity: frozenset[str] = frozenset()  # the tokens naming the quantity: no asking, qualifier or title words
    multipart: bool = False
    stated: tuple[Figure, ...] = ()  # the numbers the question states ("at ET ∼ 15 GeV", "the 8 TeV data")
    # The acronyms its words may be written as, with the words: "hwhm" for "half-width at
    # half-maximum", "jes" for "jet energy scale" (a table row names them so).
    acronyms: dict[str, frozenset[str]] = field(default_factory=dict)

    @classmethod
    def read(cls, question: str, title: str = "", title_names_analysis: bool = True) -> "Asked":
        text = math_to_words(question)
        words = tuple(tokenize(text))
        # The title's words say which analysis, not which of its quantities ("… in the dark matter
        # search"), unless the question is put to several analyses.
        other = _named_otherwise(text)
        if title_names_analysis:
            other |= set(tokenize(title))
        # "the deviation from the SM prediction" asks for what is observed against it
        own = qualifiers_of(_AGAINST_PREDICTION.sub(" ", text))
        return cls(
            text=question, title=title, value=value_question(question), kind=asked_kind(_without_figures(text)),
            spread=bool(_SPREAD.search(TAKEN_IN.sub(" ", text))), unit=_unit(text), qualifiers=own,
            # the title fills only the classes the question leaves open: "combining Run 1 and Run 2" under
            # a title naming the γγ and 4ℓ channels asks for the combination, not for a channel of it
            context={**qualifiers_of(title), **own},
            words=words, quantity=frozenset(w for w in words if w not in _ASKING and w not in other),
            multipart=looks_multipart(question) or len(coordinated(question)) > 1,
            stated=tuple(f for f in figures(text) if not _SPIN_PARITY.match(text, f.start)),
            acronyms=_acronyms(text))

    @cached_property
    def word_set(self) -> frozenset[str]:
        return frozenset(self.words)

    @cached_property
    def title_words(self) -> frozenset[str]:
        """Its words that would name the quantity but the title names too ("kstar" of "R_K*" in a
        paper on R_K and R_K*): left out of ``quantity``, they still tell apart values that differ
        by them."""
        return (self.word_set & frozenset(tokenize(self.title))) - _ASKING - self.quantity \
            - _named_otherwise(math_to_words(self.text))

    @cached_property
    def beyond_title(self) -> dict[str, frozenset[str]]:
        """Its own qualifiers less those the analysis's title names: "the VH(bb) signal strength"
        of the VH(bb) observation names the analysis, which a row of its uncertainty table need
        not repeat."""
        titled = qualifiers_of(self.title)
        return {cls: values - titled.get(cls, frozenset()) for cls, values in self.qualifiers.items()}

    @cached_property
    def phrases(self) -> frozenset[tuple[str, str]]:
        """Its adjacent pairs of content words ("momentum resolution"), but those whose two words
        the title names (every passage of the analysis writes those)."""
        title = frozenset(tokenize(self.title))
        content = [w for w in self.words if w in self.content]
        return frozenset((a, b) for a, b in zip(content, content[1:]) if a != b and not (a in title and b in title))

    @cached_property
    def content(self) -> frozenset[str]:
        """Its words that name something (a quantity, a qualifier, a channel): no asking words."""
        return frozenset(self.words) - _ASKING


def _named_otherwise(text: str) -> set[str]:
    """The question's words that name no quantity: its qualifiers' and what it leaves out."""
    return ({t for _, _, start, end in qualifiers(text) for t in tokenize(text[start:end])}
            | {t for m in _LEFT_OUT.finditer(text) for t in tokenize(m.group())})


def _without_figures(text: str) -> str:
    """The question without the numbers it states, each with the words just before it that
    name its kind, and the words after it that name what it is reckoned from: "How much 13 TeV
    data …" names the data set's energy, "… for electrons with a transverse energy around 1 TeV"
    the electrons', and "within 15 MeV of the known Λc+ mass" the signal region's: none is an
    energy asked for."""
    for figure in reversed(figures(text)):
        start, end = figure.start, figure.end
        before = text[:figure.start]
        words = _LAST_WORDS.search(before)
        if figure.kind and words:
            named = [m for kind, pattern in QUANTITY_KINDS if kind == figure.kind
                     for m in pattern.finditer(before, words.start())]
            start = min((m.start() for m in named), default=start)
        if figure.kind and (tail := _OF_WHAT.match(text, end)):
            named = [m for kind, pattern in QUANTITY_KINDS if kind == figure.kind
                     for m in pattern.finditer(text, tail.start(), tail.end())]
            end = max((m.end() for m in named), default=end)
        text = text[:start] + text[end:]
    return text


def _acronyms(text: str) -> dict[str, frozenset[str]]:
    """The initials of each run of three to six of the question's words that could be an
    acronym, and of each two-word compound ("wrong-sign": "WS"): small words such as "at" and
    "of" left out, words about the asking ("how large", "measured") ending the run."""
    runs: list[list[str]] = [[]]
    for word in _WORD.findall(text):
        if word.lower() in _SMALL:
            continue
        tokens = set(tokenize(word))
        if not tokens or tokens & _ASKING or not word.isascii():
            runs.append([])
        else:
            runs[-1].append(word)
    out: dict[str, frozenset[str]] = {}
    for words in runs:
        for i in range(len(words)):
            for n in range(3, min(6, len(words) - i) + 1):
                run = words[i:i + n]
                out["".join(w[0] for w in run).lower()] = frozenset(tokenize(" ".join(run)))
    for first, second in _COMPOUND.findall(text):  # "wrong-sign": "WS"
        out.setdefault((first[0] + second[0]).lower(), frozenset(tokenize(f"{first} {second}")))
    return out


def _unit(text: str) -> str:
    for match in _IN_UNIT.finditer(text):
        found = unit_at(text, match.end())
        if found:
            return found[0]
    return ""
