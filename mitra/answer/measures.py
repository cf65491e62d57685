"""Which measure, observed or expected, a number is stated for, where its sentence names
both (``quantities``' binder): a measure word in a comparison's reference ("above the
expected background") is not the value's, and a number left with both takes its nearest
one's, unless the sentence says both of it.
"""

from __future__ import annotations

import re

from mitra.answer.figures import Figure

# A comparison's reference ("above the expected background", "relative to the SM expectation",
# "than expected from the background", "to the one expected in the SM"): a measure word up to
# three words after a word that opens one names what a value is compared with, not the value …
_COMPARED = re.compile(r"\b(?:above|over|below|beyond|than|against|versus|vs\.|to|with)\s+(?:[^\s,;:]+\s+){0,3}\Z",
                       re.I)
# … unless the value follows as the reference's own: "compared with expected exclusions of
# 2.15", "with the SM prediction of τ = 1.390", "compared with the expected 5.8 σ", not
# "above the expected background, with a local significance of 5.0 σ".
_WORD = r"\s+(?!(?:with|where|which|is|are|was|were|and|or|but)\b)[^\s,;:()]+"
_OWN = re.compile(rf"\s*|{_WORD}\s*|(?:{_WORD}){{0,3}}\s+of(?:\s+[^\s,;:()=]+\s?=)?"
                  r"(?:\s+(?:about|around|approximately|only))?\s*", re.I)
# "both the expected and observed limits are 2.1 TeV": one value stated for both.
_BOTH = re.compile(r"\b(?:both (?:the )?)?(?P<first>expected|observed) and (?:expected|observed)\b", re.I)
_MEASURES = {"observed", "expected"}


def compared_with(text: str, start: int, end: int, raw: Figure) -> bool:
    """Does the measure word at text[start:end] name a comparison's reference (``_COMPARED``)
    that ``raw`` is not the value of: one before it that does not run into it (``_OWN``), one
    after it opened after it ("3.2 σ over the expected background", not "compared with 5.8 σ
    expected")?"""
    opened = _COMPARED.search(text, 0, start)
    if opened is None:
        return False
    if start >= raw.end:
        return opened.start() >= raw.end
    return not _OWN.fullmatch(text, end, raw.start)


def one_measure(text: str, raws: list[Figure], quals, bound: list[dict[str, set[str]]]) -> None:
    """A number bound to both observed and expected is the one its nearest measure word names
    (the last before it, else the first after it), unless the sentence says both of it ("both
    the expected and observed limits are 2.1 TeV"); two such of one kind after "observed and
    expected" are the pair, in that order."""
    bothered = [i for i, own in enumerate(bound) if _MEASURES <= own.get("measure", set())]
    coordinated = _BOTH.search(text)
    if coordinated:
        if len(bothered) == 2 and raws[bothered[0]].kind == raws[bothered[1]].kind:
            first = coordinated.group("first").lower()
            for i, value in zip(bothered, (first, *(_MEASURES - {first}))):
                bound[i]["measure"] = {value}
        return
    for i in bothered:
        found = [(start, value) for cls, value, start, end in quals
                 if cls == "measure" and not compared_with(text, start, end, raws[i])]
        before = [value for start, value in found if start < raws[i].start]
        after = [value for start, value in found if start >= raws[i].end]
        bound[i]["measure"] = set(before[-1:] or after[:1])
