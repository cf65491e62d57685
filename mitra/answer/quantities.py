"""The numbers a text states, each with the quantity it is stated for.

A physics sentence puts several values of one kind side by side ("an observed local
significance of 5.0 σ, compared with an expected 5.8 σ"; "2.05 TeV and 2.10 TeV for the
axial-vector and vector mediators, respectively"), so a number found somewhere in a
passage says nothing about which quantity it is. ``mentions`` reads each number with its
unit and the *qualifiers* bound to it, in closed classes a physicist tells apart
(``CLASSES``: observed / expected, statistical / systematic, local / global, the decay
channel, the production category, the mediator, the data set, upper / lower, the data
split), plus the plain words of its clause for what no class names.

Binding is by clause, not by the whole sentence:

* a number's window runs back to the previous number of its kind (or the clause start)
  and forward to the next comma, conjunction or number; qualifiers in it are its own;
* "A (B) … x (y)" pairs the bracketed qualifier with the bracketed number;
* "…, respectively" pairs a class's values with the numbers before it, in order;
* "± 0.2 (stat)" binds the bracket to the number it follows, and only to it;
* a class the sentence leaves open is taken from the previous sentence when this one
  opens on "It", "This", "They" … (its subject: the first value there), else from the
  passage's section heading ("6.1 H → WW");
* a table row binds its label and its column's header to each cell.

Cheap (regular expressions, no model), so it runs on every answer sentence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from functools import lru_cache

from mitra.core.text import split_sentences, tokenize

# -------------------------------------------------------------------- the classes
# class -> [(value, pattern)]; a value named first wins where two patterns overlap.
_CLASSES: dict[str, list[tuple[str, str]]] = {
    "measure": [
        ("expected", r"\bexp(?:ected|ectation|\.)|\bpredict(?:ed|ions?)\b|\bsensitivity\b"),
        ("observed", r"\bobs(?:erved|\.)|\bmeasured\b"),
    ],
    "uncertainty": [
        ("statistical", r"\bstat(?:istic(?:s|al|ally)|\.)?(?![a-z])"),
        ("systematic", r"\bsyst(?:ematics?|\.)?(?![a-z])"),
        ("theoretical", r"\btheo(?:ry|retical|\.)?(?![a-z])"),
        ("luminosity", r"\(\s*lumi(?:nosity)?\s*\)"),
        ("total", r"\btotal\b"),
    ],
    "significance": [("local", r"\blocal(?:ly)?\b"), ("global", r"\bglobal(?:ly)?\b")],
    "channel": [
        ("γγ", r"γ\s?γ|\bgamma\s?gamma\b|\\gamma\s?\\gamma|\bdiphoton|\btwo[- ]photon"),
        ("Zγ", r"\bZ\s?γ|\bZ\s?gamma\b"),
        ("ZZ", r"\bZZ\b|\bZZ\*|four[- ]lepton|\b4\s?(?:ℓ|l|leptons?)\b"),
        ("WW", r"\bWW\b|\bWW\*|\bℓνℓν\b"),
        ("ττ", r"τ\s?τ|\btau\s?tau\b|\bditau|\\tau\s?\\tau"),
        ("bb", r"\bb\s?b̄|\bbb\b|\bb\s?\\bar\{?b\}?|\bbbbar\b"),
        ("μμ", r"μ\s?μ|μ\+\s?μ[-−]|\bmu\s?mu\b|\bdimuon|\\mu\s?\\mu"),
        ("ee", r"\bee\b|\bdielectron|\be\+\s?e[-−]"),
        ("electron", r"\belectrons? (?:channel|final state)"),
        ("muon", r"\bmuons? (?:channel|final state)"),
        ("combined", r"\bcombin(?:ed|ation|ing)\b|\boverall\b|\ball (?:channels|final states|decay modes)\b"),
    ],
    "category": [
        ("VBF", r"\bVBF\b|vector[- ]boson fusion"),
        ("ggF", r"\bggF\b|\bggH\b|gluon[- ](?:gluon )?fusion"),
        ("VH", r"\bVH\b|\bWH\b|\bZH\b|associated (?:production )?with a (?:W|Z|vector)"),
        ("ttH", r"\bttH\b|\btt̄H\b|\bt\s?t̄\s?H\b"),
        ("0-jet", r"\b(?:0|zero)[- ]jets?\b"),
        ("1-jet", r"\b(?:1|one)[- ]jets?\b"),
        ("2-jet", r"\b(?:2|two)[- ]jets?\b"),
        ("untagged", r"\buntagged\b"),
        ("inclusive", r"\binclusive\b"),
    ],
    "mediator": [
        ("axial-vector", r"\baxial[- ]?vector"),
        ("pseudoscalar", r"\bpseudo[- ]?scalar"),
        ("vector", r"(?<![-\w])vector(?![- ]?boson)(?:[- ]like)?\b"),
        ("scalar", r"(?<![-\w])scalar\b"),
    ],
    "limit": [("upper", r"\bupper\b"), ("lower", r"\blower\b")],
    "run": [
        ("Run 1", r"\bRun[- ]?(?:1|I)\b"),
        ("Run 2", r"\bRun[- ]?(?:2|II)\b"),
        ("Run 3", r"\bRun[- ]?(?:3|III)\b"),
    ],
    "split": [
        ("development", r"\bdev(?:elopment)?\b|\bvalidation\b"),
        ("test", r"\btest(?:ing)?\s+(?:set|data|split)\b|\bon (?:the )?test\b"),
        ("training", r"\btrain(?:ing)?\s+(?:set|data|split)\b"),
    ],
}
# What a sentence means when it names no value of the class: dropping it loses nothing.
DEFAULTS = {"measure": "observed", "channel": "combined", "category": "inclusive", "uncertainty": "total"}
# A specific channel or category left out of a claim is always a lost qualifier: a channel's
# value read as the analysis's (1.6 σ in WW as "the" significance) is the classic wrong answer.
STRICT = frozenset({"channel", "category"})
# How a qualifier reads in a sentence for the member.
NOUNS = {"measure": "", "uncertainty": "uncertainty", "significance": "significance", "channel": "channel",
         "category": "category", "mediator": "mediator", "limit": "limit", "energy": "data",
         "year": "data", "run": "data", "split": "set"}

_PATTERNS = {cls: [(v, re.compile(p, re.I)) for v, p in values] for cls, values in _CLASSES.items()}
_NOT_A_QUALIFIER = re.compile(r"\bas (?:expected|observed|predicted)\b", re.I)

# -------------------------------------------------------------------- numbers and units
_UNITS: list[tuple[str, str, str, Decimal]] = [  # unit, kind, pattern, factor to the kind's base
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
_UNIT = re.compile("|".join(f"(?P<u{i}>{p})" for i, (_, _, p, _) in enumerate(_UNITS)), re.I)
# A number as written: not part of a name (B0, SMP-24-002, 10.1103), thousands grouped by
# a (thin) space, optionally times a power of ten.
_NUMBER = re.compile(
    r"(?<![\w.\-/])(?P<sign>[-−]\s?)?(?<![\w.])(?P<num>\d{1,3}(?:[ \u2009\u202f]\d{3})+(?![\d.])|\d+(?:\.\d+)?)"
    r"(?P<exp>\s?(?:[eE](?=[-−+]?\d)|[x×*]\s?10\s?(?:\^|\*\*)?\s?\{?)\s?(?P<power>[-−–+]?\d+)\}?)?"
)
# "(1.2 ± 0.3) × 10^-5": the 10 and its power are how the value is written, not values.
_POWER_OF_TEN = re.compile(r"10\s?(?:\^|\*\*)?\s?\{?\s?[-−–+]?\d+\}?")
_TIMES = re.compile(r"(?:[x×*]|\\times)\s?\Z")
_YEAR = re.compile(r"(?:19[89]\d|20[0-4]\d)")
_ENERGY_CONTEXT = re.compile(r"(?:√s|sqrt\(?s\)?|\bs\s?=|\b(?:at|of) \d+(?:\.\d+)? TeV|centre[- ]of[- ]mass|center[- ]of[- ]mass|collision|"
                             r"data(?:\s?sets?)?\b|analys[ie]s\b|samples?\b|run\b)", re.I)
_CLAUSE_END = re.compile(r"[,;:]|\s(?:and|while|whereas|but|or|compared)\s|\)\s*[,;]", re.I)
_CLAUSE_START = re.compile(r";|\b(?:whereas|while|but|compared (?:with|to)|than)\b", re.I)
# What "It has …" can refer back to: the thing measured, not how (observed, statistical …).
SUBJECTS = frozenset({"channel", "category", "mediator", "energy", "year", "run", "split"})
_ANAPHOR = re.compile(r"^(?:it|its|this|these|they|their|the (?:latter|former|same)|such)\b", re.I)
_PLUS_MINUS = re.compile(r"\s*\)?\s*(?:±|\+-|\+/-|\\pm)\s*\(?\s*")
_ORDINAL = re.compile(
    r"\bfirst (?:uncertainty |error |one )?(?:is |being |are )?(?:the )?(?P<first>statistical|systematic|theoretical)"
    r".{0,40}?\bsecond (?:uncertainty |error |one )?(?:is |being )?(?:the )?(?P<second>statistical|systematic|theoretical)?"
    r"(?:.{0,40}?\bthird (?:uncertainty |error |one )?(?:is |being )?(?:the )?(?P<third>statistical|systematic|theoretical)?)?",
    re.I)
_UNCERTAINTY_WORDS = {"statistical": "statistical", "systematic": "systematic", "theoretical": "theoretical"}
_RESPECTIVELY = re.compile(r"\brespectively\b", re.I)
_CONTENT = re.compile(r"[^\W\d_]{2,}")


@dataclass(frozen=True)
class Mention:
    """One number as a text states it, with what it is stated for."""

    written: str  # "2.05 TeV", "5.0 (5.8) σ" reads as "5.0 σ" and "5.8 σ"
    value: Decimal  # the mantissa, normalised (80.40 -> 80.4)
    power: int | None  # "× 10⁻⁹"
    unit: str  # canonical ("TeV"), "" when none
    kind: str  # "energy", "significance", … "" when unitless
    sentence: str  # the sentence (or table row) that states it
    span: tuple[int, int]  # of the number (and its unit, where it follows) in ``sentence``
    qualifiers: dict[str, frozenset[str]] = field(default_factory=dict)
    words: frozenset[str] = frozenset()  # the stems of its clause, for what no class names
    condition: bool = False  # a setting others are stated at (√s = 13 TeV, a year), not a result

    @property
    def base(self) -> Decimal:
        """The value in its kind's base unit (GeV, fb, ps …), for comparing 2.05 TeV with 2050 GeV."""
        factor = next((f for u, _, _, f in _UNITS if u == self.unit), Decimal(1))
        return self.value * factor

    def same_value(self, other: "Mention") -> bool:
        if self.power is not None and other.power is not None and self.power != other.power:
            return False
        if self.kind == other.kind == "energy":
            return self.base == other.base
        return self.value == other.value

    def compatible_kind(self, other: "Mention") -> bool:
        return not self.kind or not other.kind or self.kind == other.kind


