"""What a headline value is stated for, where the answer's clause binder (``quantities``) reads a
summary sentence otherwise than its author meant (a comparison's reference, "above the expected
background", and a value bound to both observed and expected, the binder reads itself):

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

from mitra.answer.qualifiers import qualifiers_of
from mitra.answer.quantities import Mention

_BELOW = re.compile(r"(?:<|≤|&lt;)\s*\(?\s*\Z")
_ABOVE = re.compile(r"(?:>|≥|&gt;)\s*\(?\s*\Z")


def qualified(m: Mention) -> Mention:
    """The mention with the qualifiers the module docstring adds."""
    quals = dict(m.qualifiers)
    if m.kind and m.kind != "significance":
        quals.pop("significance", None)  # "local" describes the 5.0 σ of "… local significance of 5.0 σ at 125 GeV"
    if "limit" not in quals:
        before = m.sentence[:m.span[0]]
        if _BELOW.search(before):
            quals["limit"] = frozenset({"upper"})
        elif _ABOVE.search(before):
            quals["limit"] = frozenset({"lower"})
        elif len(limits := qualifiers_of(m.sentence).get("limit", frozenset())) == 1:
            quals["limit"] = limits
    return replace(m, qualifiers=quals)


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
