"""Text left out on purpose, recognised by its shape rather than by a heading above it.

PDF-to-Markdown converters often lose the "References" heading, set the affiliations
as plain lines under the title and the acknowledgements as a bare paragraph. Those
blocks are furniture for retrieval, and counting their words as loss makes a good
paper fail its coverage check. The tests here are conservative: a body paragraph
that cites a paper inline is prose, and a reference list is only recognised as a
run of at least ``MIN_REFERENCES`` entries.
"""

from __future__ import annotations

import re

# What was dropped, for the report: one name per kind of text.
REFERENCES = "references"
AFFILIATIONS = "affiliations"
ACKNOWLEDGEMENTS = "acknowledgements"
IMAGES = "images"
AUTHORS = "author list"
FIGURE_TEXT = "figure text"  # words drawn inside a figure (axis labels, legends), set aside by the PDF layout

MIN_REFERENCES = 3  # entries in a run before it counts as a reference list

# An entry opens on a marker ("[12]", "12.", "(12)", "- ") or on an author ("Smith, J.",
# "A. B. Smith", "Smith J.", "LHCb collaboration").
_ENTRY_MARK = re.compile(r"^\s*(?:\[\d{1,4}\]|\(\d{1,4}\)|\d{1,4}\.(?=\s)|[-*•]\s)")
_NAME = r"[A-Z][\w'’-]+"
_INITIALS = r"(?:[A-Z]\.\s?-?)"
_AUTHOR_START = re.compile(
    rf"^\s*(?:{_NAME},\s+{_INITIALS}+|{_INITIALS}{{1,3}}\s*{_NAME}|{_NAME}\s+[A-Z]\.(?:[A-Z]\.)*[,\s]"
    r"|(?:The\s+)?[A-Z][\w-]*\s+[Cc]ollaboration\b)"
)
# authors near the start of a numbered entry ("[9] Particle Data Group, R. L. Workman et al.")
_AUTHORS = re.compile(rf"{_INITIALS}{{1,3}}\s?{_NAME}|{_NAME},\s+[A-Z]\.|\bet\s+al\b|[Cc]ollaboration\b")
_YEAR = re.compile(r"(?<![\d.])(?:19|20)\d{2}[a-z]?(?![\d.])")
_JOURNAL = re.compile(
    r"\b(?:Phys\.\s?Rev|Phys\.\s?Lett|Nucl\.\s?(?:Phys|Instrum)|Eur\.\s?Phys|JHEP|JCAP|ApJ[LS]?|MNRAS|A&A|AJ|PASP"
    r"|Astron|Astrophys|Nature|Science|Ann\.\s?Rev|Rev\.\s?Mod|Prog\.\s?Theor|Comput\.\s?Phys|Chin\.\s?Phys"
    r"|Class\.\s?Quant|Living\s+Rev|Int\.\s?J|Mod\.\s?Phys|Z\.\s?Phys|Sov\.\s?J|Proc\.|J\.\s?Phys|J\.\s?Instrum"
    r"|Physical\s+Review|Monthly\s+Notices|Astrophysical\s+Journal)\b"
)
_IDENTIFIER = re.compile(r"arXiv|\bdoi\b|10\.\d{4,}/|\b(?:hep|astro|gr|nucl)-(?:ph|ex|th|qc)\b|\bISBN\b", re.I)
# volume (year) page; ", 873, 12"; "98:030001"
_VOLUME_PAGE = re.compile(
    r"\b\d{1,4}\s*\((?:19|20)\d{2}\)\s*[A-Z]?\d+|,\s*\d{1,4},\s*[A-Z]?\d{1,6}\b|\b\d{1,4}:\d{2,6}\b"
)