def _decimal(raw: str) -> Decimal | None:
    try:
        return Decimal(re.sub(r"[ \u2009\u202f]", "", raw)).normalize()
    except InvalidOperation:
        return None


@dataclass
class _Raw:
    start: int
    end: int  # after its unit
    num_end: int
    value: Decimal
    power: int | None
    unit: str = ""
    kind: str = ""
    paren: bool = False  # "5.8" in "5.0 (5.8) σ"


def _unit_at(text: str, pos: int) -> tuple[str, str, int] | None:
    match = _UNIT.match(text, pos + len(text[pos:]) - len(text[pos:].lstrip(" \u2009\u202f")))
    if not match:
        return None
    index = int(match.lastgroup[1:])
    unit, kind, _, _ = _UNITS[index]
    return unit, kind, match.end()


def _numbers(text: str) -> list[_Raw]:
    raws: list[_Raw] = []
    skip_to = 0
    for match in _NUMBER.finditer(text):
        value = _decimal(match.group("num"))
        if match.start() < skip_to or value is None:
            continue
        if (power := _POWER_OF_TEN.match(text, match.start("num"))) and _TIMES.search(text, 0, match.start()):
            skip_to = power.end()
            continue
        power = int(match.group("power").replace("−", "-").replace("–", "-")) if match.group("power") else None
        raw = _Raw(match.start("num"), match.end(), match.end("num"), value, power)
        found = _unit_at(text, match.end())
        if not found and (closing := re.match(r"\s*\)", text[match.end():])):  # "5.8) σ"
            found = _unit_at(text, match.end() + closing.end())
        if found:
            raw.unit, raw.kind, raw.end = found
        raws.append(raw)
    for before, after in zip(raws, raws[1:]):  # "5.0 (5.8) σ", "2.15 and 2.20 TeV", "5.0 ± 0.3 GeV": one unit
        between = text[before.end:after.start]
        if re.fullmatch(r"\s*\(\s*", between) and re.match(r"\s*\)", text[after.num_end:]):
            after.paren = True
        if not before.unit and re.fullmatch(r"\s*(?:\(|\)|,|and|or|to|[-–]|±|\+-|\+/-|\\pm)?\s*\(?\s*", between):
            before.unit, before.kind = after.unit, after.kind
    for before, after in zip(reversed(raws[:-1]), reversed(raws[1:])):
        between = text[before.end:after.start]
        if after.paren and not before.unit and re.fullmatch(r"\s*\(\s*", between):
            before.unit, before.kind = after.unit, after.kind
    return raws


