"""The numbers a text states, each with the quantity it is stated for.

A physics sentence puts several values of one kind side by side ("an observed local
significance of 5.0 σ, compared with an expected 5.8 σ"; "2.05 TeV and 2.10 TeV for the
axial-vector and vector mediators, respectively"), so a number found somewhere in a
passage says nothing about which quantity it is. ``mentions`` reads each number with its
unit and the *qualifiers* bound to it, in closed classes a physicist tells apart
(``qualifiers``: observed / expected, statistical / systematic, local / global, the decay
channel, the production category, the mediator, the data set, upper / lower, the data
split), plus the plain words of its clause for what no class names.

Binding is by clause, not by the whole sentence:

* a number's window runs back to the previous number of its kind (or the clause start)
  and forward to the next comma, conjunction or number; qualifiers in it are its own;
* "A (B) … x (y)" pairs the bracketed qualifier with the bracketed number;
* "…, respectively" pairs a class's values with the numbers before it, in order;
* "± 0.2 (stat)" binds the bracket to the number it follows, and only to it;
* a measure word in a comparison's reference ("above the expected background", "relative to
  the SM expectation") is not the value's, unless the value is the reference's own ("compared
  with an expected significance of 5.8 σ"); one left with both observed and expected takes its
  nearest measure word's, unless its sentence says both ("both the expected and observed");
* a class the sentence leaves open is taken from the previous sentence when this one
  opens on "It", "This", "They" … (its subject: the first value there), else from the
  passage's section heading ("6.1 H → WW");
* a table row binds its label and its column's header to each cell.

Cheap (regular expressions, no model), so it runs on every answer sentence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal
from functools import lru_cache

from mitra.answer.figures import Figure, base_value, figures, unit_at
from mitra.answer.lists import (CONJUNCT, CONTENT, ORDINALS_FOLLOW, clause_words, distributed, is_condition, labelled,
                                listed, ordinal, respectively)
from mitra.answer.measures import compared_with, one_measure
from mitra.answer.qualifiers import CONDITIONS, SUBJECTS, conditions, qualifiers, qualifiers_of
from mitra.answer.table_layout import Layout, blocks, caption_lines, symbol_named
from mitra.core.text import split_sentences, tokenize

_CLAUSE_END = re.compile(r"[,;:]|\s(?:and|while|whereas|but|or|compared)\s|\)\s*[,;]", re.I)
_CLAUSE_START = re.compile(r";|\b(?:whereas|while|but|compared (?:with|to)|than)\b", re.I)
_COMPARED = re.compile(r"\s*(?:than|compared (?:with|to))\b", re.I)
_RESONANCE = re.compile(r"(?<=[\w*+-]\()(\d{3,4})(?=\))")  # Λ(1520), Lz(1405), f1(1285)
_ANAPHOR = re.compile(r"^(?:it|its|this|these|they|their|the (?:latter|former|same)|such)\b", re.I)
_TAG_GAP = re.compile(r"\s*(?:(?:is|are)\s+)?\(?\s*")  # "0.2 (stat)", "±0.17 is statistical"
# What follows a value's uncertainties and names what it is for: "± 0.002 mrad for RICH1 gas".
_POST_PHRASE = re.compile(r"(?:\s*\([^()]{0,40}\))?\s+(?:for|in|at|on)\s", re.I)

# "(in units of 10-3/(GeV/c))": the scale of the values before it, no value of its own
_UNITS_OF = re.compile(r"\bunits? of\s*\Z", re.I)


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
    spread: bool = False  # an uncertainty written after its value ("± 0.3", "+0.40 -0.39")
    shared_unit: str = ""  # the unit written once after a list or bracket ("2.15 and 2.20 TeV"), outside ``span``
    sign: str = ""  # "−" of "phis = −0.019", outside ``span`` as ``value`` is the magnitude
    column: str = ""  # the header over a table cell's column ("Phase space region 4"), "" in prose

    @property
    def as_written(self) -> str:
        """The number as its sentence writes it, with the unit its list shares: "2.15 TeV" of
        "2.15 and 2.20 TeV", which alone would read as a bare 2.15."""
        number = self.sign + self.sentence[self.span[0]:self.span[1]]
        return f"{number} {self.shared_unit}" if self.shared_unit else number

    @property
    def base(self) -> Decimal:
        """The value in its kind's base unit (GeV, fb, ps …), for comparing 2.05 TeV with 2050 GeV."""
        return base_value(self.value, self.unit)

    def same_value(self, other: "Mention") -> bool:
        if self.power is not None and other.power is not None and self.power != other.power:
            return False
        if self.kind == other.kind == "energy":
            return self.base == other.base
        return self.value == other.value

    def compatible_kind(self, other: "Mention") -> bool:
        return not self.kind or not other.kind or self.kind == other.kind

    def restates(self, other: "Mention") -> bool:
        """Is this the same value of the same kind, written with the same power of ten? A claim
        may drop a power its passage writes apart ("(1.2 ± 0.3) × 10-5"); two statements in the
        passages do not: the significance 4.9 is not the p-value 4.9 · 10-3 of another row."""
        return self.same_value(other) and self.compatible_kind(other) and self.power == other.power


