"""Numbers as a text writes them: the value, a power of ten, the unit and its kind.

"5.0 (5.8) σ", "2.15 and 2.20 TeV", "5.0 ± 0.3 GeV" give each number the unit written
once after them; "(1.2 ± 0.3) × 10⁻⁵" is two values, not four; "B0", "SMP-24-002",
"10.1103", "Fig. 10", "Eq. (4)", "Section 5.1", "Ref. [12]", "p. 4" and "Run 2" are names,
not values (``names``); a year ("Planck 2018", "in 2016") is a value only of the data it
names (``is_year``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from decimal import Decimal, InvalidOperation

UNITS: list[tuple[str, str, str, Decimal]] = [  # unit, kind, pattern, factor to the kind's base
    ("fb-1", "luminosity", r"fb\s?(?:\^\{?)?[-−–]\s?1\}?|fb\s?⁻¹|/fb\b|inverse femtobarns?|fbinv\b|invfb\b", Decimal(1)),
    ("pb-1", "luminosity", r"pb\s?(?:\^\{?)?[-−–]\s?1\}?|pb\s?⁻¹|/pb\b|inverse picobarns?|pbinv\b|invpb\b", Decimal("0.001")),
    ("nb-1", "luminosity", r"nb\s?(?:\^\{?)?[-−–]\s?1\}?|nb\s?⁻¹|/nb\b|inverse nanobarns?|nbinv\b|invnb\b", Decimal("0.000001")),
    ("TeV", "energy", r"TeV(?:/c2?)?", Decimal(1000)),
    ("GeV", "energy", r"GeV(?:/c2?)?", Decimal(1)),
    ("MeV", "energy", r"MeV(?:/c2?)?", Decimal("0.001")),
    ("keV", "energy", r"keV(?:/c2?)?", Decimal("0.000001")),
    ("σ", "significance", r"σ|sigma\b|\\sigma\b|standard deviations?|s\.\s?d\.", Decimal(1)),
    ("%", "percent", r"%|\\%|per\s?cent\b", Decimal(1)),
    ("fb", "cross section", r"fb\b", Decimal(1)),
    ("pb", "cross section", r"pb\b", Decimal(1000)),
    ("nb", "cross section", r"nb\b", Decimal(1000000)),
    ("μb", "cross section", r"[μµ]b\b|mu\s?b\b", Decimal(10) ** 9),  # "288 ± 48 mu b": LaTeX's \mu b flattened
    ("mb", "cross section", r"mb\b", Decimal(10) ** 12),
    ("ps-1", "frequency", r"ps\s?(?:\^\{?)?[-−–]\s?1\}?|ps\s?⁻¹|/ps\b|invps\b|inverse picoseconds?", Decimal(1)),
    ("ps", "time", r"ps\b", Decimal(1)),
    ("fs", "time", r"fs\b", Decimal("0.001")),
    ("ns", "time", r"ns\b", Decimal(1000)),
    ("μm", "length", r"[μµ]m\b|mum\b|microns?\b", Decimal(1)),  # "52.6mum": LaTeX's \mum flattened
    ("mm", "length", r"mm\b", Decimal(1000)),
    ("cm", "length", r"cm\b", Decimal(10000)),
    ("°", "angle", r"°|circ\b|degrees?\b", Decimal(1)),  # "0.35circ": LaTeX's ^\circ flattened
    ("mrad", "angle", r"mrad\b", Decimal("0.0572957795")),
    ("events", "count", r"(?:signal |background |selected |candidate )?(?:events?|candidates?)\b", Decimal(1)),
]
_UNIT = re.compile("|".join(f"(?P<u{i}>{p})" for i, (_, _, p, _) in enumerate(UNITS)), re.I)
# Seconds, read only after a power of ten ("τH = 1.6 × 10-22 s"): a bare "0 s" is as often
# LHCb's "B 0 s" flattened from its macro.
_SECONDS = re.compile(r"\s?s\b(?![-−–]?\s?1\b)")
_FACTORS = {unit: factor for unit, _, _, factor in UNITS} | {"s": Decimal(10) ** 12}
# A number as written: not part of a name (B0, SMP-24-002, 10.1103, X(3872)), thousands grouped by
# a (thin) space or a comma ("20,934", not the interval "[10,100]"), optionally times a power of
# ten (×, ·, \times, \cdot); a range's end glued to its start by a hyphen is one ("0.1-1.1 GeV2").
_NUMBER = re.compile(  # "1600\pm160": maths kept for KaTeX glues the uncertainty to its command
    r"(?:(?<=\\pm)|(?<=\d-)|(?<![\w.\-/]))(?<![\w*]\()(?P<sign>[-−]\s?)?(?:(?<=\\pm)|(?<![\w.]))"
    r"(?P<num>\d{1,3}(?:[ \u2009\u202f]\d{3})+(?![\d.])|(?<!\[)[1-9]\d{0,2}(?:,\d{3})+(?![\d.]|,\d)|\d+(?:\.\d+)?)"
    r"(?P<exp>\s?(?:[eE](?=[-−+]?\d)|(?:[x×*·]|\\times|\\cdot)\s?10\s?(?:\^|\*\*)?\s?\{?)\s?(?P<power>[-−–+]?\d+)\}?)?"
)
# A letter right after the digits makes a name ("2S", "B0s") unless it starts a unit or a tag ("0.012stat"),
# or LaTeX's \unit{mb} flattened onto it ("52.7 +- 1.2unit mb").
_NAME_AFTER = re.compile(r"[^\W\d_](?<!σ)(?!tat|yst|heo|nit\b)", re.I)
PLUS_MINUS = re.compile(r"\s*\)?\s*(?:±|\+-|\+/-|\\pm)\s*\(?\s*")
# An asymmetric uncertainty: "+0.40" after its value, then "-0.39" ("^{+0.40}_{-0.39}" too);
# not "3 + 4": the sign sits against one of its numbers.
_UP = re.compile(r"\s*(?:\([a-z.]+\)\s*)?(?:\^\s?\{?)?\+|\+\s")  # after "(stat)" too
_DOWN = re.compile(r"\s*(?:\([a-z.]+\)\s*)?\}?\s*(?:_\s?\{?)?[-−–]\s?")  # after "(stat)" too
# The same, as a PDF's text layer glues its scripts onto the value: "1.16-0.25+0.27" (the
# subscript first) or "1.16+0.27-0.25"; the minus glued between digits is no range here.
_GLUED = re.compile(r"(?<![\w.])(?P<c>\d+(?:\.\d+)?)(?:[-−–](?P<d1>\d+(?:\.\d+)?)\+(?P<u1>\d+(?:\.\d+)?)"
                    r"|\+(?P<u2>\d+(?:\.\d+)?)[-−–](?P<d2>\d+(?:\.\d+)?))(?!\w|\.\d)")
# "5.0 ± 0.3 and 5.8 GeV", "27396 ± 207 signal and 7075 ± 101 background candidates": one unit
_SAME_UNIT = re.compile(r"\s*\)?\s*(?:\(|,|and|or|to|[-–+]|±|\+-|\+/-|\\pm|(?:signal|background)\s+and)?\s*\(?\s*")
# A bracket closing after a number, or after its uncertainties: "(5.8)", "(7 500 ± 100)"
_CLOSED = re.compile(r"(?:\s*(?:±|\+-|\+/-|\\pm)\s*[\d.]+)*\s*\)")
# "8.8 < m(μμ) < 11.0 GeV/c2": a range's lower end is written without its unit
RANGE = re.compile(r"\s*(?:<=?|≤)\s*[^<>≤≥]{1,20}?\s*(?:<=?|≤)\s*")
_RESTATED = re.compile(r"\s*(?:\([a-z.]+\)\s*)?=\s*")
_TAGGED_PLUS_MINUS = re.compile(r"\s*\(\s?[a-z.]+\s?\)\s*(?:±|\+-|\+/-|\\pm)\s*\(?\s*")  # "± 0.18 (stat.) ± 0.04"
# "(1.2 ± 0.3) × 10^-5": the 10 and its power are how the value is written, not values.
_POWER_OF_TEN = re.compile(r"10\s?(?:\^|\*\*)?\s?\{?\s?(?P<exponent>[-−–+]?\d+)\}?")
_TIMES = re.compile(r"(?:[x×*·]|\\times|\\cdot)\s?\Z")
# A power of ten written alone: "10^5", "10^{-3}", or its exponent flattened onto it: "10-2"
# (one digit: "10-20" is a range).
_BARE_POWER = re.compile(r"10[-−](\d)(?!\.?\d)|10\s?(?:\^|\*\*)\s?\{?\s?([-−–+]?\d+)\}?")
# Numbers that name a thing, not a value: a figure, table, equation, section, reference, page
# or run ("Fig. 10", "Figs. 3 and 4(b)", "Eq. (4)", "Section 5.1", "Ref. [12]", "p. 4", "Run 2"),
# and a catalogue number ("SMP-24-002", "CMS-HIG-12-028", "arXiv:1207.7235").
_ONE = r"\d+(?:\.\d+)*[a-z]?(?:\([a-z]\))?"  # "5.1", "3a", "4(b)"
_BRACKETED = r"\(\d+(?:\.\d+)*[a-z]?\)|\[\d+(?:\s?[-–,]\s?\d+)*\]"  # "(4)", "[12]", "[12, 13]"
_LABEL = rf"(?:{_ONE}|{_BRACKETED})"
_SINGULAR = (r"fig(?:ure)?|tab(?:le)?|eq(?:uation)?|sec(?:t|tion)?|ref(?:erence)?|chap(?:ter)?|app(?:endix)?|page|"
             r"run|p(?=\.)")
_PLURAL = (r"figs|figures|tabs|tables|eqs|equations|secs|sects|sections|refs|references|chaps|chapters|pages|runs|"
           r"pp(?=\.)")
_REFERENCE = re.compile(  # "Figs. 3 and 4" lists labels; "Fig. 3 and 65% of events" does not
    rf"(?:\b(?:{_PLURAL})\.?|§§)[\s\u00a0]?{_LABEL}(?:\s?(?:[-–,&]|and|to)\s?{_LABEL})*"
    rf"|(?:\b(?:{_SINGULAR})\.?|§)[\s\u00a0]?{_LABEL}"
    rf"(?:\s?[-–]\s?{_ONE}|\s?(?:[-–,&]|and|to)\s?(?:{_BRACKETED}))*", re.I)
_CODE = re.compile(r"\b[^\W\d_][\w.]*(?:[-:/][\w.]+)*[-:/]\d[\w.]*(?:[-:/][\w.]+)*")
_PRIMED = re.compile(r"(?<=\w)['′]\s?\^?\{?\d")  # x'2, x' 2, x'^2: a primed symbol's script
_SCRIPT = re.compile(r"(?<=[^\W\d_])\s?\^\s?\{?\d")  # q^2, q^{2}, p_T^2: a symbol's power
_CHI_SQUARED = re.compile(r"(?<=χ)\s?2(?![\d.])")  # "χ 2 -requirement", "χ 2 /N": χ², as a text layer flattens it
# A neutral state's superscript after its mass or star: "ρ(770) 0", "K*(892)0", "K*0", as LaTeX flattens
# "\rho(770)^0" (the demo model copied that 0 for a mixing parameter), and a decaying state's before
# its arrow ("(D1(2420) 0 -> D*- pi+)", of which a claim may begin at the 0).
_NEUTRAL = re.compile(r"(?:(?<=\(\d{3}\))|(?<=\(\d{4}\))|(?<=[^\W\d_]\*))\s?\^?\{?0(?![\d.])"
                      r"|(?<![\d.])0(?=\s?(?:->|→))")
# A one-letter symbol's index, its script flattened apart: "C 9", "C NP 9" (C₉^NP), "X 0", "C 4 F 10";
# of 66 such candidates of the development questions, none was the value asked.
_INDEX = re.compile(r"(?<![\w.])[A-Z]\s(?:[A-Z]{2,3}\s)?\d{1,2}(?![\d.])")
# A unit's power flattened onto it: "GeV 2 /c4" (GeV^2/c^4), "MeV/c 2".
_UNIT_POWER = re.compile(r"(?:(?<=eV)\s?\^?[2-4](?=\s?/)|(?<=/c)\s?\^?[2-4](?![\d.]))")
# A year written alone: a name or a date ("Planck 2018", "in 2016", "2015-2018"), not a value.
YEAR = re.compile(r"(?:19[89]\d|20[0-4]\d)")  # a year written alone: 1980–2049


def _decimal(raw: str) -> Decimal | None:
    try:
        return Decimal(re.sub(r"[ ,\u2009\u202f]", "", raw)).normalize()
    except InvalidOperation:
        return None


@dataclass
class Figure:
    """A number found in a text: where it is, its value and its unit."""

    start: int
    end: int  # after its unit
    num_end: int
    value: Decimal
    power: int | None
    unit: str = ""
    kind: str = ""
    unit_written: str = ""  # the unit as written ("standard deviations"), after it or after its list's last number
    paren: bool = False  # "5.8" in "5.0 (5.8) σ"
    central: bool = False  # "2.73" in "2.73 ± 0.06 ± 0.16": the value its uncertainties follow
    spread: bool = False  # "0.06" there, and "0.40", "0.39" in "1.19 +0.40 -0.39": an uncertainty
    sign: str = ""  # "−" of "phis = −0.019": outside ``start``, so gaps between numbers read as before

    @property
    def year(self) -> bool:
        """A year written alone ("2016"), not a value."""
        return not self.unit and self.power is None and bool(YEAR.fullmatch(str(self.value)))


def base_value(value: Decimal, unit: str) -> Decimal:
    """The value in its kind's base unit (GeV, fb, ps …): 2.05 TeV is 2050 GeV."""
    return value * _FACTORS.get(unit, Decimal(1))


