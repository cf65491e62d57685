"""Where a value's own sentence pairs it with what the question names: the numbers the
question states ("at ET ∼ 1 TeV"; the name a one-to-one pairing gives it is ``respective``'s),
the symbol an equation gives it ("agamma =") and the name one of
several assignments gives it ("A(2015) = …, A(2016) = …"); and where it only bounds a selection
("110 < mH < 200 GeV"). Signals of the candidate ranking (``candidates``).
"""

from __future__ import annotations

import re
from decimal import Decimal
from functools import lru_cache

from mitra.answer.asked import Asked
from mitra.answer.figures import Figure, base_value, sentence_figures
from mitra.answer.lists import RESPECTIVELY
from mitra.answer.qualifiers import SYMBOL_WORDS
from mitra.answer.quantities import SELECTION_BOUND, Mention
from mitra.answer.respective import bracket_pair
from mitra.core.hadrons import particle_words
from mitra.core.text import tokenize

_BOUNDARY = re.compile(r"[,;]|\band\b")


def _value_at(m: Mention, found: list[Figure] | tuple[Figure, ...]) -> int | None:
    """The index of the value's own figure among its sentence's ``found`` figures."""
    return next((i for i, f in enumerate(found) if f.start == m.span[0]), None)


def _past_spreads(found: list[Figure] | tuple[Figure, ...], at: int) -> int:
    """The index of the last of the uncertainties written after the figure at ``at`` ("162 909 ± 516"), or ``at``."""
    while at + 1 < len(found) and found[at + 1].spread:
        at += 1
    return at


def setting(asked: Asked, m: Mention) -> float:
    """The numbers the question states of another kind than the value ("at ET ∼ 15 GeV",
    "at η around 1.2", "the 8 TeV data"): +1 each where the value's sentence states that one
    for it (the nearest of its kind, within its clause first, or its partner in a "…,
    respectively" list or a bracketed pair, "1.7 (2.6) … at √s = 7 (8) TeV", or its table
    row's label or column's header: "1-lepton", "region 4"), −1 where it states only others of
    that kind, or pairs another; −1 for a value the question itself states ("in the 90% signal
    window"): a setting, not what it asks."""
    found = sentence_figures(m.sentence)
    if any(_same(m_figure, wanted) for m_figure in found if m_figure.start == m.span[0] for wanted in asked.stated):
        return -1.0  # the question states it: a setting of what it asks ("in the 90% window"), not the answer
    score = 0.0
    label = _label_numbers(_row_label(m.sentence, m.span[0])) if " | " in m.sentence else ()
    # each number the question states counts once: "tt 2-lepton 2-jet" for "the 2-jet category"
    matched: set[int] = set()
    for f in label:  # a table row's label names its row ("1-lepton", "7 TeV"), whatever kind its cells are
        # a label's number may leave its unit to the header: "95.5" is the row of "the nominal 95.5% interval"
        alike = [k for k, wanted in enumerate(asked.stated) if _alike(f, wanted.unit, wanted.kind)
                 or (not f.unit and f.value == wanted.value)]
        same = {k for k in alike if _same(f, asked.stated[k]) or f.value == asked.stated[k].value}
        if alike and not same:
            score -= 1.0
        matched |= same
    # a column's header names its cells too ("Phase space region 4"), but may number what is no
    # setting of theirs ("Run 2 (2015-2016)" over a yield): it only counts for
    column = _label_numbers(m.column)
    by_column = {k for f in column for k, wanted in enumerate(asked.stated) if _same(f, wanted)}
    # a column of one year is part of "the 2011–2012 data", not the data asked
    if not any(f.year and wanted.year for f in column for k, wanted in enumerate(asked.stated)
               if k not in by_column):
        matched |= by_column
    score += len(matched)
    at = _value_at(m, found)
    pair = bracket_pair(found, at) if at is not None else None
    for wanted in asked.stated:
        if _alike(wanted, m.unit, m.kind) or any(_alike(f, wanted.unit, wanted.kind) for f in label):
            continue
        settings = [f for f in found if _alike(f, wanted.unit, wanted.kind) and f.start != m.span[0]]
        if not settings:
            continue
        values = [f.start for f in found if _alike(f, m.unit, m.kind) and f not in settings and not f.paren]
        paired = next(((a, b) for a, b in zip(settings, settings[1:]) if not a.paren and b.paren), None)
        if pair is not None and paired is not None:  # "1.7 (2.6) … for √s = 7 (8) TeV": one to one
            score += 1.0 if _same(paired[pair.index(at)], wanted) else -float(any(_same(f, wanted) for f in paired))
            continue
        if RESPECTIVELY.search(m.sentence) and len(values) == len(settings) > 1 and m.span[0] in values:
            partner = settings[values.index(m.span[0])]
        else:
            partner = min(settings, key=lambda f: _apart(m.sentence, m.span, f))
            if _nearer_beyond(m, partner, [f for f in found if f.start in values and f.start != m.span[0]]):
                continue  # "( 6σ ) … and its quantum numbers are 1++ ( 5.8σ )": the 1 is 5.8σ's
        if _same(partner, wanted):
            score += 1.0
        elif not any(_same(f, wanted) for f in settings) and not any(
                not f.unit and f.value == wanted.value for f in found):  # "0 < pT < 8 GeV": the 0 has no unit
            score -= 1.0
    return score