def _paren_following(text: str, quals: list[tuple[str, str, int, int]]) -> set[int]:
    """Indexes of qualifiers written in brackets right after one of their class: "observed
    (expected)", "observed (expected for μ = 0)", "observed (expected in absence of H → μμ decays)"."""
    out = set()
    for i, (cls, _, start, end) in enumerate(quals):
        for j in range(i - 1, -1, -1):
            other = quals[j]
            if other[0] == cls and re.fullmatch(r"\s*\(\s*", text[other[3]:start]) and re.match(r"[^()]{0,60}\)",
                                                                                                  text[end:]):
                out.add(i)
                break
    return out


# Before a number that bounds a selection: "|yH| < 2.5", "pT > 30 GeV", "110 < mH".
SELECTION_BOUND = re.compile(r"[<>≤≥]\s*[-−]?\s*\Z")


def _window(text: str, raws: list[Figure], i: int, clause_start: int, settings: set[int]) -> tuple[int, int]:
    """The span whose qualifiers are raws[i]'s: back to the previous number of its kind (a
    setting such as "in 2010" or "at 13 TeV" is no boundary), forward to the clause's end."""
    raw = raws[i]
    left = clause_start
    for j in range(i - 1, -1, -1):
        if raws[j].start in settings or SELECTION_BOUND.search(text, max(0, raws[j].start - 4), raws[j].start):
            # "the inclusive cross-section for |yH| < 2.5 is measured to be 1.34 …": 2.5 bounds a selection;
            # but "pT miss > 250 GeV and a leading jet with pT > 100 GeV": a conjunction after it ends it
            if raws[j].start not in settings and (ended := CONJUNCT.search(text, raws[j].end, raw.start)):
                left = max(left, ended.start())
                break
            continue
        if raws[j].kind == raw.kind or not raws[j].kind or not raw.kind:
            left = max(left, raws[j].end)
            # "1.618 ± 0.002 mrad for RICH1 gas and 0.68 ± 0.02 mrad for RICH2": what follows the
            # previous value up to its clause's end is that value's, not this one's
            if (ended := _CLAUSE_END.search(text, raws[j].end, raw.start)) and ended.start() > left:
                left = ended.start()
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
    following = raws[i + 1:]
    chain = 0
    while chain < len(following) and following[chain].spread:
        chain += 1
    if chain and _POST_PHRASE.match(text, following[chain - 1].end):
        # "1.618 ± 0.002 mrad for RICH1 gas": the phrase after its own uncertainties is its own
        following = following[chain:]
    nxt = next((r.start for r in following if (not r.paren or r.start >= scan_from) and r.start not in settings),
               None)
    if nxt is not None:
        right = min(right, nxt)
    return left, max(right, raw.end)


def _clause_start(text: str, pos: int) -> int:
    semi = text.rfind(";", 0, pos)
    return semi + 1 if semi >= 0 else 0


