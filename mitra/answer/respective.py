"""One-to-one pairings of a sentence's values with names, a signal of the candidate ranking
(``candidates``): "1256, 1252 and 1260 MeV for the isobar, K-matrix and QMI approaches,
respectively", "94.5% (96.2%) … the belle (babar) results", "x and y for the A and B decays",
"x for A, y for B and z for C". The value paired with the name the question names counts for,
the others of its pairing against.
"""

from __future__ import annotations

import re
from functools import lru_cache

from mitra.answer.asked import Asked
from mitra.answer.figures import Figure, sentence_figures, unit_at
from mitra.answer.lists import RESPECTIVELY
from mitra.answer.qualifiers import qualifiers
from mitra.answer.quantities import Mention
from mitra.core.text import tokenize


# A name's word, with the mass a state is named by ("Lz(1520)", "D1(2600)")
_WORD = r"[^\s,;()\d][^\s,;()]*(?:\(\s?[\w.*+−-]{1,8}\s?\))?"
# A name's later word may be a number ("Run 1"), and a year may be a name ("for Run 1 and 2016, respectively")
_NEXT = rf"(?:{_WORD}|\d{{1,2}}\b)"
_ITEM = rf"(?:{_WORD}(?:\s+{_NEXT}){{0,2}}?|(?:19|20)\d\d\b)"
_LAST_ITEM = rf"(?:{_WORD}(?:\s+{_NEXT}){{0,2}}|(?:19|20)\d\d\b)"


_PAIRED = re.compile(r"(?:\s+[^\s,;()]+){0,3}?,?\s*respectively\b", re.I)
_LEADING = re.compile(r"^(?:(?:both|for|the|in|of|at|with|a|an|from|by)\s+)+", re.I)
# What leads into a list's first item: "are selected for proton and …", "the uncertainties of luminosity and …"
_LEAD_IN = re.compile(r"^.*\b(?:for|in|of|at|with|from|by)\s+", re.I)


@lru_cache(maxsize=8)
def _item_list(n: int) -> re.Pattern:
    """A list of ``n`` short items: "A and B", "A, B and C", "A, B, and C"."""
    return re.compile(rf"({_ITEM})" + rf",\s*({_ITEM})" * (n - 2) + rf",?\s+and\s+({_LAST_ITEM})")


def respective(asked: Asked, m: Mention) -> float:
    """Where the value's sentence pairs its values one to one with names: +1 where the name
    the question names most is the value's own, −1 where it is another's. Four ways: "…
    1256, 1252 and 1260 MeV for the isobar, K-matrix and QMI approaches, respectively"; a
    bracketed pair, "94.5% (96.2%) is required to scale the belle (babar) results"; a list
    the names follow, "(1.72 ± 0.05) and (4.96 ± 0.05) × 10-4 for the B0 → D*- π+ and B0 →
    D̄0 π+ π- decays"; and each value followed by its name, "± 0.007 for sin φd and ± 0.017 for
    cos φd"."""
    found = sentence_figures(m.sentence)
    own_year = next((f.year for f in found if f.start == m.span[0]), False)
    # a year is a name of the list ("… 328 500 for Run 1 and 2016, respectively"), unless the value is one
    values = [f.start for f in found if f.kind == m.kind and not (f.paren or f.spread) and f.year == own_year]
    for own, items in _pairings(m.sentence, found, values, m.span[0]):
        hits = [len(asked.content & item) for item in items]
        best = max(hits)
        if best and hits.count(best) == 1:
            return 1.0 if hits[own] == best else -1.0
    return 0.0


def _pairings(sentence: str, found: tuple[Figure, ...], values: list[int], start: int):
    """(the value's place, each name's distinct words) for each one-to-one pairing of its sentence."""
    at = next((i for i, f in enumerate(found) if f.start == start), None)
    if at is not None and (pair := bracket_pair(found, at)) is not None:
        names = _name_pair(sentence, found[pair[0]].start, found[pair[1]].end)
        if names is not None:
            yield pair.index(at), names
    mark = RESPECTIVELY.search(sentence)
    if mark is not None:  # the values listed before it: "800 and 500 MeV/c, respectively, and … 3 GeV/c"
        values = [v for v in values if v < mark.start()]
    if start not in values or len(values) < 2:
        return
    own = values.index(start)
    if mark is not None:
        # The list "…, respectively" pairs: the one right before it, the sentence's opening one,
        # else the last before the values ("The signal yields in the D0D0 and D+D0 spectra are 263
        # and 171, respectively")
        lists = list(_item_list(len(values)).finditer(sentence))
        paired = [listed for listed in lists if _PAIRED.match(sentence, listed.end())
                  or len(sentence[:listed.start()].split()) <= 3]
        for listed in paired or [listed for listed in lists if listed.end() <= values[0]][-1:]:
            first, *rest = listed.groups()
            items = [_LEADING.sub("", item).split() for item in (_LEAD_IN.sub("", first), *rest)]
            items[-1] = items[-1][:max(1, len(items[0]))]  # "isobar, K-matrix and QMI approaches": not the head noun
            yield own, [frozenset(tokenize(" ".join(item))) for item in items]
    elif (names := _names_after(sentence, found, values)) is not None:
        yield own, names
    elif (each := _names_each(sentence, found, values, own)) is not None:
        yield each


