"""Render one version of one demo document as a collaboration note (reportlab): title page,
numbered sections, figures, tables, equations, line numbers, running header, page numbers,
in one or two columns. ``invariant`` PDFs: the same content gives the same bytes."""

from __future__ import annotations

import io
import re
from pathlib import Path

from reportlab.lib import colors
from reportlab.lib.enums import TA_CENTER, TA_JUSTIFY
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import cm
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import (
    BaseDocTemplate,
    Flowable,
    Frame,
    KeepTogether,
    NextPageTemplate,
    PageBreak,
    PageTemplate,
    Paragraph,
    Spacer,
    Table,
    TableStyle,
)

from demo.corpus_specs import (
    COLLABORATION,
    AnalysisSpec,
    Block,
    DocumentSpec,
    Equation,
    FigureBlock,
    Para,
    Section,
    TableBlock,
)
from demo.note_plots import _figure

FONT_DIR = Path("/usr/share/fonts/truetype/dejavu")  # Debian fonts-dejavu-core: Greek and math glyphs

PAGE_W, PAGE_H = A4
MARGIN_L, MARGIN_R, MARGIN_T, MARGIN_B = 2.6 * cm, 2.0 * cm, 2.4 * cm, 2.2 * cm
GUTTER = 0.8 * cm


# --------------------------------------------------------------------------- fonts and styles


def _register_fonts() -> None:
    faces = {
        "Serif": "DejaVuSerif.ttf",
        "Serif-Bold": "DejaVuSerif-Bold.ttf",
        "Serif-Italic": "DejaVuSerif-Italic.ttf",
        "Serif-BoldItalic": "DejaVuSerif-BoldItalic.ttf",
        "Sans": "DejaVuSans.ttf",
        "Sans-Bold": "DejaVuSans-Bold.ttf",
        "Sans-Oblique": "DejaVuSans-Oblique.ttf",
        "Sans-BoldOblique": "DejaVuSans-BoldOblique.ttf",
    }
    if "Serif" in pdfmetrics.getRegisteredFontNames():
        return
    missing = [f for f in faces.values() if not (FONT_DIR / f).is_file()]
    if missing:
        raise FileNotFoundError(f"DejaVu fonts missing in {FONT_DIR}: {missing} (apt install fonts-dejavu-core)")
    for name, file in faces.items():
        pdfmetrics.registerFont(TTFont(name, str(FONT_DIR / file)))
    for family in ("Serif", "Sans"):
        italic = "Italic" if family == "Serif" else "Oblique"
        pdfmetrics.registerFontFamily(
            family, normal=family, bold=f"{family}-Bold", italic=f"{family}-{italic}",
            boldItalic=f"{family}-Bold{italic}",
        )


def _styles() -> dict[str, ParagraphStyle]:
    body = ParagraphStyle("body", fontName="Serif", fontSize=9.5, leading=12.5, alignment=TA_JUSTIFY, spaceAfter=5)
    return {
        "body": body,
        "h1": ParagraphStyle("h1", fontName="Sans-Bold", fontSize=12, leading=15, spaceBefore=9, spaceAfter=5, keepWithNext=1),
        "h2": ParagraphStyle("h2", fontName="Sans-Bold", fontSize=10.5, leading=13, spaceBefore=6, spaceAfter=4, keepWithNext=1),
        "caption": ParagraphStyle("caption", parent=body, fontSize=8.5, leading=10.5, spaceBefore=3, spaceAfter=8),
        "equation": ParagraphStyle("equation", parent=body, alignment=TA_CENTER, spaceAfter=0),
        "reference": ParagraphStyle("reference", parent=body, fontSize=8.5, leading=10.5, leftIndent=16, firstLineIndent=-16, alignment=0),
        "banner": ParagraphStyle("banner", fontName="Sans-Bold", fontSize=11, leading=14, alignment=TA_CENTER),
        "title": ParagraphStyle("title", fontName="Sans-Bold", fontSize=16, leading=20, alignment=TA_CENTER, spaceBefore=14, spaceAfter=14),
        "authors": ParagraphStyle("authors", fontName="Serif", fontSize=10, leading=13, alignment=TA_CENTER),
        "small": ParagraphStyle("small", fontName="Serif-Italic", fontSize=8.5, leading=11, alignment=TA_CENTER),
        "cell": ParagraphStyle("cell", fontName="Serif", fontSize=8.5, leading=10.5),
        "head": ParagraphStyle("head", fontName="Serif-Bold", fontSize=8.5, leading=10.5),
    }


_ALLOWED_TAGS = r"(?:i|b|sub|super|br)\b"