def _read(sentence: str, previous: str, heading: str, after: str = "") -> list[Mention]:
    """The numbers of ``sentence``; ``previous`` is the sentence before it where this one opens
    on an anaphor, ``after`` the one after it where that one names its uncertainties."""
    named = qualifiers(sentence)
    raws = [r for r in figures(sentence) if not any(q[2] <= r.start < q[3] for q in named)
            and not _UNITS_OF.search(sentence, 0, r.start)]
    if not raws:
        return []
    quals = named + conditions(sentence, raws)
    quals.sort(key=lambda q: q[2])
    in_brackets = _paren_following(sentence, quals)
    settings = {q[2] for q in quals if q[0] in CONDITIONS}
    windows = [_window(sentence, raws, i, _clause_start(sentence, raw.start), settings) for i, raw in enumerate(raws)]
    for i in range(1, len(raws)):
        if raws[i].paren:  # "5.0 (5.8) σ", "148 000 ± 400 (7 500 ± 100)": it reads its main number's words
            j = next((j for j in range(i - 1, -1, -1) if not raws[j].spread), i - 1)
            windows[i] = (min(windows[j][0], windows[i][0]), max(windows[j][1], windows[i][1]))
    bound: list[dict[str, set[str]]] = []
    for i, raw in enumerate(raws):
        left, right = windows[i]
        own: dict[str, set[str]] = {}
        for k, (cls, value, start, end) in enumerate(quals if raw.start not in settings else ()):
            # Not a word inside the number itself; a tag inside its unit's span is its own:
            # "0.04 (syst) ps -1" spans its chain's unit, and "(syst)" is 0.04's.
            if cls == "setting" or start >= right or end <= left or (start >= raw.start and end <= raw.num_end):
                continue
            if k in in_brackets and not raw.paren and any(q[0] == cls for q in quals[:k]):
                continue  # "observed (expected) … 5.0 (5.8)": the bracketed one is the bracketed number's
            if raw.paren and k not in in_brackets and any(quals[x][0] == cls for x in in_brackets):
                continue
            holder = _bracket_holder(sentence, raws, start)  # "(expected 3.8 σ)" is 3.8's, no tag of the one before
            if holder not in (None, i) or holder is None and _tag_of_other(sentence, raws, i, start):
                continue  # "0.2 (stat) ± 0.1 (syst)": "(stat)" is 0.2's only
            if cls == "measure" and compared_with(sentence, start, end, raw):
                continue
            own.setdefault(cls, set()).add(value)
        bound.append(own)
    _bracketed(sentence, raws, quals, in_brackets, bound)
    named_after = ordinal(f"{sentence} {after}" if after else sentence, raws, bound)
    listed(sentence, raws, bound)
    respectively(sentence, raws, quals, in_brackets, bound)
    labelled(sentence, raws, quals, bound)
    # "… of J/ψ → μ+μ− candidates is 3% worse than the 15.1 MeV/c2 obtained offline": what a
    # comparison is made with is the same thing's, measured otherwise
    compared = [bool(_COMPARED.match(sentence, left)) for left, _ in windows]
    _shared(sentence, raws, quals, windows, compared, bound)
    one_measure(sentence, raws, quals, bound)
    inherited = _open_classes(previous, heading)
    in_clause = clause_words(sentence, raws, windows)
    distributed(sentence, raws, quals, windows, settings, bound, in_clause)
    for i, said in named_after.items():  # "… and the third from the choice of model"
        in_clause[i] |= said
    for i in range(1, len(raws)):  # "… resolution … is 3% worse than the 15.1 MeV": a resolution too
        if compared[i] and not raws[i].spread:
            before = tokenize(sentence[windows[i - 1][0]:raws[i - 1].start])
            in_clause[i] |= frozenset(t for t in before if CONTENT.fullmatch(t))
    mentions = []
    for i, raw in enumerate(raws):
        own = {cls: set(values) for cls, values in bound[i].items()}
        if raw.central:
            own.setdefault("uncertainty", {"central value"})
        for cls, values in inherited.items():
            if not (cls == "uncertainty" and raw.kind == "significance"):  # a significance is no uncertainty
                own.setdefault(cls, set(values))
        channels = own.get("channel", set())
        if len(channels - {"combined"}) >= 2:  # "γγ + ZZ": a combination of channels
            channels.add("combined")
        words = in_clause[i]
        written = raw.sign + sentence[raw.start:raw.num_end] + (f" {raw.unit}" if raw.unit else "")
        end = raw.end if raw.unit and ")" not in sentence[raw.num_end:raw.end] else raw.num_end
        mentions.append(Mention(
            written=written, value=raw.value, power=raw.power, unit=raw.unit, kind=raw.kind, sentence=sentence,
            span=(raw.start, end), qualifiers={c: frozenset(v) for c, v in own.items() if v},
            words=words, condition=is_condition(raw, quals), spread=raw.spread,
            shared_unit=raw.unit_written if end <= raw.num_end else "", sign=raw.sign))
    return mentions


def _bracketed(text: str, raws: list[Figure], quals, in_brackets: set[int], bound: list[dict[str, set[str]]]) -> None:
    """"observed (expected) … 4.9 (4.3)": the pair names the pair, whatever stands between
    them ("the expected background", "at 95% CL"): the number takes the word before the
    bracket, the bracketed number the bracketed word."""
    for i in range(len(raws) - 1):
        if raws[i].paren or not raws[i + 1].paren:
            continue
        clause = _clause_start(text, raws[i].start)
        pairs = [k for k in in_brackets if clause <= quals[k][2] < raws[i].start]
        if not pairs:
            continue
        k = max(pairs)
        main = max(j for j in range(k) if quals[j][0] == quals[k][0])
        bound[i][quals[k][0]], bound[i + 1][quals[k][0]] = {quals[main][1]}, {quals[k][1]}
        for cls, value, start, _ in quals:  # "… (expected) upper limit at 95% CL … 2.4 (2.6)": the pair's limit
            if quals[k][3] <= start < raws[i].start and cls not in CONDITIONS and cls != "setting":
                for j in (i, i + 1):
                    bound[j].setdefault(cls, set()).add(value)