def _apart(sentence: str, span: tuple[int, int], f: Figure) -> tuple[bool, int]:
    """How far a setting stands from a value: first whether a clause boundary parts them
    ("0.4% at 10 GeV, and 0.3% at 1 TeV"), then the characters between."""
    between = sentence[span[1]:f.start] if f.start >= span[1] else sentence[f.end:span[0]]
    return bool(_BOUNDARY.search(between)), len(between)


def _nearer_beyond(m: Mention, setting: Figure, others: list[Figure]) -> bool:
    """Does another value on the far side of ``setting`` stand nearer to it than ``m`` does (the
    setting between them is that value's)?"""
    here = _apart(m.sentence, m.span, setting)
    return any((f.start > setting.start) != (m.span[0] > setting.start)
               and _apart(m.sentence, (f.start, f.end), setting) < here for f in others)


# A number a row's label glues onto its name: "ggH-cat4", "SR2", "bin3" (a figure would be a name's digits).
_GLUED_INDEX = re.compile(r"(?<=[^\W\d_])\d{1,2}\b")


def _row_label(row: str, at: int) -> str:
    """What names a table cell's row: its first cell, and the ranges in the cells before the
    value's ("D+ | 0 < pT < 8 GeV/c | 2.5 < y < 4 | … | 349 ± 4": the row of 2.5 < y < 4)."""
    first, *cells = row[:at].split(" | ")
    return " | ".join([first, *(c for c in cells[:-1] if _RANGE_CELL.fullmatch(c.strip()))])


# A cell that is a range alone, not an aligned equation's ("(1.5<y*<4.0, pT<14 GeV/c) | = 1625 …")
_RANGE_CELL = re.compile(r"[^=|]{0,40}[<>≤≥][^=|]{0,40}")


@lru_cache(maxsize=4096)
def _label_numbers(label: str) -> tuple[Figure, ...]:
    """The numbers a table row's label names its row by: its figures ("1-lepton", "7 TeV"),
    and an index glued onto a name ("ggH-cat4" is category 4 of "in ggH category 4")."""
    glued = tuple(Figure(g.start(), g.end(), g.end(), Decimal(g.group()), None) for g in _GLUED_INDEX.finditer(label))
    return tuple(sorted(sentence_figures(label) + glued, key=lambda f: f.start))


def _alike(f: Figure, unit: str, kind: str) -> bool:
    """Of one kind ("10 GeV" and "1 TeV"), or of one unit where neither names a kind."""
    return f.kind == kind if f.kind or kind else f.unit == unit


def _same(a: Figure, b: Figure) -> bool:
    return base_value(a.value, a.unit) == base_value(b.value, b.unit) and a.power == b.power


# "agamma = (−5.9 ± 5.9) × 10−3", "tau(Dz) = 410.2 fs", "-2betas = phis = (-2.35": the symbol an
# equation gives the value to, read back from its "=" to the clause's start or another "=";
# its arguments ("(Dz)") name what it is of, not what it is.
_EQUATED = re.compile(r"([^=,;:]{1,40})=[\s|]*\(?\s*[-−+]?\s*\Z")  # "Gamma0 | = | 1.4": an aligned equation
_ARGUMENTS = re.compile(r"\([^()]*\)")
_SYMBOL_START = re.compile(r"[^\W\d_][^\s]*(?:\s+\d+)?\s*\Z")  # "agamma", "x' 2", "tauBsToKK"
# A hat the PDF text layer puts between a symbol and its subscript: "κˆ F" is κ̂_F, the question's "κF".
_HAT = re.compile(r"[ˆ˜¯]\s+(?=[^\W\d_]{1,3}\s*\Z)")