def markup(text: str) -> str:
    """Content is written with a few reportlab tags (<i>, <sub>, <super>) and plain ``<``/``&``.
    DejaVu Serif has no ℓ (reportlab would draw .notdef, mapped to U+0000): it is set in Sans."""
    text = re.sub(r"&(?!(?:[a-zA-Z]+|#\d+);)", "&amp;", text)
    text = re.sub(rf"<(?!/?{_ALLOWED_TAGS})", "&lt;", " ".join(text.split()))
    return text.replace("ℓ", '<font name="Sans">ℓ</font>')


# --------------------------------------------------------------------------- page furniture


class NumberedParagraph(Paragraph):
    """A paragraph that prints running line numbers in the margin, like LaTeX ``lineno``."""

    def drawOn(self, canvas: Canvas, x: float, y: float, _sW: float = 0) -> None:
        super().drawOn(canvas, x, y, _sW)
        # One counter per document: the canvas is the one object all pages share.
        first = getattr(canvas, "line_number", 0) + 1
        lines = len(self.blPara.lines)
        canvas.line_number = first + lines - 1
        ascent = getattr(self.blPara, "ascent", self.style.fontSize)
        right_column = x > PAGE_W / 2
        canvas.saveState()
        canvas.setFont("Sans", 6.5)
        canvas.setFillColor(colors.grey)
        for i in range(lines):
            baseline = y + self.height - ascent - i * self.style.leading
            if right_column:
                canvas.drawString(x + self.width + 0.35 * cm, baseline, str(first + i))
            else:
                canvas.drawRightString(x - 0.35 * cm, baseline, str(first + i))
        canvas.restoreState()


def _page_furniture(header: str):
    def draw(canvas: Canvas, doc: BaseDocTemplate) -> None:
        canvas.saveState()
        canvas.setFont("Sans-Oblique", 8)
        top = PAGE_H - MARGIN_T + 0.9 * cm
        canvas.drawString(MARGIN_L, top, header)
        canvas.drawRightString(PAGE_W - MARGIN_R, top, f"{COLLABORATION} Collaboration")
        canvas.setLineWidth(0.4)
        canvas.line(MARGIN_L, top - 4, PAGE_W - MARGIN_R, top - 4)
        canvas.setFont("Sans", 9)
        canvas.drawCentredString(PAGE_W / 2, MARGIN_B - 1.1 * cm, f"– {doc.page} –")
        canvas.restoreState()

    return draw


# --------------------------------------------------------------------------- document rendering


def _numbering(doc: DocumentSpec) -> dict[str, str]:
    """Numbers for sections, figures, tables and equations, keyed by label, in reading order."""
    numbers: dict[str, str] = {}
    counters = {FigureBlock: 0, TableBlock: 0, Equation: 0}

    def walk(sections: list[Section], prefix: str) -> None:
        for i, section in enumerate(sections, 1):
            number = f"{prefix}{i}"
            if section.label:
                numbers[section.label] = number
            for block in section.blocks:
                if type(block) in counters:
                    counters[type(block)] += 1
                    if block.label:
                        numbers[block.label] = str(counters[type(block)])
            walk(section.subsections, f"{number}.")

    walk(doc.sections, "")
    return numbers


