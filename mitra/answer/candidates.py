"""The values a question may be asking for, found in code before any model runs.

Every number the retrieved passages state (the fused top ``value_passages``, not only
those the model reads), in prose and in table cells (a cell reads its row's label and its
column's header), is read with the quantity and qualifiers it is stated for
(``quantities.mentions``, the binder the check uses). Each is then ranked against the
question (``Asked``) by these signals, each measured in docs/benchmarks.md:

* **qualifiers**: one the question names and the value's clause contradicts (observed
  for an expected limit, the vector for the axial-vector mediator) rules the value out;
  each one it names that the value is bound to counts for it, each one it names that the
  value leaves out against it (neither counts for one the title names, which every value of
  the analysis shares: "Run 3" in a sentence on the data rate of the Run 3 trigger is not its
  efficiency; "the dijet-mass cross-check" of the H → bb observation need not say "H → bb",
  nor the row "Systematic | 0.203" of its uncertainty table "the VH(bb) signal strength");
  a value stated for part of the data the question names, or for more (Run 2 alone for
  "Run 1 and Run 2 combined"), counts against it; a channel or state no shown value is told
  apart by need not be named (in a paper on Z → μμ alone); a qualifier the shown
  passages tell values apart by and the question leaves out counts against it, a specific
  channel or category twice; a clause that names no measure where the question asks for
  an expected one reads as observed and counts against it;
* **collaboration**: a value whose clause names only another collaboration than the one the
  question (or else the title) names is ruled out (CMS's mass in ATLAS's introduction);
* **kind**: a number of another kind than asked (a mass for a significance, a number
  with a unit or in standard deviations for a branching fraction or fraction, a momentum in
  GeV/c for a mass, a data set's size for an uncertainty) is ruled out, a setting (√s = 13 TeV, a year, "for mH = 125 GeV") or a confidence level (95% CL)
  is never a value;
* **quantity words**: the question's quantity words the value's own clause holds, those
  its sentence and section heading hold, and those its whole passage holds, each weighed
  by how rare it is among the candidate sentences;
* **phrases**: the share of the question's adjacent word pairs ("momentum resolution") that the
  value's sentence or table row, or its column's header, writes side by side (``phrases``);
* **value or uncertainty**: an uncertainty ("± 0.25", "+0.40 −0.39") counts against it where
  the question asks for a value, the value those follow where it asks for an uncertainty;
* **the numbers the question states** ("at ET ∼ 1 TeV", "the 8 TeV data"): the value whose
  sentence states that one for it (the nearest of its kind within its clause, or its table
  row's label: "1-lepton") counts for, one whose sentence states only others of that kind
  against;
* **one-to-one pairings**: the value paired with the name the question names counts for, the
  others of its pairing against: a "…, respectively" list ("1256, 1252 and 1260 MeV for the
  isobar, K-matrix and QMI approaches"), a bracketed pair ("94.5% (96.2%) … the belle (babar)
  results", "1.7 (2.6) … at √s = 7 (8) TeV"), names following a list ("x and y for the A
  and B decays") and each value's name after it ("6.5σ for D0(2550), 6.8σ for D1(2600)");
* **its name**: in a sentence that assigns values to several names ("A(2015) = −0.96%, A(2016)
  = −1.05%"), the value assigned to the name the question names most, by the words that tell
  the names apart, counts for, the others against;
* **its word**: a value written right after one of the question's quantity words ("with a yield
  of 87%") counts for, and is not ruled out by kind;
* **an equation**: a value written as the right-hand side of a symbol the question names
  ("the value of AGamma": "agamma = (−5.9 ± 5.9) × 10⁻³"; M a mass, τ a lifetime, σ a cross
  section, Γ a width) counts for;
* **an interval's end**: where the question asks for the upper or lower end (edge, bound) of
  an interval, or the largest or smallest value of a range ("between 30% and 70%"), the value
  at that end of one its sentence states ("[0.0061, 2.0]", "7.7 × 10⁻²³ < τH < 1.3 × 10⁻²¹
  s") counts for, the other end against;
* **what a change comes to**: where the question asks what remains or results ("what fraction
  remains after the BDT"), the value a "from x to y" change comes to ("reducing from 30% to 6%")
  counts for, the one it comes from against (weighed as an interval's end);
* **what is counted**: where the question asks how many of something, a value whose own
  next words name it ("There are 320 categories in total") counts for; where it asks what
  share of something, a percentage "of" all of it ("77% of the signal decays");
* **a selection's bound**: a value that bounds a selection ("110 < mH < 200 GeV", "pT > 30
  GeV") counts against it where the question asks for no bound, limit or threshold;
* **around**: each qualifier the question names that the value's sentence names, in its
  clause or not ("Combining the Run 2 result with … Run 1 …, the combined result is: mH = 125.11 ±
  0.09 (stat.) ± 0.06 (syst.)"), a tie-break;
* **title words**: the share of the question's words the title names too (left out of its
  quantity words) that the value's sentence holds: "kstar" of "R_K*" in a paper on R_K and
  R_K*, a tie-break;
* **rank**: the retrieval rank of its passage, falling evenly to nothing at the tenth: the
  fused retrieval reads the whole question and its analysis, which a sentence's words do not.

Siblings are the other values of the chosen one's sentence or table row that a class
tells apart (observed 5.0 σ · expected 5.8 σ): shown beside it, each labelled.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Sequence

from mitra.answer.asked import Asked
from mitra.answer.claims import PassageText, Quote, answers_asked, narrowed, problem_of, resolved
from mitra.answer.decays import another_decay, decays
from mitra.answer.figures import small_whole
from mitra.answer.pairing import (assigned, bound, changed_to, counted, equated, interval_end, negated, particle_after,
                                  setting, stated_elsewhere, worded)
from mitra.answer.phrases import adjacent, phrase_share
from mitra.answer.respective import respective
from mitra.answer.qualifiers import DATA, DEFAULTS, STRICT, SUBJECTS, qualifiers
from mitra.answer.quantities import Mention
from mitra.answer.value_weights import TIE_BREAKS, WEIGHTS, score
from mitra.core.text import tokenize
from mitra.core.types import Hit

# The order a label names a value's qualifiers in: "observed local", "expected upper γγ".
_LABEL_ORDER = ("measure", "significance", "limit", "uncertainty", "channel", "category", "mediator", "region", "run",
                "split")
_REFERENCE = re.compile(r"\[[\d\s,;–-]*\d?\Z")
_REFERENCE_END = re.compile(r"[\d\s,;–-]*\]")
_CL = re.compile(r"\s*(?:CL|C\.\s?L\.|CLs|confidence|credib)", re.I)
# A value shown first needs this share of the question's quantity words in its sentence.
MIN_SENTENCE_SHARE = 0.4
# The passage rank at which the rank signal reaches nothing (1/(1 + rank), set first, fell too
# steeply: docs/benchmarks.md)
RANK_REACH = 10


def label_of(qualifiers: dict[str, frozenset[str]]) -> str:
    """The qualifiers a value is stated for, in words: "observed local", "expected 13 TeV"."""
    parts = []
    for cls in _LABEL_ORDER:
        values = sorted(qualifiers.get(cls, frozenset()) - {"central value"})
        if cls in ("channel", "category") and values == sorted(DEFAULTS.get(cls, frozenset())):
            continue
        if cls == "channel" and "combined" in values and len(values) > 2:  # "γγ + WW + ZZ combined"
            values = [" + ".join(v for v in values if v != "combined"), "combined"]
        parts += values
    return " ".join(parts)


@dataclass
class Candidate:
    """One value a passage states, with why it may answer the question."""

    hit: Hit
    rank: int  # of its passage in retrieval, from 0
    mention: Mention
    score: float = 0.0
    signals: dict[str, float] = field(default_factory=dict)
    also: list["Candidate"] = field(default_factory=list)  # its value's other statements, best first

    @property
    def label(self) -> str:
        return label_of(self.mention.qualifiers)

    def quote(self, passage: int) -> Quote:
        m = self.mention
        return Quote(passage=passage, sentence=m.sentence, number=m.as_written, start=m.span[0],
                     end=m.span[1], label=self.label)

    def same(self, other: "Candidate") -> bool:
        return self.mention.restates(other.mention)


def _idf(sentences: Sequence[set[str]], words: frozenset[str]) -> dict[str, float]:
    count = len(sentences) or 1
    return {w: math.log(1 + count / (1 + sum(w in s for s in sentences))) for w in words}


# The abbreviations a table's labels write for a question's words ("N sig | 2573 ± 156").
_SHORT = {short: frozenset(tokenize(full)) for short, full in (
    ("sig", "signal"), ("nsig", "signal yield"), ("bkg", "background"), ("nbkg", "background yield"),
    ("eff", "efficiency"), ("syst", "systematic"), ("stat", "statistical"), ("lumi", "luminosity"),
    ("frac", "fraction"), ("bf", "branching fraction"), ("corr", "correction"),
    # a systematics table's columns and rows ("parameter | back. | eff. | …", "ρ(770)0 ph.")
    ("back", "background"), ("ph", "phase"), ("mag", "magnitude"), ("res", "resolution"), ("reso", "resolution"),
    ("acc", "acceptance"), ("sel", "selection"), ("norm", "normalisation normalization"), ("trig", "trigger"),
    ("unc", "uncertainty"), ("sys", "systematic"), ("pid", "particle identification"))}


def _share(words: set[str], weights: dict[str, float], acronyms: dict[str, frozenset[str]]) -> float:
    """The weighted share of the question's quantity words among ``words``, an acronym of
    the question's words ("HWHM") or an abbreviation ("sig") counting as the words."""
    words = words.union(*(acronyms[w] for w in words & acronyms.keys()), *(_SHORT[w] for w in words & _SHORT.keys()))
    total = sum(weights.values())
    return sum(v for w, v in weights.items() if w in words) / total if total else 0.0