def equated(asked: Asked, m: Mention) -> float:
    """1 where the value is written as an equation's right-hand side and the symbol it equals
    is one the question names ("the value of AGamma": "agamma = −5.9"; "the lifetime":
    "tauBsToKK = 1.407")."""
    if asked.kind and asked.kind != m.kind:
        return 0.0  # "the significance of the Re(C9) shift": not "Delta Re(C9) = −1.04", the shift itself
    found = _EQUATED.search(m.sentence, 0, m.span[0])
    symbol = _SYMBOL_START.search(_HAT.sub("", _ARGUMENTS.sub(" ", found.group(1)).rstrip(" |"))) if found else None
    if symbol is None:
        return 0.0
    head, *rest = tokenize(symbol.group()) or [""]
    # x' 2: x'², not x; "fK 0" as the question's "f_K0" writes it
    index = [t for t in rest[:1] if t.isdigit()]
    names = {SYMBOL_WORDS.get(head, head), *index, *(head + t for t in index)}
    return 1.0 if names & asked.quantity else 0.0


# "with a yield of 87%", "the efficiency is 92%": the value written right after a word naming it.
_WORDED = re.compile(r"([^\W\d_][\w-]*)\s+(?:of|is|was|are|were|=|:)\s+[-−+]?\(?\s*\Z")


def worded(asked: Asked, m: Mention) -> float:
    """1 where the value is written right after one of the question's quantity words ("With what
    yield were the assemblies produced?": "81 assemblies were produced with a yield of 87%"),
    which names it as plainly as an equation does."""
    found = _WORDED.search(m.sentence, 0, m.span[0])
    return 1.0 if found and set(tokenize(found.group(1))) & asked.quantity else 0.0


# "110 < mH < 200 GeV", "pT > 30 GeV", "|η| < 2.4": a bound of a selection, not a result,
# unless the question asks for a bound ("the upper limit on B", "the pT threshold").
_BOUND_AFTER = re.compile(r"\s*(?:[^\W\d_]{1,4}\s?/\s?c\s?2?\s*)?[<>≤≥]")
_ASKS_BOUND = re.compile(r"\blimit|\bbound|threshold|\bcuts?\b|requir|window|\branges?\b|\bmin|\bmax|\bat (?:least|most)"
                         r"|\babove\b|\bbelow\b|exceed|\b(?:less|more|greater|smaller|lower|higher) than"
                         r"|\bmust\b|\bneed|trigger|\bselect|\baccept|\ballow|criteri|\bpass", re.I)


# A question asking for a selection's cut, which a bound written "pT miss > 250 GeV" states.
# "greater than 15", "exceeding 1.7 (2.6)", "greater than 800 and 500 MeV/c, respectively": the bracketed
# value of a pair, and each of a list, is the bound's too
_BOUND_WORDS = re.compile(r"\b(?:(?:greater|larger|smaller|less|lower|higher) than|exceed(?:ing|s)?)\s*"
                          r"(?:[\d.]+\s*(?:\(|,|\band\b|\bor\b)\s*)*\Z", re.I)
_ASKS_CUT = re.compile(r"threshold|\bcuts?\b|\brequire[sd]?\b|\bminimum\b|\bmaximum\b|\bat (?:least|most)\b",
                       re.I)


def bound(asked: Asked, m: Mention) -> float:
    """1 where the value bounds a selection ("110 < mH < 200 GeV") and the question asks for
    no bound; −1 where it asks for a cut ("What pTmiss threshold does the signal region
    require?": "pT miss > 250 GeV", not "a trigger with a threshold of 200 GeV")."""
    is_bound = _is_bound(m)
    if _ASKS_BOUND.search(asked.text) and asked.kind != "count":  # a count is no bound: "the yield over the q² ranges"
        # a cut in words too ("separated … with a significance greater than 15"); but "more than 75%" of a
        # result is no selection, so words alone never count against a value
        in_words = bool(_BOUND_WORDS.search(m.sentence, max(0, m.span[0] - 40), m.span[0]))
        return -1.0 if (is_bound or in_words) and _ASKS_CUT.search(asked.text) else 0.0
    return 1.0 if is_bound else 0.0


def _is_bound(m: Mention) -> bool:
    return bool(SELECTION_BOUND.search(m.sentence, max(0, m.span[0] - 6), m.span[0])
                or _BOUND_AFTER.match(m.sentence, m.span[1]))


