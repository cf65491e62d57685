"""Which numbers of a summary sentence are headline values: the numbers a result is stated as.

Left out: the settings results are given at (√s = 13 TeV, a collision energy, a year, "for a
Higgs boson mass of 125 GeV", "at 95"), the confidence level of a limit ("90% (95%) CL"), the
bounds of a range ("2.5 < y < 4.0", "115–130 GeV", "1.00-6.00"), an uncertainty (it follows its
value: "126.0 ± 0.4"), the size of the data set or sample (a qualifier of every value, not a
result), a value stated after "previous" or "Ref." or in a sentence about previous measurements
(another measurement's), one computed from others' results, an input ("is assumed"), a
projection ("will be measured"), a selection ("rapidity below 2.5", "for pT > 8 GeV"), the
bounds of an interval ("[0.0061, 2.0]"), a reference or a DOI, a version ("PYTHIA 6.4") and a
bare small integer.
"""

from __future__ import annotations

import re
from decimal import Decimal

from mitra.answer.quantities import Mention

_RANGE = re.compile(r"(?:-?\d[\d.]*)\s*(?:<|≤|<=)\s*[^<>≤\d]{1,25}?\s*(?:<|≤|<=)\s*(?:-?\d[\d.]*)")
# "± 0.4", "+1.5 -1.2" after a number: an uncertainty of the value before it.
_UNCERTAINTY_BEFORE = re.compile(r"(?:±|\+/-|\+-|\\pm|\bpm)\s*\(?\s*\Z|[\d)]\s*[+\-−]\s*\Z")
# "115–130 GeV", "between 5 and 20 GeV/c": the bounds of a range.
_RANGE_BEFORE = re.compile(r"\d\s*[–—]\s*\(?\Z|\bbetween\s+\Z|\b(?:between|from)\s+[\d.]+\s*\S{0,8}\s+(?:and|to)\s+\Z")
_RANGE_AFTER = re.compile(r"\s*[–—]\s*\d|-\d|\s+-\s+\d")  # "115–130", "1.00-6.00", "20 - 40"
# "in the range from 2 to 15 GeV/c": the lower bound (the upper one is _RANGE_BEFORE's)
_FROM_BEFORE = re.compile(r"\bfrom\s+\Z", re.I)  # "between 5 and …" is _RANGE_BEFORE's
_TO_AFTER = re.compile(r"\s*(?:[^\s\d]{1,8}\s*)?(?:to|and)\s+\d")
_INTERVAL = re.compile(r"\[[^\[\];]*;[^\[\]]*\]|\[\s*-?\d*\.\d+\s*,\s*-?\d+(?:\.\d+)?\s*\]")  # "[0;14]", "[0.0061, 2.0]"
# "for a Higgs boson mass of 125.09 GeV": the point a result is given at
_SETTING = re.compile(r"\b(?:for|assuming)\s+(?:an?\s+|the\s+)?(?:\S+\s){0,6}(?:mass|energy)\s+(?:of\s+|near\s+)?\Z", re.I)
_NAMED = re.compile(r"\b[A-Z][A-Za-z]*[A-Z]\s*\Z")  # "PYTHIA 6.4", "CTEQ 6.6": a version, part of a name
LONGEST = 400  # characters: a longer "sentence" is text run together (a figure's axis labels), not a statement
# "95% CL", "90% (95%) CL", "at 5% and 32% confidence level"
_CL_AFTER = re.compile(r"\s*\)?\s*(?:(?:\(\s*[\d.]+\s*%?\s*\)|(?:and|,)\s*[\d.]+\s*%)\s*)*(?:CL|C\.\s?L\.|CLs|confiden|credib)",
                       re.I)
_SAMPLE = re.compile(r"\bsample of\s+(?:about\s+|approximately\s+|some\s+)?\Z", re.I)
# "the previous best measurement of dms = 17.77", "the results of Ref. yield 13.0": another measurement's value
_OTHERS = re.compile(r"\b(?:(?:previous|earlier)\s+(?:best\s+)?(?:measurements?|results?|determinations?)\s+"
                     r"(?:of|from|by|at|gave)|Refs?\.\s*(?:yields?|gives?|gave))\b[^.;]{0,80}\Z", re.I)
# "Previous measurements from WA11 … gave 1.4 ± 0.6, and from HERA-B … 1.75": every value after it is others'
_OTHERS_SENTENCE = re.compile(r"^\W*(?:the\s+)?(?:previous|earlier)\s+(?:best\s+)?(?:measurements?|results?|"
                              r"determinations?)\b", re.I)
# "… masses, 3871.79 ± 0.29 MeV, computed from the results of Ref.": a number derived from others' results
_DERIVED_AFTER = re.compile(r"[^;]{0,30}?\b(?:computed|calculated)\s+from\s+(?:the\s+)?(?:results|measurements|values)",
                            re.I)
