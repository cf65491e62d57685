"""Questions whose answer sits beside a trap: a passage states two values of one kind for
different qualifiers, the question asks for one, the other is the sibling a model may give.

Found mechanically in the passages of the public papers (the LHCb full texts, the 16
ATLAS/CMS PDFs through the PDF reader, QASPER) by a few fixed sentence shapes, written
here apart from ``mitra.answer.quantities`` so the benchmark does not grade the checker
with its own parser:

* ``observed (expected)``: "The observed (expected) upper limit … is 1.1 (0.9) × 10⁻⁹";
* ``stat/syst``: "… = 0.310 ± 0.030 (stat) ± 0.021 (syst)";
* ``ordinal``: "… = 0.307 ± 0.017 ± 0.023, where the first uncertainty is statistical and
  the second systematic";
* ``observed … expected``: "The observed significance is 5.0 σ, compared with an expected
  5.8 σ";
* ``respectively``: "for the 7 and 8 TeV data … 3.2 σ and 3.8 σ, respectively", with the
  two qualifiers from a closed list (beam energies, years, electron/muon, vector/axial-vector,
  dev/test).

Each shape gives two questions (one per qualifier), each with its right value and its trap.
The claims for the checker alone are templates over the same parts: the true claim, the
sibling value swapped in, the other qualifier swapped in, and the sibling value with the
qualifier left to the question.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Iterator

from mitra.core.text import math_to_words, split_sentences

NUM = r"[-−]?\d+(?:\.\d+)?"
PM = r"\s*(?:±|\+-|\+/-|\\pm)\s*"
UNIT = r"(?:σ|sigma|standard deviations?|%|TeV|GeV|MeV|keV|pb|fb|nb|ps|fs|events)"
_VERB = r"(?:is|are|of|was|were|=|:|at|to be|below|above|reaches|becomes)"

SHAPES: dict[str, re.Pattern] = {
    "observed (expected)": re.compile(
        rf"\b(?P<q1>observed|expected)\s*\(\s*(?P<q2>expected|observed)\s*\)\s+(?P<what>[^.;()]{{3,90}}?)\s+{_VERB}\s+"
        rf"(?:\S+\s+){{0,3}}?(?P<v1>{NUM})\s*(?P<u1>{UNIT})?\s*\(\s*(?P<v2>{NUM})\s*(?P<u2>{UNIT})?\s*\)\s*(?P<u3>{UNIT})?",
        re.I),
    "stat/syst": re.compile(
        rf"(?P<what>[A-Za-z][^.;=]{{3,90}}?)\s+(?:is|are|of|=|was|were|be)\s+(?:\S+\s+){{0,2}}?\(?\s*(?P<v0>{NUM})"
        rf"{PM}(?P<v1>{NUM})\s*\(?\s*stat(?:istical)?\.?\s*\)?{PM}(?P<v2>{NUM})\s*\(?\s*syst(?:ematic)?\.?\s*\)?",
        re.I),
    "ordinal": re.compile(
        rf"(?P<what>[A-Za-z][^.;=]{{3,90}}?)\s+(?:is|are|of|=|was|were|be)\s+(?:\S+\s+){{0,2}}?\(?\s*(?P<v0>{NUM})"
        rf"{PM}(?P<v1>{NUM}){PM}(?P<v2>{NUM})[^.;]{{0,40}}?\bwhere the first (?:uncertainty |error )?is "
        rf"(?:the )?statistical,? and the second (?:is )?(?:the )?systematic", re.I),
    "observed … expected": re.compile(
        rf"\b(?P<q1>observed|expected)\s+(?P<what>[a-z][a-z -]{{2,60}}?)\s+(?:is|of|was|are|were)\s+(?P<v1>{NUM})\s*"
        rf"(?P<u1>{UNIT})[^.;]{{0,80}}?\b(?P<q2>expected|observed)\b[^.;]{{0,50}}?\b(?P<v2>{NUM})\s*(?P<u2>{UNIT})",
        re.I),
    "respectively": re.compile(
        rf"\b(?P<q1>7 TeV|8 TeV|13 TeV|2011|2012|2015|2016|electron|muon|vector|axial-vector|scalar|pseudoscalar|"
        rf"development|dev|test)\s+and\s+(?:the\s+)?(?P<q2>7 TeV|8 TeV|13 TeV|2011|2012|2015|2016|electron|muon|vector|"
        rf"axial-vector|scalar|pseudoscalar|development|dev|test)\b(?P<what>[^.;]{{3,90}}?)\s(?P<v1>{NUM})\s*"
        rf"(?P<u1>{UNIT})?\s*(?:and|,)\s*(?P<v2>{NUM})\s*(?P<u2>{UNIT})?,?\s+respectively", re.I),
}
_UNCERTAINTIES = {"stat/syst": ("statistical", "systematic"), "ordinal": ("statistical", "systematic")}
_LEAD = re.compile(r"^(?:.*[,:;]\s*)?(?:the |a |an |its |our |this )?", re.I)
_TAIL = re.compile(r"\s+(?:is|are|was|were)?\s*(?:found|measured|determined|evaluated|estimated|obtained|set)"
                   r"(?:\s+to(?:\s+be)?)?$|\s+(?:is|are|was|were)$", re.I)


def _value(raw: str) -> Decimal | None:
    try:
        return Decimal(raw.replace("−", "-")).normalize()
    except InvalidOperation:
        return None


def _quantity(what: str) -> str:
    """The words naming the quantity, from what stands before the value."""
    what = _TAIL.sub("", _LEAD.sub("", what.strip())).strip(" ,")
    words = what.split()
    return " ".join(words[-9:])


@dataclass(frozen=True)
class SiblingItem:
    source: str  # "lhcb", "pdf", "qasper"
    analysis_id: str
    chunk_id: str
    sentence: str  # the passage sentence stating both values
    shape: str
    quantity: str  # the words naming the quantity ("upper limit on the branching fraction")
    asked: str  # the qualifier asked for ("expected")
    other: str  # the sibling's qualifier
    right: str  # the value asked for, as written
    trap: str  # the sibling value
    unit: str
    section: str = ""  # the passage's innermost heading: a question about a number of that section says so

    @property
    def question(self) -> str:
        if self.shape in _UNCERTAINTIES:
            asked = f"What is the {self.asked} uncertainty on {self.quantity}"
        elif self.shape == "respectively":
            asked = f"What is the value for {self.asked} of {self.quantity}"
        else:
            asked = f"What is the {self.asked} {self.quantity}"
        return f"{asked} (section “{self.section}”)?" if self.section else f"{asked}?"

    def claim(self, qualifier: str | None, value: str) -> str:
        """"The expected upper limit on … is 0.9 pb." (no qualifier: left to the question)."""
        unit = f" {self.unit}" if self.unit else ""
        if self.shape in _UNCERTAINTIES:
            subject = f"The {qualifier} uncertainty on {self.quantity}" if qualifier else \
                f"The uncertainty on {self.quantity}"
        elif self.shape == "respectively":
            subject = f"For {qualifier}, {self.quantity}" if qualifier else self.quantity[:1].upper() + self.quantity[1:]
        else:
            subject = f"The {qualifier} {self.quantity}" if qualifier else f"The {self.quantity}"
        return f"{subject} is {value}{unit}."

    @property
    def claims(self) -> dict[str, str]:
        return {
            "true": self.claim(self.asked, self.right),
            "value swapped": self.claim(self.asked, self.trap),
            "qualifier swapped": self.claim(self.other, self.right),
            "value swapped, qualifier left to the question": self.claim(None, self.trap),
        }


def find(source: str, analysis_id: str, chunk_id: str, text: str, section: str = "") -> Iterator[SiblingItem]:
    """Every question the shapes find in one passage's text (``section``: its innermost heading)."""
    for sentence in split_sentences(math_to_words(text)):
        if len(sentence) > 600:
            continue
        for shape, pattern in SHAPES.items():
            for m in pattern.finditer(sentence):
                g = m.groupdict()
                q1, q2 = _UNCERTAINTIES.get(shape) or (g["q1"].lower(), g["q2"].lower())
                v1, v2 = _value(g["v1"]), _value(g["v2"])
                if v1 is None or v2 is None or v1 == v2 or q1 == q2:
                    continue
                unit = next((u for u in (g.get("u1"), g.get("u2"), g.get("u3")) if u), "") or ""
                quantity = _quantity(g["what"])
                if len(quantity) < 3:
                    continue
                for asked, other, right, trap in ((q1, q2, g["v1"], g["v2"]), (q2, q1, g["v2"], g["v1"])):
                    yield SiblingItem(source=source, analysis_id=analysis_id, chunk_id=chunk_id, sentence=sentence,
                                      shape=shape, quantity=quantity, asked=asked, other=other, right=right,
                                      trap=trap, unit=unit, section=section)