# "the upper end of the 95% CL interval", "the lower edge", "the upper bound on τH", "the largest
# size" (of "between 30% and 70%"): one end asked.
_ASKS_END = re.compile(r"\b(upper|lower)\s+(?:end|edge|bound|boundary)\b"
                       r"|\b(largest|highest|smallest|lowest)\b(?!\s+(?:of|among)\b)", re.I)  # "minimum": a cut
_UPPER = ("upper", "largest", "highest")
_BETWEEN = re.compile(r"\bbetween\s+\Z", re.I)
# Between an interval's two ends: "[0.0061, 2.0]", "124–164", "1 GeV to 3 TeV", "7.7 × 10-23 < τH < 1.3".
_BETWEEN_ENDS = re.compile(r"\s*(?:[^\W\d_]{1,4}(?:\s?/\s?c\s?2?)?\s*)?(?:,|–|−|-|to|<[^<>\d]{1,15}<)\s*\Z")


def interval_end(asked: Asked, m: Mention) -> float:
    """Where the question asks for one end of an interval: +1 for the value at that end of
    the interval its sentence states, −1 for the value at the other end."""
    wanted = _ASKS_END.search(asked.text)
    found = sentence_figures(m.sentence)
    at = _value_at(m, found)
    if wanted is None or at is None:
        return 0.0

    def joined(a: Figure, b: Figure) -> bool:
        gap = m.sentence[a.end:b.start]
        if re.fullmatch(r"\s*(?:%\s*)?and\s*", gap):  # "varying between 30% and 70%"
            return bool(_BETWEEN.search(m.sentence, 0, a.start))
        bracketed = not gap.strip().startswith(",") or (
            "[" in m.sentence[max(0, a.start - 2):a.start + 1] and "]" in m.sentence[b.end:b.end + 2])
        return bool(_BETWEEN_ENDS.match(gap)) and bracketed

    lower = at + 1 < len(found) and joined(found[at], found[at + 1])
    upper = at > 0 and joined(found[at - 1], found[at])
    if lower == upper:
        return 0.0
    return 1.0 if ((wanted.group(1) or wanted.group(2)).lower() in _UPPER) == upper else -1.0


# "reducing from 30% to 6%": a change's two values, the one it comes to after "to"
_FROM = re.compile(r"\bfrom\s+\Z", re.I)
_TO = re.compile(r"\s*to\s+\Z", re.I)
# A question asking what a change comes to: "what fraction remains", "after the BDT", "reduced to"
_ASKS_OUTCOME = re.compile(r"\bremains?\b|\bafter\b|\bleft\b|\b(?:reduced|increased|lowered|raised) to\b", re.I)


def changed_to(asked: Asked, m: Mention) -> float:
    """Where the question asks what a change comes to: +1 for the value a "from x to y" change
    comes to ("reducing from 30% to 6% the amount of ghost events"), −1 for the one it comes from."""
    if not _ASKS_OUTCOME.search(asked.text):
        return 0.0
    found = [f for f in sentence_figures(m.sentence) if not f.spread]
    at = _value_at(m, found)
    if at is None:
        return 0.0

    def change(a: Figure, b: Figure) -> bool:
        return bool(_FROM.search(m.sentence, max(0, a.start - 8), a.start) and _TO.match(m.sentence[:b.start], a.end))

    if at > 0 and change(found[at - 1], found[at]):
        return 1.0
    return -1.0 if at + 1 < len(found) and change(found[at], found[at + 1]) else 0.0


# "How many fully reconstructed … signal decays are found": what is counted, up to its verb.
_HOW_MANY = re.compile(r"\bhow many\s+(.{1,80}?)(?:\s+(?:are|is|were|was|do|does|did|have|has|remain|pass)\b|\?|$)",
                       re.I)
_COUNTED_WORDS = 3
# "What fraction of signal decays does the BDT keep": what the share is of, up to its verb.
_WHAT_FRACTION = re.compile(r"\b(?:fraction|percentage|proportion|share)\s+of\s+(.{1,80}?)"
                            r"(?:\s+(?:are|is|were|was|do|does|did|have|has|remain|pass)\b|\?|$)", re.I)
# After a percentage, what it is of: "preserving 77% of the signal decays".
_SHARE_OF = re.compile(r"\s*of\s+((?:\S+\s+){0,3}\S+)")