# Kinds written with their unit (a lifetime, a mass or energy, a cross-section, a luminosity),
# which a percentage can state relatively: "the luminosity uncertainty is 3.6%", "the energy
# response is stable to 0.05%", "a mass resolution of 1.2%".
UNIT_KINDS = frozenset({"energy", "luminosity", "cross section", "time", "length", "angle"})
# Quantities that are ratios, written without a unit.
_RATIO = re.compile(r"\bbranching (?:fraction|ratio)s?\b|\bsignal strengths?\b|\basymmetr|\bcoupling modifiers?\b"
                    r"|\bratios?\b|\bfractions?\b|\bprobabilit|\bpurit|\befficienc", re.I)


# A mass asked for (not a momentum), and a value in GeV/c, a momentum: "6 < pT < 8 GeV/c" for the
# dimuon mass window "8.8 < m(μμ) < 11.0 GeV/c2". The unit is read from the first one written after it.
_ASKS_MASS = re.compile(r"\bmass(?:es)?\b(?![- ](?:difference|resolution))", re.I)
_ASKS_MOMENTUM = re.compile(r"\bmoment(?:um|a)\b|\bp_?T\b|transverse", re.I)
_ENERGY_UNIT = re.compile(r"eV\s?/\s?c(?P<squared>\s?\^?\s?[2²])?|eV\b")