def unit_at(text: str, pos: int) -> tuple[str, str, int] | None:
    match = _UNIT.match(text, pos + len(text[pos:]) - len(text[pos:].lstrip(" \u2009\u202f")))
    if not match:
        return None
    index = int(match.lastgroup[1:])
    unit, kind, _, _ = UNITS[index]
    return unit, kind, match.end()


def names(text: str) -> list[tuple[int, int]]:
    """The spans of ``text`` whose digits name a thing: a figure, table, equation, section,
    reference, page or run ("Fig. 10", "Eq. (4)", "Ref. [12]", "Run 2"), a catalogue number
    ("SMP-24-002", "arXiv:1207.7235"), a primed symbol's script (the 2 of "x'2"), a unit's power
    ("GeV 2 /c4"), a neutral state's superscript (the 0 of "ρ(770) 0"), a one-letter symbol's
    index (the 9 of "C NP 9")."""
    return [m.span() for pattern in (_REFERENCE, _CODE, _PRIMED, _SCRIPT, _CHI_SQUARED, _UNIT_POWER, _NEUTRAL,
                                     _INDEX) for m in pattern.finditer(text)]


def in_name(spans: list[tuple[int, int]], pos: int) -> bool:
    return any(start <= pos < end for start, end in spans)


def named_after(text: str, end: int) -> bool:
    """Is the letter right after a number's digits part of a name ("4ℓ", "2S", "B0s"), not a unit?"""
    return unit_at(text, end) is None and bool(_NAME_AFTER.match(text, end))