def counted(asked: Asked, m: Mention) -> float:
    """1 where the question asks how many of something and the value's own next words, past
    its uncertainties, name it ("There are 320 categories in total", "162 909 ± 516 signal
    decays in the SR", "3000 signal candidates"), or asks what share of something and the
    percentage is "of" it ("rejects 75% of the combinatorial background while preserving 77%
    of the signal decays")."""
    found = sentence_figures(m.sentence)
    at = _value_at(m, found)
    if at is None or _is_bound(m):  # "… < 5.4 … candidates": a cut on them
        return 0.0
    last = _past_spreads(found, at)
    if (wanted := _HOW_MANY.search(asked.text)) is not None:
        following = " ".join(m.sentence[found[last].num_end:].split()[:_COUNTED_WORDS])
        return 1.0 if set(tokenize(following)) & (asked.content & set(tokenize(wanted.group(1)))) else 0.0
    if m.unit == "%" and (wanted := _WHAT_FRACTION.search(asked.text)) is not None:
        # all of what the share is of: "1% of the signal yield for the regions 2 and 3" is not of
        # "the signal yield in region 4"
        share = _SHARE_OF.match(m.sentence, found[last].end)
        need = asked.content & set(tokenize(wanted.group(1)))
        return 1.0 if share and need and need <= set(tokenize(share.group(1))) else 0.0
    return 0.0


# "A(2015) = (−0.96 ± 0.32)%, A(2016) = (−1.05 ± 0.13)%", "κ = 1.84 … and R(D*−) = 0.267": a
# sentence that assigns values to several names, of which the question names one.
_NAME_STOP = re.compile(r"[,;:=]|\b(?:and|are|is|be|of|for|the|to|with|by)\b", re.I)
_TO_VALUE = re.compile(r"[\s|(]*[-−+]?\s*")
_BRACKETED = re.compile(r"\([^()]*\)|\[[^\[\]]*\]|\{[^{}]*\}")


def _masked(text: str) -> str:
    """The text with its brackets blanked, innermost first, so that a comma inside "(1.5<y*<4.0,
    pT < 14)" or "BR(B0 -> D0 f2(1270), …)" stops nothing."""
    while True:
        masked = _BRACKETED.sub(lambda b: " " * len(b.group(0)), text)
        if masked == text:
            return masked
        text = masked


@lru_cache(maxsize=4096)
def _assignments(sentence: str) -> tuple[tuple[int, frozenset[str]], ...]:
    """Each "=" of the sentence (not "<=", ">=") with the tokens of the name it assigns to."""
    masked = _masked(sentence)
    out = []
    for eq in (i for i, c in enumerate(masked) if c == "=" and masked[i - 1:i] not in ("<", ">", "!")):
        stop = max((s.end() for s in _NAME_STOP.finditer(masked, max(0, eq - 80), eq)), default=max(0, eq - 80))
        tokens = tokenize(sentence[stop:eq])
        # "fK 0" is f_K0 with its subscript split off
        out.append((eq, frozenset(tokens) | {a + b for a, b in zip(tokens, tokens[1:])}))
    return tuple(out)


def assigned(asked: Asked, m: Mention) -> float:
    """1 where the value is assigned to the one name of its sentence's assignments that the
    question names most, −1 where another is named more; 0 with one assignment or a tie. Only
    the words that tell the names apart count: "A det(2015)" and "A det(2016)" by the year."""
    found = _assignments(m.sentence)
    before = [i for i, (eq, _) in enumerate(found) if eq < m.span[0]]
    if len(found) < 2 or not before or not _TO_VALUE.fullmatch(m.sentence[found[before[-1]][0] + 1:m.span[0]]):
        return 0.0
    own = before[-1]
    shared = frozenset.intersection(*(names for _, names in found))
    named = [len((names - shared) & asked.content) for _, names in found]
    best = max(named)
    if named[own] < best:
        return -1.0
    return 1.0 if named.count(best) == 1 and best > 0 else 0.0


# "with timing information" / "without PID requirements": what the question asks with or without.
_WITH = re.compile(r"\b(with\s+no|without|with|no)\s+(?:(?:a|an|the|its|their)\s+)?([^\W\d_][\w-]*)", re.I)
# where a clause ends: "…reach 20%, while this can be reduced to 5% with a timing precision"
_CLAUSE_END = re.compile(r";|,\s*(?:while|whereas|but)\b|\bwhile\b|\bwhereas\b", re.I)


