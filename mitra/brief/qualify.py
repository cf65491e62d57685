"""What a headline value is stated for, where the answer's clause binder (``quantities``) reads a
summary sentence otherwise than its author meant:

* a reference the value is compared with ("relative to the SM expectation", "above the
  expected background", "the one expected in the SM") is not the value's own measure: it is
  masked before binding, so "expected" there does not make an observed value expected;
* a value bound to both observed and expected ("the SM prediction of 1.39, in agreement with
  the measured …") is the one its nearest measure word names, the one before it first, unless
  the sentence says it is both ("both the expected and observed significances");
* a value whose clause names no measure, in a sentence that names one, takes it from a value of
  its kind the sentence binds to it ("the expected limits are B < 6.5 × 10⁻⁸ and B′ < 1.8 × 10⁻⁸");
* "local" or "global" describes a significance, not the mass it is found at ("a local
  significance of 5.0 σ, at a mass near 125 GeV");
* "B < 1.5 × 10⁻⁸" is an upper limit, "> 2.1" a lower one; a value in a sentence that names one
  kind of limit and leaves the value unbound ("… upper limits are 3.8 (4.4) and 26 (32) times
  the SM") is that limit.
"""

from __future__ import annotations

import re
from dataclasses import replace

from mitra.answer.qualifiers import qualifiers, qualifiers_of
from mitra.answer.quantities import Mention

_REFERENCE = re.compile(
    r"\b(?:relative|normali[sz]ed|compared|with respect)\s+to\s+(?:that of\s+|the\s+|its\s+)?(?:one\s+)?"
    r"(?:expected\s+(?:in|for|from|by)\s+the\s+(?:SM|Standard Model)|(?:SM|Standard Model)\s+(?:expectations?|predictions?))"
    r"|\b(?:above|over|from|than)\s+the\s+expected\s+(?:SM\s+|Standard Model\s+)?background"
    # "the ratio of the observed yield to the one expected in the SM", "… to the Standard Model expectation"
    r"|\bto\s+the\s+(?:one\s+expected\s+(?:in|by)\s+the\s+(?:SM|Standard Model)|(?:SM|Standard Model)\s+expectation)",
    re.I)
_BOTH = re.compile(r"\bboth (?:the )?(?:expected and observed|observed and expected)\b", re.I)
_BELOW = re.compile(r"(?:<|≤|&lt;)\s*\(?\s*\Z")
_ABOVE = re.compile(r"(?:>|≥|&gt;)\s*\(?\s*\Z")


def masked(text: str) -> str:
    """``text`` with the references values are compared with blanked, its length kept."""
    return _REFERENCE.sub(lambda m: " " * len(m.group()), text)


def _nearest_measure(sentence: str, at: int) -> str:
    """The measure the word nearest ``at`` names: the last before it, else the first after it."""
    found = [(start, value) for cls, value, start, _ in qualifiers(masked(sentence)) if cls == "measure"]
    before = [value for start, value in found if start < at]
    return before[-1] if before else next((value for start, value in found), "observed")


def qualified(m: Mention, sentence: str) -> Mention:
    """The mention with the qualifiers the module docstring adds, and its unmasked ``sentence``."""
    quals = dict(m.qualifiers)
    if m.kind and m.kind != "significance":
        quals.pop("significance", None)  # "local" describes the 5.0 σ of "… local significance of 5.0 σ at 125 GeV"
    if {"expected", "observed"} <= quals.get("measure", frozenset()) and not _BOTH.search(sentence):
        quals["measure"] = frozenset({_nearest_measure(sentence, m.span[0])})
    if "limit" not in quals:
        before = sentence[:m.span[0]]
        if _BELOW.search(before):
            quals["limit"] = frozenset({"upper"})
        elif _ABOVE.search(before):
            quals["limit"] = frozenset({"lower"})
        elif len(limits := qualifiers_of(sentence).get("limit", frozenset())) == 1:
            quals["limit"] = limits
    return replace(m, sentence=sentence, qualifiers=quals)


def shared_measure(sentence_mentions: list[Mention]) -> list[Mention]:
    """One sentence's values, each unbound one given the sentence's one measure where a value of
    its kind (unit and power of ten) before it is bound to it: "the expected limits are A and B",
    not "3.2σ, compared to an expected 2.1σ"."""
    named = qualifiers_of(sentence_mentions[0].sentence).get("measure", frozenset()) if sentence_mentions else frozenset()
    if len(named) != 1:
        return sentence_mentions
    out = []
    for m in sentence_mentions:
        earlier = any(o.span[0] < m.span[0] and o.qualifiers.get("measure") == named and (o.unit, o.power) == (m.unit, m.power)
                      for o in sentence_mentions)
        out.append(replace(m, qualifiers={**m.qualifiers, "measure": named}) if "measure" not in m.qualifiers and earlier
                   else m)
    return out
