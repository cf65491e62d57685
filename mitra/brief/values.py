"""What an analysis found: the values its abstract and its conclusions state, each read by the
value machinery of ``mitra.answer`` (``quantities.mentions``: the number, its unit and the
qualifiers bound to its clause), never paraphrased.

Which numbers are headline values is ``headline.is_headline``; the qualifiers a summary sentence
binds beyond the answer's binder are ``qualify``'s.
"""

from __future__ import annotations

import html
import re
from decimal import Decimal
from typing import Sequence

from mitra.answer.candidates import label_of
from mitra.answer.claims import narrowed, resolved
from mitra.answer.figures import unit_at
from mitra.answer.quantities import Mention, mentions
from mitra.brief.headline import is_headline
from mitra.brief.qualify import qualified, shared_measure
from mitra.brief.record import Place, Value
from mitra.core.text import math_to_words, normalise_space, split_sentences
from mitra.core.types import Chunk

# A top-level section whose values are headline values; the results where a document has no conclusions.
CONCLUDING = re.compile(r"\b(?:conclusions?|summary|outlook)\b", re.I)
RESULTS = re.compile(r"\bresults?\b", re.I)
QUANTITY_WORDS = 9  # of the sentence before the value, to say what it is


# What follows a value in its statement: its uncertainties ("± 0.4 (stat)", "+0.31 −0.26"), a power of ten.
_FOLLOWING = re.compile(r"(?:\s*(?:±|\+/-|\+-|\\pm|[+\-−])\s*(?:\d[\d.]*\d|\d)\s*(?:\(\s*[a-z./]{2,8}\s*\)|(?:stat|syst?|theo)\.?)?)*"
                        r"(?:\s*\)?\s*(?:×|x|\\times)\s*10\s*\^?\s*\{?[-−–]?\d+\}?)?", re.I)


def shown(m: Mention) -> str:
    """The value as its sentence states it, with its uncertainties and unit where they follow."""
    s, (start, end) = m.sentence, m.span
    follow = _FOLLOWING.match(s, end)
    if follow and follow.end() > end:
        end = follow.end()
        unit = unit_at(s, end)
        if unit:
            end = unit[2]
    if s[start - 1:start] == "(" and ")" in s[m.span[1]:end]:
        start -= 1  # "(3.2 ± 0.5) × 10⁻⁹": the bracket the power of ten applies to
    elif s[start - 1:start] == "(" and re.match(r"\s*\)\s*(?:×|x|\\times)\s*10", s[end:]):
        start, end = start - 1, _FOLLOWING.match(s, end + s[end:].index(")")).end()
    elif end == m.span[1]:
        return normalise_space(m.as_written)  # "2.15" of "2.15 and 2.20 TeV" with the list's unit
    return normalise_space(s[start:end])


def number_of(value: Value) -> tuple[Decimal, int | None]:
    return Decimal(value.number).normalize(), value.power


def _quantity(m: Mention) -> str:
    words = m.sentence[:m.span[0]].split()
    return " ".join(words[-QUANTITY_WORDS:])


def stated(text: str, heading: str = "") -> list[Mention]:
    """The headline values of ``text`` (LaTeX maths read as words), in order, with the qualifiers
    ``qualify`` adds."""
    plain = html.unescape(math_to_words(text))
    by_sentence: dict[str, list[Mention]] = {}
    for m in mentions(plain, heading):
        m = qualified(m)
        by_sentence.setdefault(m.sentence, []).append(m)
    return [m for sentence in by_sentence.values() for m in shared_measure(sentence) if is_headline(m)]


def _located(sentence: str, chunks: Sequence[Chunk]) -> Chunk | None:
    """The passage that states ``sentence`` (its first 60 characters, spaces ignored)."""
    key = re.sub(r"\s+", "", sentence)[:60]
    for chunk in chunks:
        if key and key in re.sub(r"\s+", "", math_to_words(chunk.text)):
            return chunk
    return None


def _stating(m: Mention, chunks: Sequence[Chunk]) -> tuple[Chunk, str] | None:
    """A passage that states the value of ``m`` (an abstract kept apart from the documents: a
    portal's), and its sentence stating it, to highlight on its page."""
    digits = m.written.split()[0]
    for chunk in chunks:
        if digits in chunk.text:
            for x in stated(chunk.text, " > ".join(chunk.section)):
                if x.same_value(m) and x.unit == m.unit:
                    return chunk, x.sentence
    return None


def place_of(chunk: Chunk, highlight: str) -> Place:
    return Place(chunk_id=chunk.id, doc_id=chunk.doc_id, version=chunk.version, page=chunk.page_start,
                 unit=chunk.unit, anchor=chunk.anchor, highlight=highlight)


def _value(m: Mention, everything: Sequence[Mention], where: str, place: Place | None) -> Value:
    quals = narrowed(m, resolved(everything, m))
    label = label_of(quals)  # the qualifiers named as the value answers show them
    return Value(written=shown(m), number=str(m.value), power=m.power, quantity=_quantity(m),
                 qualifiers={cls: sorted(v - {"central value"}) for cls, v in quals.items() if v - {"central value"}},
                 label=label, sentence=m.sentence, where=where, place=place)


def _concluding(chunks: Sequence[Chunk]) -> list[Chunk]:
    """Each document's concluding sections' prose (its results' where it has none)."""
    out = []
    for doc in dict.fromkeys(c.doc_id for c in chunks):
        prose = [c for c in chunks if c.doc_id == doc and c.section and c.kind.value == "body"]
        for pattern in (CONCLUDING, RESULTS):
            if found := [c for c in prose if pattern.search(c.section[0])]:
                out += found
                break
    return out


def headline_values(abstract: str, chunks: Sequence[Chunk]) -> list[Value]:
    """The values the abstract and the concluding sections of the current versions state, one
    per value (the abstract's statement first), each cited to the passage that states it."""
    current = [c for c in chunks if not c.superseded]
    found: list[tuple[Mention, str, Chunk | None]] = []
    for sentence in split_sentences(math_to_words(abstract)):
        for m in stated(sentence):
            found.append((m, "abstract", _located(m.sentence, current)))
    for chunk in _concluding(current):
        for m in stated(chunk.text, " > ".join(chunk.section)):
            found.append((m, "conclusions", chunk))
    everything = [m for m, _, _ in found]
    out: list[Value] = []
    kept: list[Mention] = []
    for m, where, chunk in found:
        if any(k.same_value(m) and k.unit == m.unit for k in kept):
            continue
        kept.append(m)
        # Cited where a passage states it: its own sentence's passage, else one stating the value
        # (highlighting that passage's sentence); an abstract value no document states is not cited.
        stating = (chunk, m.sentence) if chunk else _stating(m, current)
        out.append(_value(m, everything, where, place_of(*stating) if stating else None))
    return out


def mark_changes(values: list[Value], older: Sequence[Chunk]) -> None:
    """Say where an older version of a value's document stated another number for the same
    quantity (its sentence otherwise the same, or the same qualifiers and quantity words)."""
    by_doc: dict[str, list[Mention]] = {}
    for chunk in older:
        by_doc.setdefault(chunk.doc_id, []).extend(stated(chunk.text, " > ".join(chunk.section)))
    for value in values:
        if value.place is None:
            continue
        for m in by_doc.get(value.place.doc_id, []):
            words = m.sentence[:m.span[0]].split()[-QUANTITY_WORDS:]
            same_quantity = " ".join(words) == value.quantity and bool(words)
            if same_quantity and (str(m.value), m.power) != (value.number, value.power):
                value.changed_from = shown(m)
                break