def bracket_pair(found: tuple[Figure, ...], at: int) -> tuple[int, int] | None:
    """The pair "x (y)" of one kind that the figure at ``at`` is part of, past their
    uncertainties ("148 000 ± 400 (7 500 ± 100)")."""
    main = [i for i, f in enumerate(found) if not f.spread]
    for a, b in zip(main, main[1:]):
        if at in (a, b) and not found[a].paren and found[b].paren and found[a].kind == found[b].kind:
            return a, b
    return None


# "W1 (W2)": the two names a bracketed pair of values is stated for ("belle (babar)", "KSLL (KSDD)")
_NAME_PAIR = re.compile(r"(?<![\w(])([^\W\d_][\w-]*)\s?\(\s?([^\W\d_][\w-]*)\s?\)")


def _name_pair(sentence: str, left: int, right: int) -> list[frozenset[str]] | None:
    """The names a bracketed pair of values is stated for: the first "A (B)" after it, else
    the last before it; not an abbreviation ("boosted decision tree (BDT)") or a unit
    ("mass (GeV)"), a qualifier pair or two spellings of one name."""
    pairs = [m for m in _NAME_PAIR.finditer(sentence) if m.group(1).isupper() == m.group(2).isupper()
             and not _is_unit(m.group(2))
             and not qualifiers(m.group())]  # "observed (expected)": the binder pairs those already
    chosen = next((m for m in pairs if m.start() >= right), None) or next(
        (m for m in reversed(pairs) if m.end() <= left), None)
    if chosen is None:
        return None
    first, second = (frozenset(tokenize(name)) for name in chosen.groups())
    return [first - second, second - first] if first - second and second - first else None


def _is_unit(word: str) -> bool:
    unit = unit_at(word, 0)
    return unit is not None and unit[2] == len(word)


# After a list of values, before the names they follow in order: "… × 10-4 for the".
_TO_NAMES = re.compile(r"[\s()\[\]±+\-−.,×x^{}\d]*?\b(?:for|in)\s+(?:the\s+)?")
_NAMES_END = re.compile(r"\s*(?:[.;]|,\s|$)")


def _names_after(sentence: str, found: tuple[Figure, ...], values: list[int]) -> list[frozenset[str]] | None:
    """"x and y for A and B": the names a list of values is followed by, one each, as their
    distinct words; None unless the values are one list and the names as many."""
    listed = [f for f in found if f.start in values]
    for a, b in zip(listed, listed[1:]):
        gap = re.sub(r"[\d.]+", "", sentence[a.end:b.start])  # uncertainties and powers of ten between
        if not re.fullmatch(r"[\s()\[\]±+\-−×x^{}]*(?:,|and|,\s*and)[\s(]*", gap):
            return None
    lead = _TO_NAMES.match(sentence, listed[-1].end)
    if lead is None:
        return None
    end = _NAMES_END.search(sentence, lead.end())
    phrase = sentence[lead.end():end.start() if end else len(sentence)]
    parts = re.split(r"\s*,\s*(?:and\s+)?|\s+and\s+", phrase)
    if len(parts) != len(listed) or any(len(part.split()) > 8 for part in parts):
        return None
    return _distinct([frozenset(tokenize(part)) for part in parts])


# After a value, the name it is stated for, up to the next value: "6.5σ for D0(2550) , 6.8σ for
# D1(2600) , and 4.6σ for D2(2740) states", "3.5 MeV is achieved for long tracks and 7 MeV for …".
_FOR_NAME = re.compile(r"\s*(?:(?:is|are|was|were)\s+[a-z]+\s+)?(?:for|in)\s+(?:the\s+)?(?P<name>[^,;]{1,60}?)"
                       r"\s*(?:,\s*(?:and\s+)?|\s+and\s+|[.;]|$)")


# "0.5% for PVs associated with b quarks, 1.3% for those associated with c quarks": the first name's head
_THOSE = re.compile(r"^(?:those|that|the ones)\s+", re.I)


def _names_each(sentence: str, found: tuple[Figure, ...], values: list[int],
                own: int) -> tuple[int, list[frozenset[str]]] | None:
    """"x for A, y for B and z for C": the run of values around the value's own, each followed
    by the name it is stated for; (its place in the run, each name's distinct words)."""
    ends = {f.start: f.end for f in found}
    names: list[frozenset[str] | None] = []
    head = ""  # the first name's first word, which "those" stands for
    for i, start in enumerate(values):
        final = i + 1 == len(values)
        stop = len(sentence) if final else values[i + 1]
        named = _FOR_NAME.match(sentence[:stop], ends[start])
        # the name reaches the next value (past its sign): "… for D0(2550) , 6.8σ …"
        whole = named is not None and (final or sentence[named.end():stop].strip(" ±+-−") == "")
        name = named.group("name") if whole else ""
        head = head or name.split(" ", 1)[0]
        names.append(frozenset(tokenize(_THOSE.sub(head + " ", name))) if whole else None)
    if names[own] is None:
        return None
    first = next(i for i in range(own, -1, -1) if i == 0 or names[i - 1] is None)
    last = next(i for i in range(own, len(names)) if i + 1 == len(names) or names[i + 1] is None)
    run = names[first:last + 1]
    if len(run) < 2:
        return None
    distinct = _distinct(run)
    return (own - first, distinct) if distinct else None


def _distinct(names: list[frozenset[str]]) -> list[frozenset[str]] | None:
    """Each name's words that no other name has; None where a name has none (they cannot be
    told apart)."""
    distinct = [w - frozenset().union(*(o for o in names if o is not w)) for w in names]
    return distinct if all(distinct) else None