def _qualifiers(text: str) -> list[tuple[str, str, int, int]]:
    """(class, value, start, end) of every qualifier in ``text``, in order."""
    masked = _NOT_A_QUALIFIER.sub(lambda m: " " * len(m.group()), text)
    found: list[tuple[str, str, int, int]] = []
    for cls, patterns in _PATTERNS.items():
        taken: list[tuple[int, int]] = []
        for value, pattern in patterns:
            for m in pattern.finditer(masked):
                if not any(s < m.end() and m.start() < e for s, e in taken):
                    taken.append((m.start(), m.end()))
                    found.append((cls, value, m.start(), m.end()))
    return sorted(found, key=lambda q: q[2])


def _conditions(text: str, raws: list[_Raw]) -> list[tuple[str, str, int, int]]:
    """Numbers that say which data: a centre-of-mass energy (13 TeV data, √s = 8 TeV) or a year."""
    found = []
    for raw in raws:
        written = text[raw.start:raw.num_end]
        near = text[max(0, raw.start - 30):raw.end + 25]
        if raw.unit == "TeV" and raw.value in _BEAM_ENERGIES and _ENERGY_CONTEXT.search(near):
            found.append(("energy", f"{raw.value} TeV", raw.start, raw.end))
        elif not raw.unit and raw.power is None and _YEAR.fullmatch(written):
            found.append(("year", written, raw.start, raw.end))
        elif _SETTING.search(text, 0, raw.start):
            found.append(("setting", written, raw.start, raw.end))
    return found