def is_year(text: str, start: int, end: int) -> bool:
    """Is text[start:end] a year written alone ("Planck 2018", "in 2016", "2015-2018"), not
    a value with a unit or an uncertainty ("2016 events", "2016 ± 40")?"""
    if not YEAR.fullmatch(text[start:end]) or unit_at(text, end) is not None:
        return False
    return not (PLUS_MINUS.match(text, end) or re.search(r"(?:±|\+-|\+/-|\\pm)\s*\(?\s*\Z", text[:start]))


def _sign(text: str, match: re.Match) -> str:
    """"−" where a minus belongs to the number ("= -1.04", "(-5.9", "of −0.6%"); not the dash of
    a range or a difference ("2 - 3 GeV", "1.19 +0.40 -0.39" keeps its own, an uncertainty's)."""
    sign = match.group("sign")
    before = text[:match.start()].rstrip()
    if not sign or re.search(r"[\d)\]%]\Z", before) or (sign != sign.strip() and not before.endswith("=")):
        return ""
    return "−"


def figures(text: str) -> list[Figure]:
    """Every number of ``text``, in order; not the digits of a name (``names``)."""
    raws: list[Figure] = []
    skip_to = 0
    spans = names(text)
    for match in _NUMBER.finditer(text):
        value = _decimal(match.group("num"))
        if match.start() < skip_to or value is None or in_name(spans, match.start("num")):
            continue
        if raws and match.start("num") < raws[-1].end:
            continue  # the "1" of "fb -1": part of the unit before it
        ten = _POWER_OF_TEN.match(text, match.start("num"))
        if ten and (times := _TIMES.search(text, max(0, match.start() - 8), match.start())):
            skip_to = ten.end()
            _bracket_power(text, raws, times.start(), _signed(ten.group("exponent")))
            continue
        end, num_end = match.end(), match.end("num")
        if not match.group("power") and (bare := _BARE_POWER.match(text, match.start("num"))):
            end = num_end = bare.end()  # "at the level of 10-2": 10⁻², as LaTeX's 10^{-2} reads flattened
            value = Decimal(1)
            power = -int(bare.group(1)) if bare.group(1) else _signed(bare.group(2))
        else:
            power = _signed(match.group("power")) if match.group("power") else None
        found = unit_at(text, end)
        if not found and power is not None and (seconds := _SECONDS.match(text, end)):
            found = ("s", "time", seconds.end())
        if not found and _NAME_AFTER.match(text, end):
            continue  # "psi(2S)", "4e": part of a name
        raw = Figure(match.start("num"), end, num_end, value, power, sign=_sign(text, match))
        unit_from = end
        # "5.8) σ", "0.006 (syst) ps": the unit after a bracket
        if not found and (closing := re.match(r"\s*\)|\s*\(\s?[a-z.]+\s?\)", text[end:])):
            unit_from = end + closing.end()
            found = unit_at(text, unit_from)
        if found:
            raw.unit, raw.kind, raw.end = found
            raw.unit_written = text[unit_from:raw.end].strip()
        raws.append(raw)
    raws = _glued(text, raws)
    for before, after in zip(raws, raws[1:]):  # "5.0 (5.8) σ", "2.15 and 2.20 TeV", "5.0 ± 0.3 GeV": one unit
        between = text[before.end:after.start]
        if re.fullmatch(r"\s*\(\s*", between) and (_CLOSED.match(text, after.num_end)
                                                   or _CLOSED.match(text, after.end)):  # "2.0σ (1.7σ)", "(7 500 ± 100)"
            after.paren = True
        if PLUS_MINUS.fullmatch(text[before.num_end:after.start]) and not any(
                PLUS_MINUS.fullmatch(text[r.num_end:before.start]) for r in raws if r.num_end <= before.start):
            before.central = True
        gap = text[before.num_end:after.start]
        chained = before.spread and (_DOWN.fullmatch(gap) or _TAGGED_PLUS_MINUS.fullmatch(gap))
        if PLUS_MINUS.fullmatch(gap) or _UP.fullmatch(gap) or chained:
            after.spread = True
            before.central = before.central or not before.spread
    # Back to front, so a list takes its last number's unit ("45, 100 and 75 MeV"), and an
    # uncertainty chain its restatement's ("± 0.06 (syst.) = 125.11 ± 0.11 GeV").
    for before, after in zip(reversed(raws[:-1]), reversed(raws[1:])):
        between = text[before.end:after.start]
        if before.unit or (before.power is None and is_year(text, before.start, before.num_end)):
            continue  # "34.7 fb⁻¹ from 2022 and 27.2 fb⁻¹": the year takes no luminosity
        chained = ((before.spread and _RESTATED.fullmatch(between))
                   or (after.spread and _TAGGED_PLUS_MINUS.fullmatch(between)))
        if after.paren and unit_at(text, after.num_end):
            continue  # "0.0003 (3.6 standard deviations)": the bracket's own unit, unlike "5.0 (5.8) σ"
        if (_SAME_UNIT.fullmatch(between) or (after.paren and re.fullmatch(r"\s*\(\s*", between)) or chained
                or RANGE.fullmatch(between)):
            before.unit, before.kind, before.unit_written = after.unit, after.kind, after.unit_written
    return raws


