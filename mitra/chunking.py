"""Paragraph chunking with provenance.

Two front ends produce ``Paragraph`` records — ``parse_text`` here for Markdown /
LaTeX text (``mitra index-jsonl``), and ``ingest.chunk`` for PDF layout blocks —
and share one back end: ``pack_paragraphs`` (merge tiny paragraphs, split huge
ones at sentence boundaries) and ``make_chunks`` (deterministic ids).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from mitra.text import clean_latex, normalise_space, readable_latex, split_sentences
from mitra.types import Chunk, ChunkKind, Document, chunk_id


@dataclass(frozen=True)
class Paragraph:
    text: str
    section: tuple[str, ...] = ()
    kind: ChunkKind = ChunkKind.body
    page_start: int | None = None
    page_end: int | None = None


# Sections whose text is furniture for a reader, noise for retrieval.
_DROP_SECTION = re.compile(r"^(acknowledg|references|bibliography|author list|funding)", re.I)


def is_dropped_section(title: str) -> bool:
    return bool(_DROP_SECTION.match(title.strip()))


# ---------------------------------------------------------------- Markdown / LaTeX
_LATEX_HEADING = re.compile(
    r"\\(section|subsection|subsubsection|paragraph)\*?\s*(?:\[[^\]]*\])?\s*\{((?:[^{}]|\{[^{}]*\})*)\}"
)
_LATEX_LEVEL = {"section": 1, "subsection": 2, "subsubsection": 3, "paragraph": 4}
_LATEX_ENV = re.compile(
    r"\\begin\{(figure\*?|table\*?|equation\*?|align\*?|eqnarray\*?|multline\*?|gather\*?|abstract|"
    r"thebibliography)\}(.*?)\\end\{\1\}",
    re.S,
)
_CAPTION = re.compile(r"\\caption\s*(?:\[[^\]]*\])?\s*\{((?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*)\}", re.S)
_MD_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_MD_CAPTION = re.compile(r"^(figure|fig\.|table)\s*\d+[.:]", re.I)


def parse_text(text: str) -> list[Paragraph]:
    """Split a document's text into paragraphs carrying their section path.
    LaTeX is recognised by its sectioning commands, otherwise Markdown headings."""
    if _LATEX_HEADING.search(text) or "\\begin{" in text:
        return _parse_latex(text)
    return _parse_markdown(text)


def _parse_markdown(text: str) -> list[Paragraph]:
    paragraphs: list[Paragraph] = []
    path: list[str] = []
    buffer: list[str] = []

    def flush() -> None:
        body = normalise_space("\n".join(buffer))
        buffer.clear()
        if body and not (path and is_dropped_section(path[0])):
            paragraphs.append(Paragraph(body, tuple(path), _markdown_kind(body)))

    for line in text.splitlines():
        heading = _MD_HEADING.match(line)
        if heading:
            flush()
            level = len(heading.group(1))
            path[:] = path[: level - 1] + [heading.group(2).strip()]
        elif not line.strip():
            flush()
        else:
            buffer.append(line)
    flush()
    return paragraphs


def _markdown_kind(body: str) -> ChunkKind:
    if body.startswith("|"):
        return ChunkKind.table
    if body.startswith("$$"):
        return ChunkKind.equation
    match = _MD_CAPTION.match(body)
    if match:
        return ChunkKind.table if match.group(1).lower() == "table" else ChunkKind.caption
    return ChunkKind.body


def _parse_latex(text: str) -> list[Paragraph]:
    text = re.sub(r"(?<!\\)%.*", "", text)
    headings = list(_LATEX_HEADING.finditer(text))
    paragraphs: list[Paragraph] = []
    path: list[str] = []
    # Text before the first heading is the title block / author list in papers: kept
    # only when it reads like prose (an abstract environment is kept anywhere).
    starts = [0] + [h.end() for h in headings]
    ends = [h.start() for h in headings] + [len(text)]
    for i, (start, end) in enumerate(zip(starts, ends)):
        if i > 0:
            heading = headings[i - 1]
            level = _LATEX_LEVEL[heading.group(1)]
            path = path[: level - 1] + [clean_latex(heading.group(2))]
        if path and is_dropped_section(path[0]):
            continue
        paragraphs.extend(_latex_section_body(text[start:end], tuple(path), preamble=i == 0))
    return paragraphs


def _latex_section_body(body: str, section: tuple[str, ...], preamble: bool) -> list[Paragraph]:
    out: list[Paragraph] = []
    pos = 0
    prose: list[str] = []
    for env in _LATEX_ENV.finditer(body):
        prose.append(body[pos : env.start()])
        pos = env.end()
        name, content = env.group(1).rstrip("*"), env.group(2)
        if name in ("figure", "table"):
            caption = _CAPTION.search(content)
            words = readable_latex(caption.group(1)) if caption else ""
            if name == "table":
                rest = content[: caption.start()] + content[caption.end() :] if caption else content
                words = normalise_space(f"{words}\n{clean_latex(rest)}")
            if words:
                kind = ChunkKind.table if name == "table" else ChunkKind.caption
                out.append(Paragraph(words, section, kind))
        elif name == "abstract":
            out.extend(_prose_paragraphs(content, ("Abstract",)))
        elif name != "thebibliography":
            # Display maths belongs to the sentence around it: keep it in the prose flow.
            prose.append(f" {content} ")
    prose.append(body[pos:])
    text = "".join(prose)
    if preamble and _looks_like_author_list(text):
        return out
    return _prose_paragraphs(text, section) + out


def _prose_paragraphs(latex: str, section: tuple[str, ...]) -> list[Paragraph]:
    return [
        Paragraph(clean, section)
        for block in re.split(r"\n\s*\n|\\par\b", latex)
        if (clean := readable_latex(block))
    ]


def _looks_like_author_list(latex: str) -> bool:
    marks = latex.count("$^") + latex.count("\\inst") + latex.count("\\author") + latex.count("\\affil")
    return marks >= 3 or "Collaboration" in latex[:400] or "\\maketitle" in latex


# ---------------------------------------------------------------- packing
def pack_paragraphs(paragraphs: list[Paragraph], min_chars: int, max_chars: int) -> list[Paragraph]:
    """Merge consecutive small body paragraphs of one section; split paragraphs
    longer than ``max_chars`` at sentence boundaries. Captions and tables stay alone."""
    pieces = [piece for p in paragraphs for piece in _split_long(p, max_chars)]
    packed: list[Paragraph] = []
    for p in pieces:
        last = packed[-1] if packed else None
        if (
            last is not None
            and p.kind is ChunkKind.body
            and last.kind is ChunkKind.body
            and last.section == p.section
            and (len(last.text) < min_chars or len(p.text) < min_chars)
            and len(last.text) + len(p.text) + 1 <= max_chars
        ):
            packed[-1] = replace(
                last,
                text=f"{last.text}\n{p.text}",
                page_end=p.page_end if p.page_end is not None else last.page_end,
            )
        else:
            packed.append(p)
    return packed


def _split_long(p: Paragraph, max_chars: int) -> list[Paragraph]:
    if len(p.text) <= max_chars:
        return [p]
    groups: list[str] = []
    for sentence in split_sentences(p.text):
        for part in _hard_wrap(sentence, max_chars):
            if groups and len(groups[-1]) + 1 + len(part) <= max_chars:
                groups[-1] += " " + part
            else:
                groups.append(part)
    return [replace(p, text=g) for g in groups]


def _hard_wrap(sentence: str, max_chars: int) -> list[str]:
    """A single sentence over the limit (a table row dump, a formula) is cut at spaces."""
    out: list[str] = []
    while len(sentence) > max_chars:
        cut = sentence.rfind(" ", 0, max_chars)
        cut = cut if cut > 0 else max_chars
        out.append(sentence[:cut].strip())
        sentence = sentence[cut:].strip()
    if sentence:
        out.append(sentence)
    return out


def make_chunks(document: Document, paragraphs: list[Paragraph]) -> list[Chunk]:
    return [
        Chunk(
            id=chunk_id(document.doc_id, document.version, i, p.text),
            analysis_id=document.analysis_id,
            doc_id=document.doc_id,
            version=document.version,
            position=i,
            section=list(p.section),
            page_start=p.page_start,
            page_end=p.page_end,
            kind=p.kind,
            text=p.text,
        )
        for i, p in enumerate(paragraphs)
    ]


def chunk_text(document: Document, text: str, min_chars: int, max_chars: int) -> list[Chunk]:
    """Markdown or LaTeX text of one document version -> chunks."""
    return make_chunks(document, pack_paragraphs(parse_text(text), min_chars, max_chars))