# "for mH = 125.5 GeV", "with mχ = 1 GeV": the point a result is given at, not a result.
_SETTING = re.compile(r"\b(?:for|with|at|assuming)\s+[^\s=]{1,15}\s?[=∼~≈]\s?\Z", re.I)
CONDITIONS = frozenset({"energy", "year", "setting"})  # classes whose value is a number of the text
_BEAM_ENERGIES = frozenset(Decimal(v).normalize() for v in ("0.9", "2.76", "5.02", "7", "8", "13", "13.6", "14"))


def _paren_following(text: str, quals: list[tuple[str, str, int, int]]) -> set[int]:
    """Indexes of qualifiers written in brackets right after one of their class: "observed (expected)"."""
    out = set()
    for i, (cls, _, start, end) in enumerate(quals):
        for j in range(i - 1, -1, -1):
            other = quals[j]
            if other[0] == cls and re.fullmatch(r"\s*\(\s*", text[other[3]:start]) and re.match(r"\s*\)", text[end:]):
                out.add(i)
                break
    return out


def _window(text: str, raws: list[_Raw], i: int, clause_start: int) -> tuple[int, int]:
    raw = raws[i]
    left = clause_start
    for j in range(i - 1, -1, -1):
        if raws[j].kind == raw.kind or not raws[j].kind or not raw.kind:
            left = max(left, raws[j].end)
            break
    for m in _CLAUSE_START.finditer(text, left, raw.start):
        left = max(left, m.start())
    right = len(text)
    after = text[raw.end:]
    bracket = re.match(r"\s*\([^()]{0,40}\)", after)  # "(stat)", "(σ)", "(5.8)"
    scan_from = raw.end + (bracket.end() if bracket else 0)
    end = _CLAUSE_END.search(text, scan_from)
    if end:
        right = end.start()
    nxt = next((r.start for r in raws[i + 1:] if not r.paren or r.start >= scan_from), None)
    if nxt is not None:
        right = min(right, nxt)
    return left, max(right, raw.end)