def _momentum_for_mass(asked: Asked, m: Mention) -> bool:
    if m.kind != "energy" or not _ASKS_MASS.search(asked.text) or _ASKS_MOMENTUM.search(asked.text):
        return False
    unit = _ENERGY_UNIT.search(m.sentence, m.span[0], m.span[1] + 40)
    return unit is not None and unit.group().startswith("eV/") and not unit.group("squared")


# A question asking a share or a change ("what fraction of the signal yield", "by how much does it
# increase the yield"), which a percentage states whatever the kind of the whole.
_RELATIVE = re.compile(r"(?<!branching )\bfractions?\b|\bby how much\b|\bproportion\b|\bshare\b", re.I)


def _kind_fits(asked: Asked, m: Mention) -> bool | None:
    """True: the kind asked; None: either says none (a table cell under "Obs. (exp.)
    significance" has no unit), or a percentage of a kind stated relatively; False: another
    kind (ruled out)."""
    if m.kind == "luminosity" and (asked.kind != "luminosity" or (asked.spread and not m.spread)):
        return False  # "9 fb⁻¹": the data a result is stated on, not the result, nor its luminosity's uncertainty
    if _momentum_for_mass(asked, m):
        return False
    if asked.kind == "count" and m.power is not None and m.power < 0:
        return False  # "how many decays": not the "10-8" of a branching fraction
    if not asked.kind and (m.kind in UNIT_KINDS or m.kind == "significance") and _RATIO.search(asked.text):
        return False  # a branching fraction, a signal strength, an asymmetry has no unit: not "125 GeV", not "15 σ"
    stated_relatively = asked.kind in UNIT_KINDS or bool(_RELATIVE.search(asked.text))
    if not asked.kind or not m.kind or (m.kind == "percent" and stated_relatively):
        return None
    return asked.kind == m.kind