def _clause(m: Mention) -> str:
    start = max((e.end() for e in _CLAUSE_END.finditer(m.sentence, 0, m.span[0])), default=0)
    end = _CLAUSE_END.search(m.sentence, m.span[1])
    return m.sentence[start:end.start() if end else len(m.sentence)]


def negated(asked: Asked, m: Mention) -> float:
    """1 where the value's clause names what the question asks with, but without it ("without
    timing the mis-association levels may reach 20%, while this can be reduced to 5% with a
    timing precision of 50 ps", or "a detector with no time information", asked with timing),
    or names what it asks without, but not so."""
    asked_with = _with_words(asked.text)
    if not asked_with:  # most questions: the value's clause is not read
        return 0.0
    clause = _clause(m)
    words = set(tokenize(clause))
    lacking = {word for word, with_it in _with_words(clause) if not with_it}
    return 1.0 if any(word in words and with_it == (word in lacking) for word, with_it in asked_with) else 0.0


def _with_words(text: str) -> list[tuple[str, bool]]:
    """Each word ``text`` says it is with (True) or without (False): "with timing" -> ("time", True)."""
    return [(named[0], found.group(1).lower() == "with") for found in _WITH.finditer(text)
            if (named := tokenize(found.group(2)))]


@lru_cache(maxsize=1)
def _particle_tokens() -> frozenset[str]:
    return frozenset(token for word in particle_words() for token in tokenize(word))


def _particles_after(sentence: str, found: tuple[Figure, ...], at: int) -> frozenset[str]:
    """The particles the word right after the value at ``at`` (past its uncertainties) names."""
    following = sentence[found[_past_spreads(found, at)].end:].split()[:1]
    return frozenset(tokenize(following[0])) & _particle_tokens() if following else frozenset()


def particle_after(asked: Asked, m: Mention) -> float:
    """In a list whose values each name their particle right after ("299 100 ± 2100 jpsi and
    7420 ± 130 psitwos mesons are found"): 1 for the value naming only particles the question
    names, −1 for another where one does."""
    found = sentence_figures(m.sentence)
    at = _value_at(m, found)
    if at is None or found[at].spread:
        return 0.0
    named = {i: _particles_after(m.sentence, found, i) for i, f in enumerate(found) if not f.spread}
    if sum(1 for particles in named.values() if particles) < 2:
        return 0.0
    asked_for = {i for i, particles in named.items() if particles and particles <= asked.word_set}
    if at in asked_for:
        return 1.0 if len(asked_for) < len([p for p in named.values() if p]) else 0.0
    return -1.0 if asked_for and named[at] else 0.0


# What a value is attributed to after it: another work ("observed in Ref.", "from Ref. [12]", "the previous
# measurement"), or the question asking for that work's figure.
_ELSEWHERE = re.compile(r"\b(?:in|from|of|by)\s+(?:Refs?\b|\[\d)|\bprevious(?:ly)?\b|\bearlier\b|\bprior\b", re.I)
_ASKS_ELSEWHERE = re.compile(r"\b(?:previous(?:ly)?|earlier|prior|former|old|Refs?\b|before)\b", re.I)
# how far after the value: "… to ± 0.032 to account for the acceptance following the recommendation in Ref."
# is this work's
_ELSEWHERE_CHARS = 45
_LIST_GAP = re.compile(r"[^.;()]{0,25}?(?:,|\band\b)\s*\(?\s*\Z")  # "2.8 and 3.0 sigma", "2.8 , 3.0"


def stated_elsewhere(asked: Asked, m: Mention) -> float:
    """1 where the words after the value (and the rest of its list), up to the next value and
    no further than ``_ELSEWHERE_CHARS``, give it to another work ("a tension of 2.4 sigma
    using the observables from Ref. and 2.7 sigma with the measurements reported here";
    "reduces from the 2.8 and 3.0 sigma observed in Ref. to 2.5 and 2.9 sigma") and the
    question asks for no earlier figure."""
    if _ASKS_ELSEWHERE.search(asked.text):
        return 0.0
    found = [f for f in sentence_figures(m.sentence) if not f.spread]
    at = _value_at(m, found)
    if at is None:
        return 0.0
    while at + 1 < len(found) and _LIST_GAP.match(m.sentence[found[at].end:found[at + 1].start]):
        at += 1
    end = min(found[at + 1].start if at + 1 < len(found) else len(m.sentence), found[at].end + _ELSEWHERE_CHARS)
    return 1.0 if _ELSEWHERE.search(m.sentence, found[at].end, end) else 0.0
