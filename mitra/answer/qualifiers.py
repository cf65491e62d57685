"""The qualifiers that tell sibling values apart, in closed classes a physicist reads:
observed / expected, statistical / systematic, local / global, the decay channel, the
production category, the mediator, a χcJ or Υ(nS) state, upper / lower, the detector region,
the data split, and the numbers that say which data (a beam energy, a year) or at which point
(for mH = 125 GeV)."""

from __future__ import annotations

import re
from decimal import Decimal

from mitra.answer.figures import YEAR, Figure, figures

# A symbol's letter, tokenized, as the word a question uses for it (stemmed): "Γ = 17.4 MeV" and
# the column "Gamma [MeV]" state a width.
SYMBOL_WORDS = {"tau": "lifetim", "m": "mass", "sigma": "section", "gamma": "width"}

_BOUND_NOUN = r"(?=(?:\s+[\w%.-]+){0,3}?\s+(?:limits?|bounds?|ends?|edges?|constraints?|values?)\b)"
# class -> [(value, pattern)]; a value named first wins where two patterns overlap.
_CLASSES: dict[str, list[tuple[str, str]]] = {
    "measure": [
        # "did CMS expect"; not "over the background-only expectation", the null hypothesis
        # not the tag "± 0.04(exp.)", an experimental uncertainty
        ("expected", r"(?<!background-only )(?<!background )(?<!\d\()(?<!\d \()\bexp(?:ected|ectation|ects?\b|\.)"
                     r"|\bpredict(?:s|ed|ions?)?\b"
                     r"|\bsensitivity\b"),
        ("observed", r"\bobs(?:erved|\.)|\bmeasured\b"),
    ],
    "uncertainty": [
        # "0.012stat" too; not "statistically subtracted", "statistically significant": no uncertainty
        ("statistical", r"(?<![a-z])stat(?:istic(?:s|al)|\.)?(?![a-z])"),
        ("systematic", r"(?<![a-z])syst(?:ematics?|\.)?(?![a-z])"),
        ("theoretical", r"(?<![a-z])theo(?:ry|retical|\.)?(?![a-z])|(?<=\d\()th\.(?=\))|(?<=\d \()th\.(?=\))"),
        ("luminosity", r"\(\s*lumi(?:nosity)?\s*\)"),
        ("experimental", r"(?<=\d\()exp(?:\.|erimental)?(?=\))|(?<=\d \()exp(?:\.|erimental)?(?=\))"
                         r"|\bexperimental(?=\s+(?:systematic\s+)?uncertaint)"),
        # not "the total signal yield"; the word alone: "total luminosity uncertainty" names the luminosity's
        ("total", r"\btotal(?=\s+(?:[\w-]+\s+)?(?:uncertaint|errors?\b))"),
    ],
    "significance": [("local", r"\blocal(?:ly)?\b"), ("global", r"\bglobal(?:ly)?\b")],
    "channel": [
        ("γγ", r"γ\s?γ|\bgamma\s?gamma\b|\\gamma\s?\\gamma|\bdiphoton|\btwo[- ]photon"),
        ("Zγ", r"\bZ\s?γ|\bZ\s?gamma\b"),
        ("ZZ", r"\bZZ\b|\bZZ\*|four[- ]lepton|\b4\s?(?:ℓ|l|leptons?)\b"),
        ("WW", r"\bWW\b|\bWW\*|\bℓνℓν\b"),
        ("ττ", r"τ\s?τ|\btau\s?tau\b|\bditau|\\tau\s?\\tau"),
        ("bb", r"\bb\s?b̄|\bbb\b|\bb\s?\\bar\{?b\}?|\bbbbar\b"),
        # LHCb's decay macros end in it: "Kstarzmumu", "phimumu"
        # "the muon channel" of H → ℓℓγ is its "μ μμ = 1.9": one channel however it is named
        ("μμ", r"μ\s?μ|μ\+\s?μ[-−]|\bmu\+\s?mu[-−]|\bmu\s?mu\b|(?<=[a-z])mumu\b|\bdimuon|\\mu\s?\\mu"
               r"|\bmuons? (?:channel|final state)"),
        ("ee", r"\bee(?![A-Za-z0-9])|\bdielectron|\be\+\s?e[-−]"  # "Z → eeγ" too
               r"|\belectrons? (?:channel|final state)"
               r"|\b(?=[BL]\w*[A-Z]\w*ee\b)\w+ee\b"),  # LHCb's macros: "BdToKstee", "BuKee"
        # not "the combined statistical and systematic uncertainties": a sum of uncertainties, not of channels;
        # not "Overall, there are …": a summing up; not "one φ candidate per combination" of tracks
        ("combined", r"(?<!\bper )(?<!\beach )\bcombin(?:ed|ation|ing)\b"
                     r"(?!\s+(?:(?:statistical|systematic|theoretical|stat|syst)\b|uncertaint|errors?\b))"
                     r"|\boverall\b(?!,)|\ball (?:channels|final states|decay modes)\b"),
    ],
    "category": [
        ("VBF", r"\bVBF\b|vector[- ]boson fusion"),
        ("ggF", r"\bggF\b|\bggH\b|gluon[- ](?:gluon )?fusion"),
        # WH and ZH are results of their own ("2.5 σ for WH, 4.0 σ for ZH"), VH their combination
        ("WH", r"\bWH\b|associated (?:production )?with a W\b"),
        ("ZH", r"\bZH\b|associated (?:production )?with a Z\b"),
        ("VH", r"\bVH\b|associated (?:production )?with a vector"),
        ("ttH", r"\bttH\b|\btt̄H\b|\bt\s?t̄\s?H\b|\btop[- ]quark pairs?\b"),
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
    # "upper limit", "the lower end of the interval"; not "photons with lower energy"
    "limit": [("upper", r"\bupper\b" + _BOUND_NOUN + r"|\bULs?\b"), ("lower", r"\blower\b" + _BOUND_NOUN)],
    # the states of one family a decay may go through: a χc1 value is not the χc2 one
    "state": [
        *((f"χc{j}", rf"χ_?\{{?c{j}\}}?(?!\d)|\bchi_?\{{?c{j}\}}?(?!\d)|\bchic{word}\b")
          for j, word in enumerate(("zero", "one", "two"))),
        *((f"Υ({n}S)", rf"(?:Υ|\bUpsilon|\bY)\s?\({n}S\)|\bY(?:{word}|{n})S\b")
          for n, word in ((1, "one"), (2, "two"), (3, "three"))),
    ],
    "region": [("barrel", r"\bbarrel\b"), ("endcap", r"\bend-?caps?\b")],
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
DEFAULTS = {"measure": frozenset({"observed"}), "channel": frozenset({"combined"}),
            "category": frozenset({"inclusive"}), "uncertainty": frozenset({"total", "central value"})}
# A specific channel or category left out of a claim is always a lost qualifier: a channel's
# value read as the analysis's (1.6 σ in WW as "the" significance) is the classic wrong answer.
STRICT = frozenset({"channel", "category"})
# How a qualifier reads in a sentence for the member.
NOUNS = {"measure": "", "uncertainty": "uncertainty", "significance": "significance", "channel": "channel",
         "category": "category", "mediator": "mediator", "state": "state", "limit": "limit", "region": "region", "energy": "data",
         "year": "data", "run": "data", "split": "set"}

_PATTERNS = {cls: [(v, re.compile(p, re.I)) for v, p in values] for cls, values in _CLASSES.items()}
# "a significance of 3.2σ, including statistical and systematic uncertainties": what the value takes
# in, not which uncertainty it is ("including the systematic uncertainty of 0.5%" still names one).
TAKEN_IN = re.compile(r"\b(?:includ(?:ing|es?|ed)|taking\s+into\s+account|accounting\s+for)\s+(?:both\s+)?(?:the\s+|all\s+)?"
                      r"(?:(?:statistical|systematic)\s+(?:and|or|\+)\s+)?(?:statistical|systematic)\s+"
                      r"(?:uncertainties|errors|effects)\b(?!\s+(?:of|is|are|=)\b)", re.I)
_NOT_A_QUALIFIER = re.compile(r"\bas (?:expected|observed|predicted)\b|" + TAKEN_IN.pattern, re.I)
_ENERGY_CONTEXT = re.compile(r"(?:√s|sqrt\(?s\)?|\bs\s?=|\b(?:at|of) \d+(?:\.\d+)? TeV|centre[- ]of[- ]mass|center[- ]of[- ]mass|collision|"
                             r"data(?:\s?sets?)?\b|analys[ie]s\b|samples?\b|run\b)", re.I)
# What "It has …" can refer back to: the thing measured, not how (observed, statistical …).
SUBJECTS = frozenset({"channel", "category", "mediator", "state", "energy", "year", "run", "split"})


def qualifiers(text: str) -> list[tuple[str, str, int, int]]:
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


def conditions(text: str, raws: list[Figure]) -> list[tuple[str, str, int, int]]:
    """Numbers that say which data: a centre-of-mass energy (13 TeV data, √s = 8 TeV) or a year."""
    found = []
    for raw in raws:
        written = text[raw.start:raw.num_end]
        near = text[max(0, raw.start - 30):raw.end + 25]
        if raw.unit == "TeV" and raw.value in _BEAM_ENERGIES and _ENERGY_CONTEXT.search(near):
            found.append(("energy", f"{raw.value} TeV", raw.start, raw.end))
        elif not raw.unit and raw.power is None and YEAR.fullmatch(written):
            found.append(("year", written, raw.start, raw.end))
        elif _SETTING.search(text, 0, raw.start):
            found.append(("setting", written, raw.start, raw.end))
    return found


# "for mH = 125.5 GeV", "with mχ = 1 GeV": the point a result is given at, not a result.
# "for mH = 125 GeV", "at M(D0 p) = 2.88 GeV"
_SETTING = re.compile(r"\b(?:for|with|at|assuming)\s+(?:[^\s=]{1,15}|[^\W\d]\w{0,3}\s?\([^()=]{1,20}\))\s?[=∼~≈]\s?\Z",
                      re.I)
CONDITIONS = frozenset({"energy", "year", "setting"})  # classes whose value is a number of the text
# Which data a value comes from: a value that names none is from the analysis's own data.
DATA = frozenset({"energy", "year", "run"})
_BEAM_ENERGIES = frozenset(Decimal(v).normalize() for v in ("0.9", "2.76", "5.02", "7", "8", "13", "13.6", "14"))


def qualifiers_of(text: str) -> dict[str, frozenset[str]]:
    """Every class value ``text`` names (a question, a title), for the classes a claim leaves open."""
    out: dict[str, set[str]] = {}
    for cls, value, _, _ in qualifiers(text) + conditions(text, figures(text)):
        if cls != "setting":
            out.setdefault(cls, set()).add(value)
    return {cls: frozenset(values) for cls, values in out.items()}
