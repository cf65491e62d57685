"""Layout: the regular expressions the rules share (captions, equation numbers, headings, page numbers…)."""

from __future__ import annotations

import re

_INTEGER = re.compile(r"^\d{1,4}$")
# A glyph with no character (U+FFFD from PDFium) or a private-use code (pieces of
# big brackets in maths fonts): nothing a reader could search for.
UNMAPPED = re.compile(r"\ufffd|[\ue000-\uf8ff]")
_CAPTION = re.compile(r"^(extended data )?(figure|fig\.|table|tab\.)\s*(\d+|[A-Z]\.?\d+)[a-z]?\s*[:.|]", re.I)
_TABLE_CAPTION = re.compile(r"^(extended data )?(table|tab\.)", re.I)
_EQUATION_NUMBER = re.compile(r"\(\s*\d+[a-z]?\s*\)$")
_PAGE_NUMBER = re.compile(
    r"^(?:page\s+)?[-–—]?\s*(\d{1,4}|[ivxlc]{1,6})\s*[-–—]?(?:\s*(?:of|/)\s*\d{1,4})?$", re.I
)
_FOOTNOTE_MARK = re.compile(r"^([\d∗*†‡§¶]|[a-z]\s)")
_SENTENCE_END = re.compile(r"[.!?:]['\")\]]?$")
_MATH_CHARS = frozenset("=+−×±<>≤≥∝→←↔⇒⇔∑∏∫√∼≈≡∞∂∇·⊗⊕∈∀∃|^_") | frozenset(
    chr(c) for c in range(0x391, 0x3CA)
)
# "3", "3.2", "3.2.", "A", "A.1", "IV." followed by the title words.
_NUMBERED_HEADING = re.compile(r"^((?:\d{1,2}\.)*\d{1,2}\.?|[A-Z](?:\.\d{1,2})*\.?|[IVX]{1,5}\.)\s+(\S.*)$")
_KNOWN_HEADINGS = re.compile(
    r"^(abstract|introduction|conclusions?|summary|acknowledge?ments?|references|bibliography|"
    r"appendix|appendices)\b",
    re.I,
)
_REFERENCES = re.compile(r"^(references|bibliography)$", re.I)
_COLLABORATION = re.compile(r"^(?:[A-Z]\.?\s+)?The \w+ Collaboration\b")
# "J. Doe", "F.R. Cavallo", "A.-M. Smith": initials then a capitalised surname.
_PERSON = re.compile(r"\b(?:[A-Z][a-z]?\.\s?-?){1,3}\s?[A-Z][\w'’\-]+")
_AFTER_ABSTRACT = re.compile(
    r"^(submitted|published|accepted|to appear|keywords|pacs|©|\(c\)|c\s\d{4}|[∗*†]|see appendix|"
    r"dedicated|this paper is dedicated|presented at|e-?mail)",
    re.I,
)