_LEVEL_AT_END = re.compile(r"\bat\s+(?:the\s+)?\Z", re.I)  # "… are set at the 95" (its "% CL" split off)
_COLLISION_ENERGIES = frozenset(Decimal(v).normalize() for v in ("0.2", "0.9", "1.8", "1.96", "2.76", "5.02", "7", "8",
                                                                 "13", "13.6", "14"))
_COLLISIONS = re.compile(r"centre-of-mass|center-of-mass|collision|√s|sqrt|\bs\s*=|\benergy\b", re.I)
_AT = re.compile(r"\bat\s+\Z")
# "for a Higgs boson with absolute rapidity below 2.5", "pT less than 0.2 GeV", "mass mℓℓ < 30 GeV": a selection
_CUT = re.compile(r"\b(?:rapidity|pseudorapidity|momentum|p\s?T)\s+(?:\S+\s+)?(?:below|above|less than|greater than|"
                  r"down to|up to|of at least)\s+\Z|\bmass\s+\S{1,8}\s*[<>]\s*\Z", re.I)
# "luminosities of up to 5.1, 19.7, and 35.9 fb−1": each of the list is a data set's size
_LISTED_DATA = re.compile(r"(?:\s*,\s*[\d.]+)*\s*,?\s*(?:and|or)\s+[\d.]+\s*(?:fb|pb|nb|µb|mb)\s*(?:-|−|\^)")
_INPUT_AFTER = re.compile(r"[^;]{0,30}?\b(?:is|are|was|were)\s+(?:assumed|taken|fixed|used)\b")  # an input
# "taking …", "for pT > 8 GeV", "with a mass of 125 GeV and mℓℓ < 30 GeV": an input or a selection
_INPUT_BEFORE = re.compile(r"\b(?:taking|assuming|such as)\b[^,;]{0,80}\Z"
                           r"|\b(?:for|with)\s[^,;]{0,80}?[<>≤≥]\s*(?:[A-Za-z]+\s+)?\Z", re.I)
_FUTURE = re.compile(r"\bwill\s+be\b", re.I)  # a projection, not a result
_DOI = re.compile(r"doi:\S*\Z", re.I)
_VERSION = re.compile(r"\s[A-Z][A-Za-z]+\s*\Z")  # "the Pythia 6.4 generator": a version, part of a name
_REFERENCE = re.compile(r"\[[\d\s,;–-]*\Z")
_DATA_SET = frozenset({"luminosity"})


def _spans(pattern: re.Pattern, sentence: str) -> list[tuple[int, int]]:
    return [m.span() for m in pattern.finditer(sentence)]


def is_headline(m: Mention) -> bool:
    """Is this number a result the sentence states (module docstring)?"""
    s, (start, end) = m.sentence, m.span
    before = s[:start]
    if m.condition or m.kind in _DATA_SET or _REFERENCE.search(before) or _SETTING.search(before):
        return False
    if _SAMPLE.search(before) or _OTHERS.search(before) or _OTHERS_SENTENCE.match(before) or (_LEVEL_AT_END.search(before) and not s[end:].strip(" .")):
        return False
    if m.unit == "TeV" and m.value in _COLLISION_ENERGIES and (_COLLISIONS.search(s) or _AT.search(before)):
        return False
    if _CUT.search(before) or _DOI.search(before) or _FUTURE.search(before) or _INPUT_AFTER.match(s, end) \
            or _DERIVED_AFTER.match(s, end) \
            or _INPUT_BEFORE.search(before):
        return False
    if not m.unit and (_LISTED_DATA.match(s, end) or ("." in m.written and _VERSION.search(before))):
        return False
    if m.unit == "%" and _CL_AFTER.match(s, end):
        return False
    if any(a <= start < b for a, b in _spans(_RANGE, s)) or _RANGE_BEFORE.search(before):
        return False
    if _FROM_BEFORE.search(before) and _TO_AFTER.match(s, m.span[0] + len(m.written.split()[0])):
        return False
    if _RANGE_AFTER.match(s, m.span[0] + len(m.written.split()[0])):
        return False
    if any(a <= start < b for a, b in _spans(_INTERVAL, s)):
        return False
    if (not m.unit and _NAMED.search(before)) or len(re.findall(r"\d+", m.written)) > 3:
        return False
    if " | " in s or len(s) > LONGEST:
        return False  # a table row, or text run together: tables are results, not the headline statements
    if _UNCERTAINTY_BEFORE.search(before):
        return False
    if "uncertainty" in m.qualifiers and m.qualifiers["uncertainty"] - {"central value"} and not m.unit:
        return False  # "0.4 (stat)": an uncertainty written after its value
    bare = not m.unit and m.power is None and "." not in m.written and m.value == m.value.to_integral_value()
    return not (bare and m.value < 10)