@lru_cache(maxsize=4096)
def sentence_figures(sentence: str) -> tuple[Figure, ...]:
    """``figures`` of a sentence, read once for every ranking signal that reads them."""
    return tuple(figures(sentence))


def small_whole(value: Decimal, unit: str, power: int | None, written: str) -> bool:
    """A whole number under ten with no unit or power ("2 standard deviation intervals",
    "Figure 7", the 2 of "| A f | 2"): a label, a word or a formula's power as often as a value."""
    return not unit and power is None and value == value.to_integral_value() and value < 10 and "." not in written


def _signed(exponent: str) -> int:
    """"−22", "–3", "+2" as the int the typography means."""
    return int(exponent.replace("−", "-").replace("–", "-"))


def _bracket_power(text: str, raws: list[Figure], times: int, exponent: int) -> None:
    """"(2.17 ± 0.04) × 10-4": the power multiplies every number of the bracket before it."""
    close = text[:times].rstrip()
    if not close.endswith(")"):
        return
    opened = text.rfind("(", 0, len(close) - 1)
    for raw in raws:
        if opened < raw.start < len(close) and raw.power is None:
            raw.power = exponent


def _glued(text: str, raws: list[Figure]) -> list[Figure]:
    """``raws`` with the glued asymmetric uncertainties of ``text`` ("1.16-0.25+0.27") read:
    the number after the glued minus, which reads as a range's end or a name otherwise, is
    added, the value marked central and both uncertainties spread."""
    at = {r.start: r for r in raws}
    for match in _GLUED.finditer(text):
        central = at.get(match.start("c"))
        if central is None or central.power is not None:
            continue  # a name's digits, or "10-6+…"
        central.central = True
        for group in ("d1", "u1", "u2", "d2"):
            if match.start(group) < 0:
                continue
            raw = at.get(match.start(group))
            if raw is None:
                raw = at[match.start(group)] = Figure(match.start(group), match.end(group), match.end(group),
                                                      _decimal(match.group(group)), None)
            raw.spread = True
    return sorted(at.values(), key=lambda r: r.start)
