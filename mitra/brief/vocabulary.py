"""Its vocabulary: the abbreviations and symbols its documents define, each with where.

Abbreviations: the Schwartz–Hearst algorithm (PyPI ``abbreviations``), "vector boson fusion
(VBF)": a short form in brackets whose letters the words before it spell. Symbols, which it
cannot spell ("missing transverse momentum ($p_T^{miss}$)", "where $\\sigma$ is the cross
section"), by a small pattern reader over the kept LaTeX maths; a symbol is shown as its
document writes it, its LaTeX markup left out ("p_T^miss").
"""

from __future__ import annotations

import logging
import re
from typing import Sequence

from mitra.brief.record import Term
from mitra.brief.values import place_of
from mitra.core.text import math_to_words
from mitra.core.types import Chunk

_WORD = r"[A-Za-z][\w-]*"
# "the missing transverse momentum ($p_T^{miss}$)"
_BRACKETED = re.compile(rf"\b(?i:the|a|an)\s+(?P<long>(?:{_WORD}\s){{0,4}}{_WORD})\s*\(\s*\$(?P<sym>[^$]{{1,30}})\$\s*\)")
# "where $\sigma$ is the cross section", "$m_{H}$ denotes the Higgs boson mass"
_DEFINED = re.compile(rf"\$(?P<sym>[^$]{{1,30}})\$\s*(?:denotes|stands for|is defined as|is|are)\s+the\s+"
                      rf"(?P<long>(?:{_WORD}\s){{0,5}}{_WORD})(?=\s*[,.;)])")  # the whole phrase, to its punctuation
# A symbol as its LaTeX reads without the markup: "p_{\rm T}^{\rm miss}" -> "p_T^miss", "\sigma" -> "sigma".
_LATEX_MARKS = re.compile(r"[{}]|\\(?:mathrm|rm|text|mathit|it|bf|boldsymbol)\b\s*|\\")
# A short form or symbol never holds a space, a value ("f=11.245 kHz") or a tilde: that is text, not a name.
_NOT_A_NAME = re.compile(r"[\s=~]")
_STOP = frozenset({"the", "a", "an", "of", "and", "or", "in", "with", "for", "to", "by", "on", "at", "as", "is", "are",
                   "where", "which", "that", "this", "from", "using", "its", "their", "be"})
MAX_LONG_WORDS = 8


def _long_form(words: str) -> str:
    """The definition without the article or preposition the pattern took before it."""
    parts = words.split()
    while parts and parts[0].lower() in _STOP:
        parts.pop(0)
    while parts and parts[-1].lower() in _STOP:
        parts.pop()
    return " ".join(parts)


def _abbreviations(text: str) -> dict[str, str]:
    from abbreviations import schwartz_hearst

    logging.getLogger("abbreviations.schwartz_hearst").setLevel(logging.ERROR)
    return schwartz_hearst.extract_abbreviation_definition_pairs(doc_text=text)


def _plausible(short: str, long: str) -> bool:
    words = long.split()
    return (1 < len(short) <= 12 and not _NOT_A_NAME.search(short) and any(ch.isupper() for ch in short)
            and 1 < len(words) <= MAX_LONG_WORDS
            and not any(ch.isdigit() for ch in long) and long.lower() != short.lower())


def _symbols(text: str) -> list[tuple[str, str]]:
    found = []
    for pattern in (_BRACKETED, _DEFINED):
        for m in pattern.finditer(text):
            symbol, long = _LATEX_MARKS.sub("", m.group("sym")).strip(), _long_form(m.group("long"))
            if symbol and long and len(long.split()) >= 2 and not _NOT_A_NAME.search(symbol) and not symbol.isdigit():
                found.append((symbol, long))
    return found


def vocabulary(chunks: Sequence[Chunk]) -> list[Term]:
    """Every abbreviation and symbol the current passages define, at its first definition."""
    terms: dict[str, Term] = {}
    for chunk in sorted((c for c in chunks if not c.superseded), key=lambda c: (c.doc_id, c.position)):
        for short, long in _abbreviations(math_to_words(chunk.text)).items():
            if short not in terms and _plausible(short, long):
                terms[short] = Term(short=short, long=long, place=place_of(chunk, f"{long} ({short})"))
        for short, long in _symbols(chunk.text):
            if short not in terms:
                terms[short] = Term(short=short, long=long, kind="symbol", place=place_of(chunk, long))
    return sorted(terms.values(), key=lambda t: t.short.lower())
