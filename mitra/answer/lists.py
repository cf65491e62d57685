"""Values a sentence states together, and what each takes from the others: a list ("2.15
and 2.20 TeV"), "…, respectively", ordinals ("the first uncertainty is statistical"), a second
value whose clause leaves its quantity to the first ("3.5 MeV for long tracks and 7 MeV for
downstream ones"), and each number's clause words (``quantities`` reads the clauses)."""

from __future__ import annotations

import re

from mitra.answer.figures import PLUS_MINUS, RANGE, Figure
from mitra.answer.qualifiers import CONDITIONS, qualifiers
from mitra.core.text import tokenize

# "where the first uncertainty is statistical, the second systematic, and the third due to the
# choice of model": each ordinal opens the name of the chain's uncertainty in that place
_ORDINAL = re.compile(r"\b(?:first|second|third|fourth|fifth)\b(?:\s+(?:uncertainty|error|one|term|contribution))?"
                      r"(?:\s+(?:is|being|are|comes|arises))?", re.I)
_ORDINALS_NAMED = re.compile(r"\bfirst\b.{0,80}?\bsecond\b", re.I | re.S)
# a sentence that only names the uncertainties of the one before it
ORDINALS_FOLLOW = re.compile(r"\s*(?:where|here)?,?\s*the\s+first\s+(?:uncertainty|error)", re.I)
_FIRST_UNCERTAINTY = re.compile(r"first\s+(?:uncertainty|error)", re.I)
_ITEM_END = re.compile(r"[.;](?:\s|\Z)")
_KINDS = ("statistical", "systematic", "theoretical")
RESPECTIVELY = re.compile(r"\brespectively\b", re.I)
# a word, or a name with digits ("RICH1", "Run2"), not a number or a symbol ("13", "q2", "c4")
CONTENT = re.compile(r"[^\W\d_]{2}[^\W_]*")
_LIST_GAP = re.compile(r"\s*(?:,|and|or|,\s?and)\s*")
_UNCERTAINTY = frozenset(tokenize("uncertainty"))
CONJUNCT = re.compile(r",|\s(?:and|or)\s", re.I)
_ELLIPSIS_WORDS = 2  # "and (an expected) 7 MeV for …" leaves its quantity to the value before it
# A qualifier that labels what follows it: "χc0(3930): M = …, Γ = …", "Run 1: …"
_LABEL_COLON = re.compile(r"\s?(?:\([^()]{0,12}\))?\s?:(?!\S)")
_LABELLED = frozenset({"channel", "category", "mediator", "state", "run", "split"})


def ordinal(text: str, raws: list[Figure], bound: list[dict[str, set[str]]]) -> dict[int, frozenset[str]]:
    """"0.458 ± 0.010 ± 0.012 ± 0.020, where the first uncertainty is statistical, the second
    systematic, and the third the uncertainty from the choice of WS model": each ± of a chain
    takes its ordinal's name where it is one of the classes, and its words in any case (the
    returned clause words, by the number's index). ``text`` may run on past the numbers into
    the sentence after them that names them."""
    named = _ORDINALS_NAMED.search(text)
    if not named:
        return {}
    marks = list(_ORDINAL.finditer(text, named.start()))
    items = []
    for k, mark in enumerate(marks):
        end = marks[k + 1].start() if k + 1 < len(marks) else len(text)
        stop = _ITEM_END.search(text, mark.end(), end)
        item = text[mark.end():stop.start() if stop else end]
        kind = next((name for name in _KINDS
                     if any(c == "uncertainty" and v == name for c, v, _, _ in qualifiers(item))), None)
        items.append((kind, frozenset(t for t in tokenize(item) if CONTENT.fullmatch(t)) - _UNCERTAINTY))
    if not any(kind for kind, _ in items) and not _FIRST_UNCERTAINTY.match(marks[0].group()):
        return {}  # "the first and second muons": no uncertainties named
    words: dict[int, frozenset[str]] = {}
    chain: list[int] = []
    for i in range(1, len(raws) + 1):
        linked = i < len(raws) and PLUS_MINUS.fullmatch(text[raws[i - 1].num_end:raws[i].start])
        if linked:
            chain.append(i)
            continue
        for j, (kind, said) in zip(chain, items):
            if kind:
                bound[j]["uncertainty"] = {kind}
            words[j] = said
        chain = []
    return words


def listed(text: str, raws: list[Figure], bound: list[dict[str, set[str]]]) -> None:
    """"expected exclusions of 2.15 and 2.20 TeV": numbers listed together share what the
    list's first one is stated for."""
    for i in range(1, len(raws)):
        before, after = raws[i - 1], raws[i]
        if before.kind == after.kind and _LIST_GAP.fullmatch(text[before.end:after.start]):
            for cls, values in bound[i - 1].items():
                bound[i].setdefault(cls, set(values))


