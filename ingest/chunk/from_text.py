"""Text handed in whole -> paragraphs with their section paths -> chunks (the text front ends).

Front ends turn a document into ``Paragraph`` records with their section path and
say what they left out on purpose (``ParsedText``):

* ``parse_text`` here for text handed in whole (``mitra index-jsonl``), in one of
  three formats — LaTeX (sectioning commands, read by ``ingest.chunk.from_latex``), Markdown (``#`` headings, ``$``/``$$``
  maths, fenced code, tables) and plain text (section names on their own lines) —
  chosen by ``detect_format`` from the document's *structure*;
* ``ingest.chunk.from_blocks`` for PDF layout blocks.

They share one back end, ``ingest.chunk.paragraphs`` (packing, chunk ids, coverage).
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Iterable, Literal

from mitra.core.text import clean_latex, escape_percent, normalise_space, readable_latex
from ingest.chunk.paragraphs import MARKUP, ChunkedText, ParsedText, chunk_parsed
from ingest.chunk.coverage import word_counts
from ingest.chunk.from_latex import LATEX_HEADING, parse_latex
from ingest.chunk.sections import Sections
from ingest.chunk.shapes import IMAGES
from ingest.chunk.tables import HTML_TABLE, html_markup, html_rows, pipe_rows
from mitra.core.types import ChunkKind, Document

TextFormat = Literal["auto", "markdown", "latex", "text"]
TEXT_FORMATS: tuple[str, ...] = ("auto", "markdown", "latex", "text")


# ---------------------------------------------------------------- format detection
_LATEX_DOCUMENT = re.compile(r"\\(?:documentclass|begin\{document\}|maketitle)\b")
_MD_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_MD_SETEXT = re.compile(r"^(=+|-+)\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_MD_SIGNS = re.compile(r"^\s*(\$\$|\|[\s:|-]*-{3,}[\s:|-]*\||!\[|[-*+]\s|\d+\.\s)", re.M)


def detect_format(text: str) -> str:
    """``latex``, ``markdown`` or ``text``, from how the document marks its structure:
    sectioning commands, Markdown headings, or neither (section names on their own
    lines). Maths alone decides nothing: Markdown papers carry LaTeX maths too."""
    latex = len(LATEX_HEADING.findall(text)) + 3 * len(_LATEX_DOCUMENT.findall(text))
    markdown = sum(1 for line, _ in _markdown_lines(text) if _MD_HEADING.match(line))
    if latex > markdown:
        return "latex"
    if markdown:
        return "markdown"
    return "markdown" if len(_MD_SIGNS.findall(text)) >= 2 else "text"


def _markdown_lines(text: str) -> Iterable[tuple[str, bool]]:
    """(line, inside a fenced code block)."""
    fenced = False
    for line in text.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
            yield line, True
        else:
            yield line, fenced


def parse_text(text: str, fmt: str = "auto", anchors: bool = False) -> ParsedText:
    """Split a document's text into paragraphs carrying their section path; ``anchors``:
    a Markdown file's paragraphs also carry their heading's GitHub-style anchor."""
    if fmt not in TEXT_FORMATS:
        raise ValueError(f"unknown text format '{fmt}': choose one of {', '.join(TEXT_FORMATS)}")
    chosen = detect_format(text) if fmt == "auto" else fmt
    parsed = _parse_markdown(text, anchors) if chosen == "markdown" else \
        {"latex": parse_latex, "text": _parse_plain}[chosen](text)
    parsed.format = chosen
    return parsed


# ---------------------------------------------------------------- Markdown
_MD_CAPTION = re.compile(r"^(figure|fig\.|table)\s*\d+[.:]", re.I)
_MD_IMAGE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")
_MD_IMAGE_TARGET = re.compile(r"!\[[^\]]*\]\(([^)]*)\)")
_HTML_COMMENT = re.compile(r"<!--.*?-->", re.S)
_FRONT_MATTER = re.compile(r"\A---\n.*?\n---\n", re.S)
_DISPLAY_OPEN = re.compile(r"^\s*(\$\$|\\\[|\\begin\{(equation|align|eqnarray|multline|gather)\*?\})")
_DISPLAY_CLOSER = {"$$": "$$", "\\[": "\\]"}
# a converter may set the equation's number after the closing delimiter: "$$ (12)"
_NUMBER = r"\s*(?:\(\s*[\w.]{1,8}\s*\))?\s*$"
_DISPLAY_CLOSE = {opener: re.compile(re.escape(closer) + _NUMBER) for opener, closer in _DISPLAY_CLOSER.items()}
_MATH_ENV_CLOSE = re.compile(r"\\end\{(equation|align|eqnarray|multline|gather)\*?\}\s*$")
_DISPLAY_IN_TEXT = re.compile(r"\$\$(.*?)\$\$", re.S)
_MD_RULE = re.compile(r"^\s*([-*_]\s*){3,}$")
_IMAGE_FILE = r"!\[\s*(?:[\w./-]+\.(?:jpe?g|png|gif|svg|pdf|eps|tiff?|webp|bmp))?\s*\]\([^)]*\)"
_IMAGE_LINE = re.compile(rf"^[ \t]*{_IMAGE_FILE}(?:[ \t]*{_IMAGE_FILE})*[ \t]*$", re.M | re.I)
# "3.2. Hubble constant": converters number headings but set them all at one "#" level.
_SECTION_NUMBER = re.compile(r"^(\d{1,2}(?:\.\d{1,2}){0,4})\.?\s+\S")



def _parse_markdown(text: str, anchors: bool = False) -> ParsedText:
    reader = _MarkdownReader(anchors)
    front = _FRONT_MATTER.match(text)
    if front:
        reader.sections.out.drop(MARKUP, front.group(0))
        text = text[front.end() :]
    # comments and image addresses are not text a reader sees
    reader.sections.out.drop(MARKUP, *_HTML_COMMENT.findall(text))
    text = _HTML_COMMENT.sub("\n", text)
    # a converter's image line ("![img-21.jpeg](img-21.jpeg)") names a file, not what it shows
    reader.sections.out.drop(IMAGES, *_IMAGE_LINE.findall(text))
    text = _IMAGE_LINE.sub("", text)
    reader.sections.out.drop(MARKUP, *_MD_IMAGE_TARGET.findall(text))
    # an HTML table (MinerU writes them) is a table, its tags markup
    reader.sections.out.drop(MARKUP, *(tag for table in HTML_TABLE.findall(text) for tag in html_markup(table)))
    text = HTML_TABLE.sub(lambda m: "\n\n" + "\n".join(f"| {row} |" for row in html_rows(m.group(0)).splitlines())
                          + "\n\n", text)
    reader.read(list(_markdown_lines(text)))
    return reader.sections.finish()


class _MarkdownReader:
    """Line by line: headings (ATX and setext), fenced code, display maths, paragraphs."""

    def __init__(self, anchors: bool = False) -> None:
        self.sections = Sections(anchors)
        self.buffer: list[str] = []
        self.after_maths = False  # the last paragraph ended in display maths: "where ..." goes on

    def read(self, lines: list[tuple[str, bool]]) -> None:
        i = 0
        while i < len(lines):
            line, fenced = lines[i]
            if fenced:  # code is kept as it is: a "# comment" in it is no heading
                self.flush()
                start = i
                while i < len(lines) and lines[i][1]:
                    i += 1
                self.sections.add("\n".join(line for line, _ in lines[start:i]))
                continue
            if _DISPLAY_OPEN.match(line) and not _closes_mid_line(line):
                block, i = _display_block(lines, i)
                self.display_maths(_display_words(block))
                continue
            heading = _MD_HEADING.match(line)
            if heading:
                self.flush()
                title = _inline(heading.group(2))
                number = _SECTION_NUMBER.match(title)
                self.sections.heading(title, number.group(1).count(".") + 1 if number else len(heading.group(1)))
            elif len(self.buffer) == 1 and _MD_SETEXT.match(line):
                title = self.buffer.pop()
                self.sections.heading(_inline(title), 1 if line.strip()[0] == "=" else 2)
            elif not line.strip() or _MD_RULE.match(line):
                self.flush()
            else:
                self.buffer.append(line)
            i += 1
        self.flush()

    def flush(self) -> None:
        if not self.buffer:
            return
        block = "\n".join(self.buffer)
        self.buffer.clear()
        kind = _markdown_kind(block)
        text = pipe_rows(block) if kind is ChunkKind.table and block.lstrip().startswith("|") else \
            _inline(_DISPLAY_IN_TEXT.sub(lambda m: " " + _as_inline(m.group(1)) + " ", block))
        # "where x is ..." goes on the sentence the maths ended; a paragraph, if none is open
        if self.after_maths and kind is ChunkKind.body and text[:1].islower() and self.extend_last(text):
            self.sections.out.read.append(("body", block))
        else:
            self.sections.add(text, kind, raw=block)
        self.after_maths = False

    def display_maths(self, maths: str) -> None:
        """Display maths belongs to the sentence around it (as in the LaTeX and PDF front
        ends): it joins the open paragraph, or the one before the blank line."""
        if self.buffer:
            self.buffer.append(f"$${maths}$$")
            return
        if self.extend_last(readable_latex(_as_inline(maths))):
            self.sections.out.read.append((ChunkKind.equation.value, maths))
        else:
            self.sections.add(readable_latex(_as_inline(maths)), ChunkKind.equation, raw=maths)
        self.after_maths = True

    def extend_last(self, text: str) -> bool:
        """``text`` goes on the last paragraph (body, or display maths, which then reads as
        body) when it is in the current section."""
        out = self.sections.out.paragraphs
        if self.sections.dropping or not out or out[-1].kind not in (ChunkKind.body, ChunkKind.equation):
            return False
        if out[-1].section != tuple(self.sections.path):
            return False
        out[-1] = replace(out[-1], text=f"{out[-1].text} {text}", kind=ChunkKind.body)
        return True


def _display_block(lines: list[tuple[str, bool]], start: int) -> tuple[str, int]:
    """The display-maths block opening at ``start`` (to its closing delimiter), and the
    index after it."""
    first = lines[start][0].strip()
    opener = _DISPLAY_OPEN.match(first).group(1)
    close = _DISPLAY_CLOSE.get(opener, _MATH_ENV_CLOSE)
    if close.search(first[len(opener) :]):  # opens and closes on one line
        return first, start + 1
    end = start + 1
    while end < len(lines) and not close.search(lines[end][0]):
        if not lines[end][0].strip():  # maths never spans a blank line: this block was left open
            return "\n".join(line for line, _ in lines[start:end]), end
        end += 1
    return "\n".join(line for line, _ in lines[start : end + 1]), end + 1


def _closes_mid_line(line: str) -> bool:
    """``$$x$$ and more text``: display maths inside a text line, read with the line."""
    text = line.strip()
    opener = _DISPLAY_OPEN.match(text).group(1)
    closer = _DISPLAY_CLOSER.get(opener)
    if closer is None:
        return False
    at = text.find(closer, len(opener))
    return at != -1 and at != len(text) - len(closer)


def _display_words(block: str) -> str:
    return " ".join(re.sub(r"^\s*(\$\$|\\\[)|(\$\$|\\\])" + _NUMBER, "", block.strip()).split())


def _as_inline(maths: str) -> str:
    """Short display maths is shown inline (KaTeX draws it when it can); long maths is words."""
    return f"${maths.strip()}$" if len(maths) <= 200 else clean_latex(maths)


def _inline(markdown: str) -> str:
    """Markdown or plain text with LaTeX maths, for people and search: images become their
    alt text, maths KaTeX can draw stays ``$...$``, other markup is flattened to words.
    Table rows are kept as they are. A bare % is a percent sign here, not a LaTeX comment."""
    if markdown.lstrip().startswith("|"):
        return normalise_space(markdown)
    return readable_latex(escape_percent(_MD_IMAGE.sub(r"\1", markdown)))


def _markdown_kind(body: str) -> ChunkKind:
    if body.lstrip().startswith("|"):
        return ChunkKind.table
    if body.lstrip().startswith("$$") and body.rstrip().endswith("$$"):
        return ChunkKind.equation
    match = _MD_CAPTION.match(body.lstrip("*_ "))
    if match:
        return ChunkKind.table if match.group(1).lower() == "table" else ChunkKind.caption
    return ChunkKind.body


# ---------------------------------------------------------------- plain text
# "2.1 Data", "IV. Results", "A.2 Tables": the number sets the level.
_NUMBERED = re.compile(r"^(?:(\d+(?:\.\d+)*)\.?|([IVXLC]+)\.|([A-Z](?:\.\d+)*)\.?)\s+(\S.*)$")
_NOT_HEADING_START = tuple("-*•[(|$\\<>=+~#")


def _parse_plain(text: str) -> ParsedText:
    """Section names on their own lines (QASPER, text dumps of papers). Paragraphs are
    blank-line separated blocks when the text has them, otherwise single lines."""
    sections = Sections()
    lines = [line.rstrip() for line in text.splitlines()]
    nonblank = [line for line in lines if line.strip()]
    blank_separated = sum(1 for line in lines if not line.strip()) >= 0.1 * max(len(nonblank), 1)
    units = _blocks(lines) if blank_separated else [[line] for line in nonblank]
    for n, unit in enumerate(units):
        following = units[n + 1][0] if n + 1 < len(units) else None
        if following is not None and _is_heading_line(unit[0], following):
            title, level = _heading_level(unit[0].strip())
            sections.heading(title, level)
            unit = unit[1:]
        if unit:
            body = _inline(" ".join(line.strip() for line in unit))
            match = _MD_CAPTION.match(body)
            kind = (ChunkKind.table if match.group(1).lower() == "table" else ChunkKind.caption) if match else ChunkKind.body
            sections.add(body, kind, raw="\n".join(unit))
    return sections.finish()


def _blocks(lines: list[str]) -> list[list[str]]:
    blocks: list[list[str]] = [[]]
    for line in lines:
        if line.strip():
            blocks[-1].append(line)
        elif blocks[-1]:
            blocks.append([])
    return [b for b in blocks if b]


def _is_heading_line(line: str, following: str) -> bool:
    """A short line that does not read as a sentence, opening on a capital or a section
    number, followed by more text."""
    s = line.strip()
    words = s.split()
    if not s or len(s) > 100 or len(words) > 12 or s.startswith(_NOT_HEADING_START):
        return False
    numbered = _NUMBERED.match(s)
    if s[-1] in ".,;:?!" and not (numbered and s[-1] == "." and len(words) == 1):
        return False
    if not re.search(r"[A-Za-z]{2}", s) or not (s[0].isupper() or numbered):
        return False
    # a lower-case next line continues a sentence cut by a line break; nothing follows a heading
    return bool(following.strip()) and not following.strip()[0].islower()


def _heading_level(title: str) -> tuple[str, int]:
    numbered = _NUMBERED.match(title)
    if numbered and numbered.group(1):
        return title, numbered.group(1).count(".") + 1
    if numbered and numbered.group(3):
        return title, numbered.group(3).count(".") + 1
    return title, 1



def chunk_text(document: Document, text: str, min_chars: int, max_chars: int, fmt: str = "auto",
               anchors: bool = False) -> ChunkedText:
    """Markdown, LaTeX or plain text of one document version -> chunks, with coverage."""
    parsed = parse_text(text, fmt, anchors)
    latex = parsed.format == "latex"
    return chunk_parsed(document, parsed, word_counts([text], latex=latex), min_chars, max_chars, latex=latex)