def _clause_start(text: str, pos: int) -> int:
    semi = text.rfind(";", 0, pos)
    return semi + 1 if semi >= 0 else 0


def _read(sentence: str, previous: str, heading: str) -> list[Mention]:
    named = _qualifiers(sentence)
    raws = [r for r in _numbers(sentence) if not any(q[2] <= r.start < q[3] for q in named)]
    if not raws:
        return []
    quals = named + _conditions(sentence, raws)
    quals.sort(key=lambda q: q[2])
    in_brackets = _paren_following(sentence, quals)
    windows = [_window(sentence, raws, i, _clause_start(sentence, raw.start)) for i, raw in enumerate(raws)]
    for i in range(1, len(raws)):
        if raws[i].paren:  # "5.0 (5.8) σ": the bracketed number reads its main number's words
            windows[i] = (min(windows[i - 1][0], windows[i][0]), max(windows[i - 1][1], windows[i][1]))
    bound: list[dict[str, set[str]]] = []
    for i, raw in enumerate(raws):
        left, right = windows[i]
        own: dict[str, set[str]] = {}
        for k, (cls, value, start, end) in enumerate(quals):
            if cls == "setting" or start >= right or end <= left or (start >= raw.start and end <= raw.end):
                continue
            if k in in_brackets and not raw.paren and any(q[0] == cls for q in quals[:k]):
                continue  # "observed (expected) … 5.0 (5.8)": the bracketed one is the bracketed number's
            if raw.paren and k not in in_brackets and any(quals[x][0] == cls for x in in_brackets):
                continue
            if _bracket_of_other(sentence, raws, i, start):
                continue  # "0.2 (stat) ± 0.1 (syst)": "(stat)" is 0.2's only
            own.setdefault(cls, set()).add(value)
        bound.append(own)
    _ordinal(sentence, raws, bound)
    _listed(sentence, raws, bound)
    _respectively(sentence, raws, quals, bound)
    _shared(raws, quals, windows, bound)
    inherited = _open_classes(previous, heading)
    mentions = []
    for i, raw in enumerate(raws):
        left, right = windows[i]
        qualifiers = {cls: set(values) for cls, values in bound[i].items()}
        for cls, values in inherited.items():
            qualifiers.setdefault(cls, set(values))
        channels = qualifiers.get("channel", set())
        if len(channels - {"combined"}) >= 2:  # "γγ + ZZ": a combination of channels
            channels.add("combined")
        words = frozenset(t for t in tokenize(sentence[left:right]) if _CONTENT.fullmatch(t))
        written = sentence[raw.start:raw.num_end] + (f" {raw.unit}" if raw.unit else "")
        mentions.append(Mention(
            written=written, value=raw.value, power=raw.power, unit=raw.unit, kind=raw.kind, sentence=sentence,
            span=(raw.start, raw.end if raw.unit and ")" not in sentence[raw.num_end:raw.end] else raw.num_end),
            qualifiers={c: frozenset(v) for c, v in qualifiers.items() if v},
            words=words, condition=_is_condition(raw, quals)))
    return mentions