def clause_words(text: str, raws: list[Figure], windows: list[tuple[int, int]]) -> list[frozenset[str]]:
    """Each number's clause words, with what its clause leaves to another number: an
    uncertainty ("124.99 ± 0.18 (stat.)") is stated for its central value's quantity, and a
    listed value ("deposits of ∼ 45, 100 and 75 MeV") for the list's first one's."""
    words = [frozenset(t for t in tokenize(text[left:right]) if CONTENT.fullmatch(t)) for left, right in windows]
    for i in range(1, len(raws)):
        if raws[i].spread:
            words[i] |= words[i - 1] | _UNCERTAINTY
        elif raws[i - 1].kind == raws[i].kind and (_LIST_GAP.fullmatch(gap := text[raws[i - 1].end:raws[i].start])
                                                   or RANGE.fullmatch(gap)):  # "8.8 < m(μμ) < 11.0 GeV"
            words[i] |= words[i - 1]
    return words


def distributed(text: str, raws: list[Figure], quals, windows, settings: set[int],
                 bound: list[dict[str, set[str]]], words: list[frozenset[str]]) -> None:
    """"A mass resolution of 3.5 MeV for long tracks and 7 MeV for downstream ones": a value
    whose clause opens on "and" (or a comma) after another value's, two words at most before
    it, shares what that value's clause says before it, in words and in the classes it names
    none of."""
    for i, raw in enumerate(raws):
        left = windows[i][0]
        conjunct = CONJUNCT.match(text, left)
        if raw.spread or raw.paren or not conjunct or len(text[conjunct.end():raw.start].split()) > _ELLIPSIS_WORDS:
            continue  # ", and was always above the acceptance limit of 5": a clause of its own
        head = next((j for j in range(i - 1, -1, -1) if raws[j].kind == raw.kind and not raws[j].spread
                     and not raws[j].paren and raws[j].start not in settings), None)
        if head is None:  # "0.30 x 10-9 with 23 fb-1 and 0.16 x 10-9 with 300 fb-1": 0.30's, past the setting
            continue
        start, end = windows[head][0], raws[head].start
        words[i] |= frozenset(t for t in tokenize(text[start:end]) if CONTENT.fullmatch(t))
        own = set(bound[i])
        for cls, value, at, _ in quals:
            if cls != "setting" and cls not in own and start <= at < end:
                bound[i].setdefault(cls, set()).add(value)
        for k in range(i + 1, len(raws)):  # its own uncertainties are stated for the same
            if not raws[k].spread:
                break
            words[k] |= words[i]


def labelled(text: str, raws: list[Figure], quals, bound: list[dict[str, set[str]]]) -> None:
    """"… to be χc0(3930): M = 3.9238 GeV/c2, Γ = 17.4 MeV, χc2(3930): M = …": a qualifier
    written as a label (followed by a colon) is that of every number after it, up to the next
    label of its class, that names no value of the class itself."""
    labels = [(cls, value, end) for cls, value, _, end in quals
              if cls in _LABELLED and _LABEL_COLON.match(text, end)]
    named = [set(own) for own in bound]  # the classes each names itself, before any label's
    for k, (cls, value, end) in enumerate(labels):
        stop = next((e for c, _, e in labels[k + 1:] if c == cls), len(text))
        for i, raw in enumerate(raws):
            if end <= raw.start < stop and cls not in named[i]:
                bound[i].setdefault(cls, set()).add(value)


def respectively(text: str, raws: list[Figure], quals, in_brackets: set[int],
                  bound: list[dict[str, set[str]]]) -> None:
    """"… for A and B … x and y, respectively": A is x's, B is y's. Not a bracketed pair:
    "observed (expected) significances of 2.5 (2.3) and 4.0 (3.5) …, respectively" names
    each pair, not the list (4.0 is observed)."""
    paired = {quals[k][0] for k in in_brackets}
    for mark in RESPECTIVELY.finditer(text):
        # the values listed, not their uncertainties: "(3.3 ± 2.0) × 10-3 and (1.4 ± 1.1) × 10-3 in the
        # Z → eeγ and Z → μμγ samples, respectively" pairs 3.3 and 1.4
        before = [i for i, r in enumerate(raws) if r.end <= mark.start() and not r.paren and not r.spread]
        by_class: dict[str, list[str]] = {}
        for cls, value, start, _ in quals:
            if (start < mark.start() and cls != "setting" and cls not in paired
                    and value not in by_class.setdefault(cls, [])):
                by_class[cls].append(value)
        for cls, values in by_class.items():
            if len(values) < 2:
                continue
            kind = raws[before[-1]].kind if before else ""
            same = [i for i in before if raws[i].kind == kind and not is_condition(raws[i], quals)]
            if len(same) < len(values):
                continue
            for i, value in zip(same[-len(values):], values):
                bound[i][cls] = {value}
                if i + 1 < len(raws) and raws[i + 1].paren:  # "2.5 (2.3) and 4.0 (3.5)": 2.3 is WH's too
                    bound[i + 1][cls] = {value}
            after = [i for i, r in enumerate(raws) if r.start > mark.end() and r.kind == kind and not r.paren
                     and not r.spread and not is_condition(r, quals)]
            if len(after) == len(values):  # "…, respectively, compared with expected 2.15 and 2.20 TeV"
                for i, value in zip(after, values):
                    bound[i].setdefault(cls, {value})


def is_condition(raw: Figure, quals) -> bool:
    return any(q[0] in CONDITIONS and q[2] == raw.start for q in quals)