def _bracket_holder(text: str, raws: list[Figure], start: int) -> int | None:
    """The number a bracket holds after the word at ``start``, where that word opens the
    bracket ("(expected 3.8 σ)"): its index, or None."""
    opened = text.rfind("(", 0, start)
    if opened < 0 or text[opened + 1:start].strip() or ")" in text[opened:start]:
        return None
    closed = text.find(")", start)
    return next((j for j, r in enumerate(raws) if start < r.start and (closed < 0 or r.start < closed)), None)


def _tag_of_other(text: str, raws: list[Figure], i: int, start: int) -> bool:
    """Is the qualifier at ``start`` written right after another number than raws[i], as
    its tag ("0.9 stat", "0.2 (stat.)")?"""
    return any(j != i and other.end <= start and _TAG_GAP.fullmatch(text[other.end:start])
               for j, other in enumerate(raws))


def _shared(text: str, raws: list[Figure], quals, windows, compared: list[bool],
            bound: list[dict[str, set[str]]]) -> None:
    """A qualifier outside every number's window ("The observed limits are 2.1 TeV for … and
    1.5 TeV for …") is shared by the numbers that name no value of its class, and what a
    value's clause names it for by a number compared with it ("than the 15.1 MeV")."""
    named = [set(own) for own in bound]  # the classes each names itself, before any is shared
    for cls, value, start, end in quals:
        outside = not any(left <= start < right for left, right in windows)
        if cls == "setting" or not (outside or cls in SUBJECTS):
            continue
        for i, raw in enumerate(raws):
            if cls not in named[i] and start < raw.start and (outside or compared[i]) and not (
                    cls == "measure" and compared_with(text, start, end, raw)):
                bound[i].setdefault(cls, set()).add(value)


def _open_classes(previous: str, heading: str) -> dict[str, set[str]]:
    """What a sentence's numbers inherit for the classes they leave open: the previous
    sentence's subject (first value) when this one opens on an anaphor, else the heading's."""
    out: dict[str, set[str]] = {}
    for cls, value, _, _ in qualifiers(previous):
        if cls in SUBJECTS:
            out.setdefault(cls, {value})
    from_heading: dict[str, set[str]] = {}
    for cls, value, _, _ in qualifiers(heading):
        if cls not in out:
            from_heading.setdefault(cls, set()).add(value)
    for cls in ("measure", "uncertainty"):
        if len(from_heading.get(cls, ())) > 1:
            # "Expected and observed limits", "… with statistical and systematic uncertainties":
            # which one a value is, its sentence (or its column) says
            del from_heading[cls]
    return out | from_heading


# -------------------------------------------------------------------- tables
# A caption that opens on what every cell is: "Summary of systematic uncertainties on …"
_UNCERTAINTY_TABLE = re.compile(r"\s*(?:(?:table\s*\d+\s*[.:]?\s*)?(?:an?\s+|the\s+)?(?:summary|list|breakdown|overview)"
                                r"\s+of\s+(?:the\s+)?)?(?:(?:absolute|relative|dominant|main|leading)\s+)?"
                                r"(?P<kind>systematic|statistical|theoretical)?\s*uncertaint", re.I)