def _contradicted(asked: dict[str, frozenset[str]], stated: dict[str, frozenset[str]]) -> bool:
    """Does the value's clause name another value of a class the question names (expected for
    observed, the vector mediator for the axial-vector one, one channel for the combination)?"""
    for cls, values in stated.items():
        said = asked.get(cls, frozenset())
        if said and values and not (said & values):
            return True
        if cls == "channel" and said and ("combined" in said) != ("combined" in values) and len(values - {"combined"}) != 1:
            return True
    return False


def _part(asked: dict[str, frozenset[str]], stated: dict[str, frozenset[str]]) -> float:
    """1 where the value is stated for a part of the data the question names, or for more
    (Run 2 alone for "Run 1 and Run 2 combined", 7 and 8 TeV together for "the 8 TeV data")."""
    return 1.0 if any(asked.get(cls) and stated.get(cls) and asked[cls] & stated[cls] and asked[cls] != stated[cls]
                      for cls in DATA) else 0.0


def _one_of_combined(asked: dict[str, frozenset[str]], stated: dict[str, frozenset[str]]) -> float:
    """1 where the question asks channels combined ("combining the γγ and 4ℓ channels") and
    the value is stated for one of them, whatever setting the two share."""
    said, named = asked.get("channel", frozenset()) - {"combined"}, stated.get("channel", frozenset())
    return 1.0 if len(said) >= 2 and len(named) == 1 and named <= said else 0.0


def _by_default(asked: dict[str, frozenset[str]], stated: dict[str, frozenset[str]]) -> bool:
    """The question names a value of a class whose unnamed value is another (an expected
    limit), and the value's clause names none: read as the default (observed)."""
    return any(values - DEFAULTS[cls] and not stated.get(cls) for cls, values in asked.items() if cls in DEFAULTS)


def _told_apart(asked: dict[str, frozenset[str]], shown: Sequence[Mention]) -> dict[str, frozenset[str]]:
    """The question's qualifiers less those of a subject class (the channel, the state …) the
    shown passages state no other value of: in a paper on Z → μμ alone a value need not say
    "μμ", and one that does not is not the combination's."""
    return {cls: values if cls not in SUBJECTS or any(m.qualifiers.get(cls, frozenset()) - values for m in shown)
            else frozenset() for cls, values in asked.items()}  # still named: a value naming it is no other's


def is_reference(m: Mention) -> bool:
    """"[35]", "[33–35]", "[29, 30]": a reference to the literature, not a value; "[0, 0.45]", a
    range of decimals, is none."""
    opened = _REFERENCE.search(m.sentence, 0, m.span[0] + 1)
    closed = _REFERENCE_END.match(m.sentence, m.span[1]) if opened else None
    return closed is not None and "." not in m.sentence[opened.start():closed.end()]


def _bare(asked: Asked, m: Mention) -> bool:
    """A whole number under ten with no unit, in prose, where no count is asked for ("2
    standard deviation intervals", "Figure 7", "1."): a label or a word as often as a value."""
    return asked.kind != "count" and "|" not in m.sentence and small_whole(m.value, m.unit, m.power, m.written)


def _other_side(asked: Asked, m: Mention) -> bool:
    """An uncertainty ("± 0.25") where the question asks for a value, or the value its
    uncertainties follow where it asks for an uncertainty."""
    if asked.spread:
        return "central value" in m.qualifiers.get("uncertainty", frozenset())
    return m.spread


# The collaborations a value may be stated for, as ``tokenize`` spells them.
_EXPERIMENTS = frozenset(tokenize("ATLAS CMS LHCb ALICE CDF Tevatron Belle BaBar"))


def _other_experiment(named: frozenset[str], m: Mention) -> bool:
    """Does the value's clause name only collaborations other than ``named``, those the
    question (or else the title) names? CMS's Run 1 + Run 2 mass in the introduction of
    ATLAS's paper is not ATLAS's."""
    stated = m.words & _EXPERIMENTS
    return bool(named and stated and not named & stated)


def _confidence_level(m: Mention) -> bool:
    """"95% CL", "at 90% confidence level": the level a limit is set at, not a value."""
    return m.unit == "%" and bool(_CL.match(m.sentence, m.span[1]))


