"""The talk attached to a wiki topic: a PowerPoint deck (python-pptx), byte-for-byte
reproducible."""

from __future__ import annotations

import datetime as dt
import io
import zipfile

from pptx import Presentation
from pptx.util import Emu, Inches, Pt

from demo.corpus_specs import TalkSpec


def _fixed_zip(blob: bytes, date: dt.date) -> bytes:
    """The same zip with every member stamped ``date``: python-pptx stamps the time of saving."""
    out = io.BytesIO()
    stamp = (date.year, date.month, date.day, 9, 0, 0)
    with zipfile.ZipFile(io.BytesIO(blob)) as source, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for member in source.infolist():
            target.writestr(zipfile.ZipInfo(member.filename, stamp), source.read(member),
                            compress_type=zipfile.ZIP_DEFLATED)
    return out.getvalue()


def render_talk(talk: TalkSpec, author: str) -> bytes:
    """A 16:9 deck: a title slide, then title-and-content slides (a table below the bullets
    where a slide has one) with their speaker notes."""
    deck = Presentation()
    deck.slide_width, deck.slide_height = Inches(13.333), Inches(7.5)
    title_layout, content_layout, title_only = deck.slide_layouts[0], deck.slide_layouts[1], deck.slide_layouts[5]
    width = deck.slide_width - Inches(1.2)
    for number, spec in enumerate(talk.slides, 1):
        layout = title_layout if number == 1 else title_only if spec.table else content_layout
        slide = deck.slides.add_slide(layout)
        slide.shapes.title.text = spec.title
        if number == 1:
            slide.placeholders[1].text = "\n".join(spec.bullets)
        elif spec.table:
            box = slide.shapes.add_textbox(Inches(0.6), Inches(1.5), width, Inches(0.8)).text_frame
            box.text = "\n".join(spec.bullets)
            rows, cols = len(spec.table.rows) + 1, len(spec.table.header)
            table = slide.shapes.add_table(rows, cols, Inches(0.6), Inches(2.4), width, Inches(0.5) * rows).table
            for r, row in enumerate([spec.table.header, *spec.table.rows]):
                for c, value in enumerate(row):
                    table.cell(r, c).text = value
                    table.cell(r, c).text_frame.paragraphs[0].runs[0].font.size = Pt(20)
        else:
            body = slide.placeholders[1]
            body.left, body.width = Emu(Inches(0.6)), Emu(width)
            body.text = "\n".join(spec.bullets)
        if spec.notes:
            slide.notes_slide.notes_text_frame.text = " ".join(spec.notes.split())
    stamp = dt.datetime.combine(talk.date, dt.time(9, 0))
    props = deck.core_properties
    props.title, props.author, props.last_modified_by = talk.title, author, author
    props.created = props.modified = stamp
    props.revision = 1
    buffer = io.BytesIO()
    deck.save(buffer)
    return _fixed_zip(buffer.getvalue(), talk.date)