def _ordinal(text: str, raws: list[_Raw], bound: list[dict[str, set[str]]]) -> None:
    """"0.307 ± 0.017 ± 0.023, where the first uncertainty is statistical and the second
    systematic": each ± of a chain takes its ordinal's name."""
    named = _ORDINAL.search(text)
    if not named:
        return
    kinds = [_UNCERTAINTY_WORDS.get(w.lower()) if (w := named.group(g)) else None for g in ("first", "second", "third")]
    chain: list[int] = []
    for i in range(1, len(raws) + 1):
        linked = i < len(raws) and _PLUS_MINUS.fullmatch(text[raws[i - 1].num_end:raws[i].start])
        if linked:
            chain.append(i)
            continue
        for position, j in enumerate(chain[:3]):
            if kinds[position]:
                bound[j]["uncertainty"] = {kinds[position]}
        chain = []


def _listed(text: str, raws: list[_Raw], bound: list[dict[str, set[str]]]) -> None:
    """"expected exclusions of 2.15 and 2.20 TeV": numbers listed together share what the
    list's first one is stated for."""
    for i in range(1, len(raws)):
        before, after = raws[i - 1], raws[i]
        if before.kind == after.kind and re.fullmatch(r"\s*(?:,|and|or|,\s?and)\s*", text[before.end:after.start]):
            for cls, values in bound[i - 1].items():
                bound[i].setdefault(cls, set(values))


def _bracket_of_other(text: str, raws: list[_Raw], i: int, start: int) -> bool:
    """Is the qualifier at ``start`` a bracket right after another number than raws[i]?"""
    for j, other in enumerate(raws):
        if j != i and re.fullmatch(r"\s*\(\s*", text[other.end:start]):
            return True
    return False


def _respectively(text: str, raws: list[_Raw], quals, bound: list[dict[str, set[str]]]) -> None:
    """"… for A and B … x and y, respectively": A is x's, B is y's."""
    for mark in _RESPECTIVELY.finditer(text):
        before = [i for i, r in enumerate(raws) if r.end <= mark.start() and not r.paren]
        by_class: dict[str, list[str]] = {}
        for cls, value, start, _ in quals:
            if start < mark.start() and cls != "setting" and value not in by_class.setdefault(cls, []):
                by_class[cls].append(value)
        for cls, values in by_class.items():
            if len(values) < 2:
                continue
            kind = raws[before[-1]].kind if before else ""
            same = [i for i in before if raws[i].kind == kind and not _is_condition(raws[i], quals)]
            if len(same) < len(values):
                continue
            for i, value in zip(same[-len(values):], values):
                bound[i][cls] = {value}
            after = [i for i, r in enumerate(raws) if r.start > mark.end() and r.kind == kind and not r.paren
                     and not _is_condition(r, quals)]
            if len(after) == len(values):  # "…, respectively, compared with expected 2.15 and 2.20 TeV"
                for i, value in zip(after, values):
                    bound[i].setdefault(cls, {value})


def _is_condition(raw: _Raw, quals) -> bool:
    return any(q[0] in CONDITIONS and q[2] == raw.start for q in quals)


def _shared(raws: list[_Raw], quals, windows, bound: list[dict[str, set[str]]]) -> None:
    """A qualifier outside every number's window ("The observed limits are 2.1 TeV for … and
    1.5 TeV for …") is shared by the numbers that name no value of its class."""
    for cls, value, start, end in quals:
        if cls == "setting" or any(left <= start < right for left, right in windows):
            continue
        for i, raw in enumerate(raws):
            if cls not in bound[i] and start < raw.start:
                bound[i].setdefault(cls, set()).add(value)


def _open_classes(previous: str, heading: str) -> dict[str, set[str]]:
    """What a sentence's numbers inherit for the classes they leave open: the previous
    sentence's subject (first value) when this one opens on an anaphor, else the heading's."""
    out: dict[str, set[str]] = {}
    for cls, value, _, _ in _qualifiers(previous):
        if cls in SUBJECTS:
            out.setdefault(cls, {value})
    from_heading: dict[str, set[str]] = {}
    for cls, value, _, _ in _qualifiers(heading):
        if cls not in out:
            from_heading.setdefault(cls, set()).add(value)
    return out | from_heading