@lru_cache(maxsize=4096)
def _sentence_qualifiers(sentence: str) -> dict[str, frozenset[str]]:
    """Every qualifier the sentence names, bound to its value or not."""
    out: dict[str, set[str]] = {}
    for cls, value, _, _ in qualifiers(sentence):
        out.setdefault(cls, set()).add(value)
    return {cls: frozenset(v) for cls, v in out.items()}


def candidates(asked: Asked, hits: Sequence[Hit]) -> list[Candidate]:
    """Every value the passages state that the question does not rule out, best first, one
    per value (its best statement)."""
    passages = [PassageText.of(rank, hit) for rank, hit in enumerate(hits)]
    everything = [m for p in passages for m in p.mentions]
    tokens_of = {m.sentence: tokenize(m.sentence) for m in everything}  # each sentence tokenized once
    words_of = {sentence: set(tokens) for sentence, tokens in tokens_of.items()}
    pairs_of = {sentence: adjacent(tokens) for sentence, tokens in tokens_of.items()} if asked.phrases else {}
    weights = _idf(list(words_of.values()), asked.quantity)
    titled = _idf(list(words_of.values()), asked.title_words)
    texts = [set(tokenize(f"{p.heading} {p.text}")) for p in passages]
    collaborations = asked.word_set & _EXPERIMENTS or frozenset(tokenize(asked.title)) & _EXPERIMENTS
    beyond = _told_apart(asked.beyond_title, everything)
    asked_decays = decays(asked.text)
    found: list[Candidate] = []
    for rank, (hit, passage) in enumerate(zip(hits, passages)):
        heading = set(tokenize(passage.heading))
        for m in passage.mentions:
            named_by = worded(asked, m)
            fits = _kind_fits(asked, m)
            if named_by and fits is False:  # "a yield of 87%" for "with what yield", though a yield reads as a count
                fits = None
            if (m.condition or fits is False or _confidence_level(m) or is_reference(m)
                    or _other_experiment(collaborations, m)):
                continue
            stated = narrowed(m, resolved(everything, m))
            if _contradicted(asked.qualifiers, stated):
                continue
            problem = problem_of(asked.context, stated, m, everything)
            one_of = _one_of_combined(asked.qualifiers, stated)  # γγ alone is not named by "γγ and 4ℓ combined"
            named = sum(1 for cls, values in asked.beyond_title.items()
                        if stated.get(cls, frozenset()) & values and not (one_of and cls == "channel"))
            in_sentence = _sentence_qualifiers(m.sentence)
            around = sum(len(values & in_sentence.get(cls, frozenset())) for cls, values in asked.qualifiers.items())
            signals = {"named": named, "clause": _share(set(m.words), weights, asked.acronyms),
                       "sentence": _share(words_of[m.sentence] | heading | m.words, weights, asked.acronyms),
                       "passage": _share(texts[rank], weights, asked.acronyms),
                       "title words": _share(words_of[m.sentence] | m.words, titled, asked.acronyms),
                       "phrase": phrase_share(asked, pairs_of.get(m.sentence, frozenset()), m.column),
                       "kind": 1.0 if fits else 0.0, "rank": max(0.0, 1 - rank / RANK_REACH),
                       "left out": 1.0 if problem is not None or not answers_asked(beyond, stated) else 0.0,
                       "channel left out": 1.0 if problem is not None and problem[1] in STRICT else 0.0,
                       "default": 1.0 if _by_default(beyond, stated) else 0.0,
                       "bare": 1.0 if _bare(asked, m) else 0.0, "spread": 1.0 if _other_side(asked, m) else 0.0,
                       "setting": setting(asked, m), "respective": respective(asked, m),
                       "equated": equated(asked, m), "bound": bound(asked, m),
                       "end": interval_end(asked, m), "around": around, "counted": counted(asked, m),
                       "changed to": changed_to(asked, m), "negated": negated(asked, m),
                       "particle after": particle_after(asked, m), "elsewhere": stated_elsewhere(asked, m),
                       # the title's qualifiers fill what the question leaves open; a value they contradict
                       # may still be the one asked ("the partial Run 2 mass … in H → ZZ and H → γγ")
                       "title contradicted": 1.0 if _contradicted(asked.context, stated) else 0.0,
                       "worded": named_by, "assigned": assigned(asked, m),
                       # not scored (as a signal it did not pay): it only keeps the value from being sure
                       "another decay": 1.0 if another_decay(asked_decays, m.sentence.split(" | ", 1)[0]) else 0.0}
            # the value its sentence pairs with the setting asked ("5.1 and 19.7 fb-1 for 7 and 8 TeV,
            # respectively") is stated for that part alone
            signals["part"] = max(0.0 if signals["setting"] > 0 else _part(asked.qualifiers, stated), one_of)
            found.append(Candidate(hit, rank, m, score(signals), signals))
    found.sort(key=lambda c: (-c.score, c.rank))
    best: list[Candidate] = []
    for c in found:
        kept = next((b for b in best if c.same(b)), None)
        if kept is None:
            best.append(c)
        else:
            kept.also.append(c)
    return best