class _Renderer:
    def __init__(self, analysis: AnalysisSpec, doc: DocumentSpec) -> None:
        self.analysis, self.doc = analysis, doc
        self.styles = _styles()
        self.numbers = _numbering(doc)
        self.counters = {"figure": 0, "table": 0, "equation": 0}
        self.width = (PAGE_W - MARGIN_L - MARGIN_R - (GUTTER if doc.columns == 2 else 0)) / doc.columns

    def text(self, text: str) -> str:
        def ref(match: re.Match[str]) -> str:
            if match[1] not in self.numbers:
                raise KeyError(f"{self.doc.doc_id} {self.doc.version.label}: unknown reference [[{match[1]}]]")
            return self.numbers[match[1]]

        return markup(re.sub(r"\[\[([\w-]+)\]\]", ref, text))

    def title_page(self) -> list[Flowable]:
        s, doc = self.styles, self.doc
        return [
            Paragraph(f"{COLLABORATION} {doc.kind}", s["banner"]),
            Paragraph(f"{doc.doc_id} — version {doc.version.label} — {doc.version.date:%d %B %Y}", s["small"]),
            Paragraph(f"Analysis {self.analysis.id}", s["small"]),
            Spacer(1, 1.2 * cm),
            Paragraph(self.text(doc.title), s["title"]),
            Paragraph(self.text(", ".join(doc.authors)), s["authors"]),
            Spacer(1, 4),
            Paragraph(f"for the {COLLABORATION} Collaboration", s["small"]),
            Spacer(1, 1.0 * cm),
            Paragraph("Abstract", s["h2"]),
            NumberedParagraph(self.text(doc.abstract), s["body"]),
            Spacer(1, 1.5 * cm),
            Paragraph(
                f"This note is intended for {COLLABORATION} internal distribution only. "
                "All results are preliminary.", s["small"],
            ),
        ]

    def block(self, block: Block) -> Flowable:
        s = self.styles
        if isinstance(block, Para):
            return NumberedParagraph(self.text(block.text), s["body"])
        if isinstance(block, Equation):
            self.counters["equation"] += 1
            eq = Table(
                [[Paragraph(self.text(block.equation), s["equation"]), Paragraph(f"({self.counters['equation']})", s["body"])]],
                colWidths=[self.width - 1.2 * cm, 1.2 * cm],
            )
            eq.setStyle(TableStyle([("VALIGN", (0, 0), (-1, -1), "MIDDLE"), ("ALIGN", (1, 0), (1, 0), "RIGHT")]))
            return eq
        if isinstance(block, FigureBlock):
            self.counters["figure"] += 1
            caption = Paragraph(f"<b>Figure {self.counters['figure']}:</b> {self.text(block.caption)}", s["caption"])
            return KeepTogether([Spacer(1, 4), _figure(block.figure, self.width), caption])
        self.counters["table"] += 1
        caption = Paragraph(f"<b>Table {self.counters['table']}:</b> {self.text(block.caption)}", s["caption"])
        rows = [[Paragraph(self.text(c), s["head"]) for c in block.table.header]]
        rows += [[Paragraph(self.text(c), s["cell"]) for c in row] for row in block.table.rows]
        table = Table(rows, hAlign="CENTER", repeatRows=1)
        table.setStyle(TableStyle([
            ("LINEABOVE", (0, 0), (-1, 0), 0.8, colors.black),
            ("LINEBELOW", (0, 0), (-1, 0), 0.5, colors.black),
            ("LINEBELOW", (0, -1), (-1, -1), 0.8, colors.black),
            ("TOPPADDING", (0, 0), (-1, -1), 1.5),
            ("BOTTOMPADDING", (0, 0), (-1, -1), 1.5),
        ]))
        return KeepTogether([caption, table, Spacer(1, 8)])

    def section(self, section: Section, number: str) -> list[Flowable]:
        style = self.styles["h1" if "." not in number else "h2"]
        out: list[Flowable] = [NumberedParagraph(f"{number}&nbsp;&nbsp;{self.text(section.title)}", style)]
        out += [self.block(b) for b in section.blocks]
        for i, sub in enumerate(section.subsections, 1):
            out += self.section(sub, f"{number}.{i}")
        return out

    def story(self) -> list[Flowable]:
        story = self.title_page()
        if self.doc.columns == 2:
            story.append(NextPageTemplate("body"))
        story.append(PageBreak())
        for i, section in enumerate(self.doc.sections, 1):
            story += self.section(section, str(i))
        if self.doc.references:
            story.append(Paragraph("References", self.styles["h1"]))
            story += [Paragraph(f"[{i}]&nbsp;{self.text(r)}", self.styles["reference"]) for i, r in enumerate(self.doc.references, 1)]
        return story

    def render(self) -> tuple[bytes, int]:
        doc = self.doc
        header = doc.header.format(analysis=self.analysis.id, doc_id=doc.doc_id, version=doc.version.label)
        buffer = io.BytesIO()
        template = BaseDocTemplate(
            buffer, pagesize=A4, invariant=1, title=doc.title, author=f"{COLLABORATION} Collaboration",
            subject=f"{self.analysis.id} {doc.kind} {doc.version.label}", creator="MITRA demo/make_corpus.py",
        )
        furniture = _page_furniture(header)
        full = Frame(MARGIN_L, MARGIN_B, PAGE_W - MARGIN_L - MARGIN_R, PAGE_H - MARGIN_T - MARGIN_B, id="full")
        templates = [PageTemplate("first", [full], onPage=furniture)]
        if doc.columns == 2:
            columns = [
                Frame(MARGIN_L + i * (self.width + GUTTER), MARGIN_B, self.width, PAGE_H - MARGIN_T - MARGIN_B, id=f"col{i}")
                for i in range(2)
            ]
            templates.append(PageTemplate("body", columns, onPage=furniture))
        template.addPageTemplates(templates)
        template.build(self.story())
        return buffer.getvalue(), template.page
