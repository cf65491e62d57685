"""Numbers as a text writes them: the value, a power of ten, the unit and its kind.

"5.0 (5.8) σ", "2.15 and 2.20 TeV", "5.0 ± 0.3 GeV" give each number the unit written
once after them; "(1.2 ± 0.3) × 10⁻⁵" is two values, not four; "B0", "SMP-24-002" and
"10.1103" are names, not values.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

UNITS: list[tuple[str, str, str, Decimal]] = [  # unit, kind, pattern, factor to the kind's base
    ("fb-1", "luminosity", r"fb\s?(?:\^\{?)?[-−–]\s?1\}?|fb\s?⁻¹|/fb\b|inverse femtobarns?", Decimal(1)),
    ("pb-1", "luminosity", r"pb\s?(?:\^\{?)?[-−–]\s?1\}?|pb\s?⁻¹|/pb\b|inverse picobarns?", Decimal("0.001")),
    ("TeV", "energy", r"TeV(?:/c2?)?", Decimal(1000)),
    ("GeV", "energy", r"GeV(?:/c2?)?", Decimal(1)),
    ("MeV", "energy", r"MeV(?:/c2?)?", Decimal("0.001")),
    ("keV", "energy", r"keV(?:/c2?)?", Decimal("0.000001")),
    ("σ", "significance", r"σ|sigma\b|\\sigma\b|standard deviations?|s\.\s?d\.", Decimal(1)),
    ("%", "percent", r"%|\\%|per\s?cent\b", Decimal(1)),
    ("fb", "cross section", r"fb\b", Decimal(1)),
    ("pb", "cross section", r"pb\b", Decimal(1000)),
    ("nb", "cross section", r"nb\b", Decimal(1000000)),
    ("ps", "time", r"ps\b", Decimal(1)),
    ("fs", "time", r"fs\b", Decimal("0.001")),
    ("ns", "time", r"ns\b", Decimal(1000)),
    ("events", "count", r"(?:signal |background |selected |candidate )?(?:events?|candidates?)\b", Decimal(1)),
]
_UNIT = re.compile("|".join(f"(?P<u{i}>{p})" for i, (_, _, p, _) in enumerate(UNITS)), re.I)
# A number as written: not part of a name (B0, SMP-24-002, 10.1103, X(3872)), thousands grouped by
# a (thin) space, optionally times a power of ten.
_NUMBER = re.compile(
    r"(?<![\w.\-/])(?<![\w*]\()(?P<sign>[-−]\s?)?(?<![\w.])(?P<num>\d{1,3}(?:[ \u2009\u202f]\d{3})+(?![\d.])|\d+(?:\.\d+)?)"
    r"(?P<exp>\s?(?:[eE](?=[-−+]?\d)|[x×*]\s?10\s?(?:\^|\*\*)?\s?\{?)\s?(?P<power>[-−–+]?\d+)\}?)?"
)
# A letter right after the digits makes a name ("2S", "B0s") unless it starts a unit or a tag ("0.012stat").
_NAME_AFTER = re.compile(r"[^\W\d_](?<!σ)(?!tat|yst|heo)", re.I)
PLUS_MINUS = re.compile(r"\s*\)?\s*(?:±|\+-|\+/-|\\pm)\s*\(?\s*")
# "(1.2 ± 0.3) × 10^-5": the 10 and its power are how the value is written, not values.
_POWER_OF_TEN = re.compile(r"10\s?(?:\^|\*\*)?\s?\{?\s?[-−–+]?\d+\}?")
_TIMES = re.compile(r"(?:[x×*]|\\times)\s?\Z")


def _decimal(raw: str) -> Decimal | None:
    try:
        return Decimal(re.sub(r"[ \u2009\u202f]", "", raw)).normalize()
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
    paren: bool = False  # "5.8" in "5.0 (5.8) σ"
    central: bool = False  # "2.73" in "2.73 ± 0.06 ± 0.16": the value its uncertainties follow


def unit_at(text: str, pos: int) -> tuple[str, str, int] | None:
    match = _UNIT.match(text, pos + len(text[pos:]) - len(text[pos:].lstrip(" \u2009\u202f")))
    if not match:
        return None
    index = int(match.lastgroup[1:])
    unit, kind, _, _ = UNITS[index]
    return unit, kind, match.end()


def figures(text: str) -> list[Figure]:
    """Every number of ``text``, in order."""
    raws: list[Figure] = []
    skip_to = 0
    for match in _NUMBER.finditer(text):
        value = _decimal(match.group("num"))
        if match.start() < skip_to or value is None:
            continue
        if (power := _POWER_OF_TEN.match(text, match.start("num"))) and _TIMES.search(text, 0, match.start()):
            skip_to = power.end()
            continue
        found = unit_at(text, match.end())
        if not found and _NAME_AFTER.match(text, match.end()):
            continue  # "psi(2S)", "4e": part of a name
        power = int(match.group("power").replace("−", "-").replace("–", "-")) if match.group("power") else None
        raw = Figure(match.start("num"), match.end(), match.end("num"), value, power)
        if not found and (closing := re.match(r"\s*\)", text[match.end():])):  # "5.8) σ"
            found = unit_at(text, match.end() + closing.end())
        if found:
            raw.unit, raw.kind, raw.end = found
        raws.append(raw)
    for before, after in zip(raws, raws[1:]):  # "5.0 (5.8) σ", "2.15 and 2.20 TeV", "5.0 ± 0.3 GeV": one unit
        between = text[before.end:after.start]
        if re.fullmatch(r"\s*\(\s*", between) and (re.match(r"\s*\)", text[after.num_end:])
                                                   or re.match(r"\s*\)", text[after.end:])):  # "2.0σ (1.7σ)"
            after.paren = True
        if PLUS_MINUS.fullmatch(text[before.num_end:after.start]) and not any(
                PLUS_MINUS.fullmatch(text[r.num_end:before.start]) for r in raws if r.num_end <= before.start):
            before.central = True
        if not before.unit and re.fullmatch(r"\s*(?:\(|\)|,|and|or|to|[-–]|±|\+-|\+/-|\\pm)?\s*\(?\s*", between):
            before.unit, before.kind = after.unit, after.kind
    for before, after in zip(reversed(raws[:-1]), reversed(raws[1:])):
        between = text[before.end:after.start]
        if after.paren and not before.unit and re.fullmatch(r"\s*\(\s*", between):
            before.unit, before.kind = after.unit, after.kind
    return raws