# Before a number: it is stated roughly ("∼90%", "about 3 σ", "up to 1%"), not as a result is.
_APPROXIMATE = re.compile(r"(?:[∼~≈]|\b(?:approximately|about|around|roughly|of order|up to)\s)\s*\Z", re.I)


def confident(ranked: Sequence[Candidate], margin: float) -> bool:
    """Is the first candidate clear enough to show before any model reads it: its sentence
    holds enough of the question's quantity words, it leaves out nothing the shown passages
    tell apart, it is no selection's bound, bare small number, number the question states or
    value stated for another decay (``decays``), and the next value trails it by ``margin``?"""
    if not ranked:
        return False
    first = ranked[0]
    if first.signals["sentence"] < MIN_SENTENCE_SHARE or first.signals["left out"]:
        return False
    if first.signals["bound"] or first.signals["bare"] or first.signals["setting"] < 0:
        return False  # a selection's bound ("0.98<q2<1.10"), a bare "7" of "7+8 TeV", the question's own "90%"
    if first.signals.get("another decay"):
        return False  # "Bs → KS K± π∓ | 4.64" for the branching fraction of Bs → K+K−
    if _APPROXIMATE.search(first.mention.sentence, max(0, first.mention.span[0] - 16), first.mention.span[0]):
        return False  # "within ∼90% of the 4ℓ-only best fit value": a figure of speech, not the result
    if len(ranked) == 1:
        return True
    # the tie-breaks never make a lead clear ("around" had lifted one over the margin)
    ties = sum(WEIGHTS[name] * (first.signals.get(name, 0) - ranked[1].signals.get(name, 0)) for name in TIE_BREAKS)
    return first.score - ranked[1].score - ties >= margin


def _named(m: Mention, cls: str, default: bool = True) -> frozenset[str]:
    """The qualifiers of ``cls`` a value is stated for; with ``default``, a value that names no
    measure is the observed one ("2.10 TeV are excluded, … compared with expected exclusions of
    … 2.20 TeV"), on either side: the expected 2.20 TeV has the observed 2.10 TeV beside it."""
    return m.qualifiers.get(cls) or (DEFAULTS["measure"] if default and cls == "measure" else frozenset())


def observed(m: Mention) -> Mention:
    """A value in prose that names no measure, read as the observed one where a value beside it
    is expected: labelled "observed vector", not "vector", beside "expected vector"."""
    if "measure" in m.qualifiers or "|" in m.sentence:
        return m
    return replace(m, qualifiers={**m.qualifiers, "measure": DEFAULTS["measure"]})


def siblings(chosen: Candidate, hits: Sequence[Hit]) -> list[Candidate]:
    """The other values of the chosen one's sentence (or table row) of its kind, told apart
    from it by a class both name: shown beside it, each with its label (the observed one
    named so beside an expected one)."""
    passage = PassageText.of(chosen.rank, chosen.hit)
    out: list[Candidate] = []
    for m in passage.mentions:
        if m.sentence != chosen.mention.sentence or m.condition or m.same_value(chosen.mention):
            continue
        if not m.compatible_kind(chosen.mention) or m.kind != chosen.mention.kind:
            continue
        # a table cell naming no measure is another column's ("μttH | 1.12" beside "Obs. (exp.)"), not the observed one
        prose = "|" not in m.sentence
        apart = [cls for cls in _LABEL_ORDER if (theirs := _named(m, cls, prose))
                 and (ours := _named(chosen.mention, cls)) and theirs != ours]
        if apart:
            out.append(Candidate(chosen.hit, chosen.rank, m))
    if any("measure" in c.mention.qualifiers for c in [chosen, *out]):
        out = [Candidate(c.hit, c.rank, observed(c.mention)) for c in out]
    return out