def _read_table(lines: list[str], caption: str, heading: str, title: str = "") -> list[Mention]:
    """Each cell's numbers, bound to its row's label, its group's and its column's header
    (``table_layout``), under the qualifiers of the heading and the sentence before it;
    ``title``, the caption's first sentence, may say every cell is an uncertainty."""
    layout = Layout.of(lines)
    uncertainties = _UNCERTAINTY_TABLE.match(title)
    # Only the classes of the caption's last sentence reach the cells: its words, its other
    # classes and the unit it states ("significance values (in standard deviations)") lifted
    # table cells over the prose that answers, and a caption's unit is rarely every column's
    # (ATLAS's Table 11 under that caption states signal strengths and p-values too).
    context = _open_classes("", f"{heading} {caption}")
    mentions: list[Mention] = []
    widest = max((len(h) for h in layout.headers), default=0)
    for row, group in layout.data():
        line = " | ".join(row)
        short = len(row) < widest
        offset = 0
        for j, (cell, column) in enumerate(zip(row, layout.columns(row))):
            start = line.find(cell, offset)
            offset = start + len(cell)
            if j == 0:
                continue
            label = f"{group} {row[0]} {symbol_named(column)}"
            pair = _bracketed_header(column)
            bracketed = {raw.start for raw in figures(cell) if raw.paren}
            for m in _read(cell, "", ""):
                bound: dict[str, set[str]] = {}
                for cls, values in qualifiers_of(label).items():
                    bound.setdefault(cls, set()).update(values)
                if pair is not None:  # "Obs. (exp.) significance" over "2.8 (2.5)"
                    bound[pair[0]] = {pair[2] if m.span[0] in bracketed else pair[1]}
                if uncertainties and uncertainties.group("kind"):  # not the fit fraction, its systematic;
                    # a row or column may say "Theory" or "stat.", the caption's last sentence not
                    # ("For comparison, the statistical uncertainties are in the last column")
                    bound.setdefault("uncertainty", {uncertainties.group("kind").lower()})
                for cls, values in context.items():
                    bound.setdefault(cls, set(values))
                for cls, values in m.qualifiers.items():
                    bound[cls] = set(values)
                if len(bound.get("channel", set()) - {"combined"}) >= 2:
                    bound["channel"].add("combined")
                # "Mass (GeV)" over it, or "Width [MeV] | …"; a row short of its header lost a cell
                # somewhere, so which column's unit is its own is not sure
                found = (_unit_in(column) if not short else None) or _unit_in(row[0])
                unit = m.unit or (found[0] if found else "")
                kind = m.kind or (found[1] if found else "")
                mentions.append(Mention(
                    written=m.written, value=m.value, power=m.power, unit=unit, kind=kind, sentence=line,
                    span=(start + m.span[0], start + m.span[1]),
                    qualifiers={c: frozenset(v) for c, v in bound.items() if v},
                    # a label's words, and the mass naming its column's resonance ("Lz(1520)" beside "Lz(1405)")
                    words=frozenset(t for t in tokenize(label) if CONTENT.fullmatch(t))
                    | frozenset(_RESONANCE.findall(column)),
                    spread=m.spread or bool(uncertainties),
                    shared_unit=m.shared_unit, sign=m.sign, column=column))
    return mentions


def _bracketed_header(column: str) -> tuple[str, str, str] | None:
    """(class, main value, bracketed value) of a header such as "Obs. (exp.) significance"."""
    quals = qualifiers(column)
    for k in _paren_following(column, quals):
        main = max((j for j in range(k) if quals[j][0] == quals[k][0]), default=None)
        if main is not None:
            return quals[k][0], quals[main][1], quals[k][1]
    return None


_HEADER_UNIT = re.compile(r"\(\s*([^()]{1,20})\s*\)|\[\s*([^\[\]]{1,20})\s*\]")


def _unit_in(text: str) -> tuple[str, str] | None:
    """The unit a header writes in brackets ("Mass (GeV)", "$Z_{l}$ [σ]")."""
    for match in _HEADER_UNIT.finditer(text):  # not "E($Z_{l}$)" of "E($Z_{l}$) [σ]"
        if found := unit_at(match.group(1) or match.group(2), 0):
            return found[0], found[1]
    return None


# -------------------------------------------------------------------- entry point
@lru_cache(maxsize=4096)
def mentions(text: str, heading: str = "") -> tuple[Mention, ...]:
    """Every number ``text`` states, with its qualifiers. ``heading`` is the section path
    the text sits under (its classes fill what a sentence leaves open)."""
    if not any(ch.isdigit() for ch in text):
        return ()
    out: list[Mention] = []
    previous = title = ""
    for table, lines in blocks(text):
        if table:  # its caption is the prose just before it ("Table 6: The expected and observed …")
            out.extend(_read_table(lines, previous, heading, title))
            continue
        sentences = split_sentences(" ".join(lines))
        title = sentences[0] if sentences else ""
        for k, sentence in enumerate(sentences):
            anaphoric = previous if _ANAPHOR.match(sentence) else ""
            after = sentences[k + 1] if k + 1 < len(sentences) and ORDINALS_FOLLOW.match(sentences[k + 1]) else ""
            out.extend(_read(sentence, anaphoric, heading, after))
            previous = sentence
        if previous:  # the caption a table after this prose reads, past its header's fragments
            previous = (split_sentences(" ".join(caption_lines(lines))) or [previous])[-1]
    return tuple(out)


def states_for_earlier(sentence: str) -> bool:
    """Does the sentence state a number for something only the sentence before it names
    ("It has an excess with local significance 1.6 σ")?"""
    return bool(_ANAPHOR.match(sentence.strip())) and any(ch.isdigit() for ch in sentence)
