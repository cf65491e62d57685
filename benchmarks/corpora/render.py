"""One paper rendered as each kind of file a collaboration writes, for the ``mixed`` set:
a wiki page (HTML inside a TWiki/Confluence-like page's navigation chrome), a Word
file, a talk (PowerPoint, or a PDF of slides), Markdown and plain text.

The paper is read once by the text front end (``parse_text``: sections and their
paragraphs, captions and tables, references already left out) and every renderer
writes the same sections and paragraphs, so what the readers give back can be
scored against the same gold evidence. A talk holds a section as a group of slides
titled by the section, its sentences as bullets (a paragraph too long for a slide
goes on over the next), table rows as a table, and in PowerPoint the figure captions
as speaker notes.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ingest.chunk.from_text import parse_text
from mitra.core.text import normalise_space, split_sentences
from mitra.core.types import ChunkKind

FORMATS = ("html", "docx", "pptx", "markdown", "pdf-slides", "text")
SUFFIX = {"html": ".html", "docx": ".docx", "pptx": ".pptx", "markdown": ".md", "pdf-slides": ".pdf", "text": ".txt"}
# A slide's body: lines of about 80 characters, at most this many (a dense slide of ~150 words).
SLIDE_LINES = 14
SLIDE_CHARS = 80
_PIPE_RULE = re.compile(r"^\|?[\s:|-]*-{3,}[\s:|-]*\|?$")


@dataclass(frozen=True)
class Block:
    text: str
    kind: ChunkKind = ChunkKind.body


@dataclass
class Section:
    path: tuple[str, ...]
    blocks: list[Block] = field(default_factory=list)


@dataclass
class Paper:
    title: str
    sections: list[Section]


def paper_from_text(title: str, text: str) -> Paper:
    """The paper's sections in order, each with its paragraphs, captions and tables."""
    sections: list[Section] = []
    for p in parse_text(text).paragraphs:
        if not sections or sections[-1].path != p.section:
            sections.append(Section(p.section))
        sections[-1].blocks.append(Block(p.text if p.kind is ChunkKind.table else normalise_space(p.text), p.kind))
    return Paper(title, sections)


def render(paper: Paper, fmt: str, path: Path) -> Path:
    """Write ``paper`` as ``fmt`` (one of ``FORMATS``) to ``path`` + that format's suffix."""
    path = path.with_name(path.name + SUFFIX[fmt])
    writers = {"html": _html, "docx": _docx, "pptx": _pptx, "markdown": _markdown, "pdf-slides": _pdf_slides,
               "text": _text}
    writers[fmt](paper, path)
    return path


def headings(paper: Paper) -> Iterator[tuple[Section, list[tuple[int, str]]]]:
    """Each section with the headings (level, title) that open it: those of its path
    that differ from the section before."""
    previous: tuple[str, ...] = ()
    for section in paper.sections:
        common = next((i for i, (a, b) in enumerate(zip(previous, section.path)) if a != b),
                      min(len(previous), len(section.path)))
        yield section, [(level + 1, title) for level, title in enumerate(section.path) if level >= common]
        previous = section.path


def table_rows(block: Block) -> tuple[str, list[list[str]]]:
    """A pipe table's caption line (if any) and its rows of cells."""
    caption, rows = "", []
    for line in block.text.splitlines():
        if not line.strip().startswith("|"):
            caption = normalise_space(f"{caption} {line}")
        elif not _PIPE_RULE.match(line.strip()):
            rows.append([normalise_space(cell) for cell in line.strip().strip("|").split("|")])
    width = max((len(r) for r in rows), default=0)
    return caption, [r + [""] * (width - len(r)) for r in rows]