# -------------------------------------------------------------------- tables
_CELL = re.compile(r"\s*\|\s*")


def _table_rows(text: str) -> list[list[str]] | None:
    lines = [line for line in text.split("\n") if line.strip()]
    rows = [_CELL.split(line.strip().strip("|")) for line in lines if "|" in line]
    return rows if len(rows) >= 2 else None


def _read_table(text: str, heading: str) -> list[Mention]:
    """Each cell's numbers, bound to its row's label and its column's header (the first row
    without a number), under the caption's and heading's qualifiers."""
    lines = [line for line in text.split("\n") if line.strip()]
    caption = " ".join(line for line in lines if "|" not in line)
    rows = [_CELL.split(line.strip().strip("|")) for line in lines if "|" in line]
    header = next((r for r in rows if not any(_numbers(c) for c in r[1:])), None)
    context = _open_classes("", f"{heading} {caption}")
    mentions: list[Mention] = []
    for row in rows:
        if row is header:
            continue
        line = " | ".join(row)
        offset = 0
        for j, cell in enumerate(row):
            start = line.find(cell, offset)
            offset = start + len(cell)
            if j == 0:
                continue
            column = header[j] if header is not None and len(header) == len(row) else ""
            label = f"{row[0]} {column}"
            for m in _read(cell, "", ""):
                qualifiers: dict[str, set[str]] = {}
                for cls, values in qualifiers_of(label).items():
                    qualifiers.setdefault(cls, set()).update(values)
                for cls, values in context.items():
                    qualifiers.setdefault(cls, set(values))
                for cls, values in m.qualifiers.items():
                    qualifiers[cls] = set(values)
                if len(qualifiers.get("channel", set()) - {"combined"}) >= 2:
                    qualifiers["channel"].add("combined")
                unit = m.unit or (found[0] if (found := _unit_in(column)) else "")
                kind = m.kind or (found[1] if found else "")
                mentions.append(Mention(
                    written=m.written, value=m.value, power=m.power, unit=unit, kind=kind, sentence=line,
                    span=(start + m.span[0], start + m.span[1]),
                    qualifiers={c: frozenset(v) for c, v in qualifiers.items() if v},
                    words=frozenset(t for t in tokenize(label) if _CONTENT.fullmatch(t))))
    return mentions


def _unit_in(text: str) -> tuple[str, str] | None:
    match = re.search(r"\(\s*([^()]{1,20})\s*\)", text)
    found = _unit_at(match.group(1), 0) if match else None
    return (found[0], found[1]) if found else None


# -------------------------------------------------------------------- entry point
@lru_cache(maxsize=4096)
def mentions(text: str, heading: str = "") -> tuple[Mention, ...]:
    """Every number ``text`` states, with its qualifiers. ``heading`` is the section path
    the text sits under (its classes fill what a sentence leaves open)."""
    if not any(ch.isdigit() for ch in text):
        return ()
    if _table_rows(text) is not None:
        return tuple(_read_table(text, heading))
    out: list[Mention] = []
    previous = ""
    for sentence in split_sentences(text):
        anaphoric = previous if _ANAPHOR.match(sentence) else ""
        out.extend(_read(sentence, anaphoric, heading))
        previous = sentence
    return tuple(out)


def states_for_earlier(sentence: str) -> bool:
    """Does the sentence state a number for something only the sentence before it names
    ("It has an excess with local significance 1.6 σ")?"""
    return bool(_ANAPHOR.match(sentence.strip())) and any(ch.isdigit() for ch in sentence)


def qualifiers_of(text: str) -> dict[str, frozenset[str]]:
    """Every class value ``text`` names (a question, a title), for the classes a claim leaves open."""
    out: dict[str, set[str]] = {}
    for cls, value, _, _ in _qualifiers(text) + _conditions(text, _numbers(text)):
        if cls != "setting":
            out.setdefault(cls, set()).add(value)
    return {cls: frozenset(values) for cls, values in out.items()}