_INSTITUTION = re.compile(
    r"\b(?:Univ(?!erse)\w*|Institu\w*|Istitut\w*|D[ei]part\w*|Dept\.|Laborat\w*|Observato\w*|Cent(?:er|re|ro)"
    r"|Zentrum|School|Facult\w*|College|Academy|Academia|INFN|CERN|DESY|Fermilab|KEK|CNRS|IN2P3|Max[- ]Planck"
    r"|Sezione|Research|Hospital|Foundation)\b"
)
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+\.[\w.-]+")
_AFFILIATION_MARK = re.compile(
    r"^\s*(?:\$\^\{?[\w,*]{1,6}\}?\$|\^\{?[\w,*]{1,4}\}?|<sup>\w{1,4}</sup>|[¹²³⁴⁵⁶⁷⁸⁹⁰]+|\d{1,3}\s)"
)
# Words that make a line a sentence rather than an address.
_PROSE = re.compile(
    r"\b(?:we|our|is|are|was|were|be|been|this|that|these|which|has|have|using|shows?|find|found)\b", re.I
)

_ACKNOWLEDGEMENT = re.compile(
    r"^[\s*_#]*(?:acknowledg|(?:we|the\s+authors?)\s+(?:would\s+like\s+to\s+|wish\s+to\s+|also\s+)?"
    r"(?:thank|acknowledge|are\s+(?:grateful|indebted)|express\s+(?:our|their)\s+(?:gratitude|thanks))"
    r"|this\s+(?:work|research|project)\s+(?:was|is|has\s+been)\s+(?:partly\s+|partially\s+|in\s+part\s+)?"
    r"(?:supported|funded))",
    re.I,
)


def reference_entries(block: str) -> int:
    """How many reference entries ``block`` is made of (0 when any part of it reads
    otherwise). A new entry opens on a line that starts with a marker or an author;
    other lines continue the entry above (a long reference wraps)."""
    entries: list[str] = []
    for line in block.splitlines():
        if not line.strip():
            continue
        if not entries or _ENTRY_MARK.match(line) or _AUTHOR_START.match(line):
            entries.append(line)
        else:
            entries[-1] += " " + line
    # one odd entry in five (a reference with a sentence for a title) does not undo the list
    return len(entries) if entries and 5 * sum(map(_is_reference, entries)) >= 4 * len(entries) else 0


def _is_reference(entry: str) -> bool:
    """One citation: opens like one (an author, or a number then authors), carries a
    year and where it appeared (journal, volume and page, arXiv or DOI), and is not a
    sentence."""
    opens = _AUTHOR_START.match(entry) or _ENTRY_MARK.match(entry) and _AUTHORS.search(entry[:120])
    if len(entry) > 800 or not opens:
        return False
    where = bool(_JOURNAL.search(entry)) + bool(_IDENTIFIER.search(entry)) + bool(_VOLUME_PAGE.search(entry))
    dated = bool(_YEAR.search(entry)) or bool(_IDENTIFIER.search(entry))
    return dated and where >= 1 and len(_PROSE.findall(entry)) <= max(1, len(entry.split()) // 15)


def is_affiliation_block(block: str) -> bool:
    """Lines of institutions and addresses ("^1 Department of Physics, University of X,
    City, Country", an e-mail): none reads as a sentence, and at least two in three
    name an institution (one in a long list may be a name this module does not know)."""
    lines = [line for line in block.splitlines() if line.strip()]
    if not lines or any(len(line) > 300 or _PROSE.search(line) for line in lines):
        return False
    return 3 * sum(map(_is_affiliation, lines)) >= 2 * len(lines)


def _is_affiliation(line: str) -> bool:
    if _EMAIL.search(line) and len(_EMAIL.sub("", line).split()) <= 12:
        return True
    return bool(_INSTITUTION.search(line)) and ("," in line or bool(_AFFILIATION_MARK.match(line)))


def is_acknowledgement(block: str) -> bool:
    """A paragraph that opens "We thank", "Acknowledgements", "We express our gratitude",
    "This work was supported"."""
    return bool(_ACKNOWLEDGEMENT.match(block))


def shape_of(block: str) -> tuple[str, int] | None:
    """(kind, reference entries) of a block dropped on purpose by its shape, else None.
    A reference block is only dropped inside a run of ``MIN_REFERENCES`` entries (the
    caller sees the run); the other kinds stand alone."""
    if is_acknowledgement(block):
        return ACKNOWLEDGEMENTS, 0
    entries = reference_entries(block)
    if entries:
        return REFERENCES, entries
    if is_affiliation_block(block):
        return AFFILIATIONS, 0
    return None