def anchor_of(title: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-") or "section"


# ---------------------------------------------------------------- documents
def _html(paper: Paper, path: Path) -> None:
    body: list[str] = [f"<h1>{html.escape(paper.title)}</h1>"]
    for section, opened in headings(paper):
        for level, title in opened:
            body.append(f'<h{level + 1} id="{anchor_of(title)}">{html.escape(title)}</h{level + 1}>')
        for block in section.blocks:
            if block.kind is ChunkKind.table:
                caption, rows = table_rows(block)
                cells = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>" for r in rows)
                body.append(f"<table><caption>{html.escape(caption)}</caption>{cells}</table>")
            else:
                body.append(f"<p>{html.escape(block.text)}</p>")
    title = html.escape(paper.title)
    menu = "".join(f'<li><a href="/wiki/{p}">{p}</a></li>' for p in ("Home", "Analyses", "Meetings", "Software", "Help"))
    path.write_text(f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title} - Collaboration Wiki</title></head>
<body>
<header id="site-header"><nav class="navbar"><ul>{menu}</ul>
<form action="/search"><input name="q" placeholder="Search the wiki"></form>
<a href="/login">Log in</a></nav></header>
<div class="breadcrumbs"><a href="/wiki/Home">Home</a> &raquo; <a href="/wiki/Analyses">Analyses</a> &raquo; {title}</div>
<div id="page">
<aside class="sidebar"><h3>Navigation</h3><ul>{menu}<li><a href="/wiki/Recent">Recent changes</a></li></ul>
<h3>Tools</h3><ul><li><a href="?raw">Raw view</a></li><li><a href="?print">Print version</a></li>
<li><a href="?history">History</a></li></ul></aside>
<main id="content"><article>
{chr(10).join(body)}
</article></main>
</div>
<footer id="site-footer"><p>This page was last edited on 12 March 2026 by the analysis contact.</p>
<p><a href="/privacy">Privacy policy</a> | <a href="/about">About the wiki</a> | <a href="/contact">Contact</a></p></footer>
</body></html>
""", encoding="utf-8")


def _docx(paper: Paper, path: Path) -> None:
    from docx import Document

    document = Document()
    document.add_heading(paper.title, 0)
    for section, opened in headings(paper):
        for level, title in opened:
            document.add_heading(title, min(level, 9))
        for block in section.blocks:
            if block.kind is ChunkKind.table:
                caption, rows = table_rows(block)
                document.add_paragraph(caption, style="Caption")
                if rows:
                    table = document.add_table(rows=len(rows), cols=len(rows[0]))
                    for r, row in enumerate(rows):
                        for c, cell in enumerate(row):
                            table.cell(r, c).text = cell
            else:
                document.add_paragraph(block.text, style="Caption" if block.kind is ChunkKind.caption else None)
    document.save(path)


def _markdown(paper: Paper, path: Path) -> None:
    out = [f"**{paper.title}**"]
    for section, opened in headings(paper):
        out += [f"{'#' * level} {title}" for level, title in opened]
        out += [block.text for block in section.blocks]
    path.write_text("\n\n".join(out) + "\n", encoding="utf-8")


def _text(paper: Paper, path: Path) -> None:
    out = [paper.title]
    for section, opened in headings(paper):
        out += [title for _, title in opened]
        for block in section.blocks:
            if block.kind is ChunkKind.table:
                caption, rows = table_rows(block)
                out.append("\n".join([caption, *("\t".join(r) for r in rows)]).strip())
            else:
                out.append(block.text)
    path.write_text("\n\n".join(out) + "\n", encoding="utf-8")


# ---------------------------------------------------------------- talks
@dataclass
class Slide:
    title: str
    bullets: list[str] = field(default_factory=list)
    table: list[list[str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def lines(self) -> int:
        return sum(-(-len(b) // SLIDE_CHARS) for b in self.bullets) + len(self.table)


def slides(paper: Paper, notes: bool) -> list[Slide]:
    """The talk: a title slide, then each section as slides titled by it, filled
    sentence by sentence up to ``SLIDE_LINES``; a table on a slide of its own.
    ``notes``: captions go to the speaker notes instead of the slide."""
    deck = [Slide(paper.title, ["Collaboration meeting, 12 March 2026"])]
    for section in paper.sections:
        title = section.path[-1] if section.path else paper.title
        current = Slide(title)
        deck.append(current)
        for block in section.blocks:
            if block.kind is ChunkKind.table:
                caption, rows = table_rows(block)
                deck.append(Slide(title, [caption] if caption else [], rows))
                current = Slide(title)
                deck.append(current)
                continue
            if block.kind is ChunkKind.caption and notes:
                current.notes.append(block.text)
                continue
            for sentence in split_sentences(block.text) or [block.text]:
                if current.bullets and current.lines() + -(-len(sentence) // SLIDE_CHARS) > SLIDE_LINES:
                    current = Slide(title)
                    deck.append(current)
                current.bullets.append(sentence)
    return [s for s in deck if s.bullets or s.table or s.notes]


def _pptx(paper: Paper, path: Path) -> None:
    from pptx import Presentation
    from pptx.util import Inches, Pt

    deck = Presentation()
    for number, slide in enumerate(slides(paper, notes=True)):
        page = deck.slides.add_slide(deck.slide_layouts[0 if number == 0 else 5 if slide.table else 1])
        page.shapes.title.text = slide.title
        if number == 0:
            page.placeholders[1].text = slide.bullets[0]
            continue
        if slide.table:
            top = Inches(1.6)
            if slide.bullets:
                box = page.shapes.add_textbox(Inches(0.5), Inches(1.3), Inches(9), Inches(0.5)).text_frame
                box.text = slide.bullets[0]
            shape = page.shapes.add_table(len(slide.table), len(slide.table[0]), Inches(0.5), top, Inches(9), Inches(4))
            for r, row in enumerate(slide.table):
                for c, cell in enumerate(row):
                    shape.table.cell(r, c).text = cell
        else:
            frame = page.placeholders[1].text_frame
            frame.text = slide.bullets[0] if slide.bullets else ""
            for bullet in slide.bullets[1:]:
                frame.add_paragraph().text = bullet
            for paragraph in frame.paragraphs:
                paragraph.font.size = Pt(14)
        if slide.notes:
            page.notes_slide.notes_text_frame.text = "\n".join(slide.notes)
    deck.save(path)


def _pdf_slides(paper: Paper, path: Path) -> None:
    """A 4:3 deck as PowerPoint exports it: the title large at the top, bullets, the
    talk's name and the slide number in the footer of every slide."""
    from reportlab.pdfbase.pdfmetrics import stringWidth
    from reportlab.pdfgen.canvas import Canvas

    from demo.render_note import _register_fonts

    _register_fonts()
    width, height = 720.0, 540.0
    canvas = Canvas(str(path), pagesize=(width, height), invariant=1)
    footer = paper.title if len(paper.title) <= 70 else paper.title[:67].rsplit(" ", 1)[0] + "…"

    def wrap(text: str, font: str, size: float, room: float) -> list[str]:
        lines: list[str] = []
        for word in text.split():
            if lines and stringWidth(f"{lines[-1]} {word}", font, size) <= room:
                lines[-1] += f" {word}"
            else:
                lines.append(word)
        return lines

    for number, slide in enumerate(slides(paper, notes=False), 1):
        if number == 1:
            canvas.setFont("Sans-Bold", 26)
            y = height * 0.62
            for line in wrap(slide.title, "Sans-Bold", 26, width - 120):
                canvas.drawCentredString(width / 2, y, line)
                y -= 32
            canvas.setFont("Sans", 16)
            canvas.drawCentredString(width / 2, y - 24, slide.bullets[0])
            canvas.showPage()
            continue
        canvas.setFont("Sans-Bold", 24)
        y = height - 60
        for line in wrap(slide.title, "Sans-Bold", 24, width - 80):
            canvas.drawString(40, y, line)
            y -= 28
        y -= 14
        for bullet in slide.bullets:
            for i, line in enumerate(wrap(bullet, "Sans", 15, width - 100)):
                canvas.setFont("Sans", 15)
                if i == 0:
                    canvas.drawString(44, y, "•")
                canvas.drawString(62, y, line)
                y -= 19
            y -= 6
        if slide.table:
            column = (width - 100) / len(slide.table[0])
            canvas.setFont("Sans", 11)
            for row in slide.table:
                for c, cell in enumerate(row):
                    canvas.drawString(50 + c * column, y, cell)
                y -= 15
        canvas.setFont("Sans", 9)
        canvas.drawString(40, 20, footer)
        canvas.drawRightString(width - 40, 20, str(number))
        canvas.showPage()
    canvas.save()
