"""The reader is chosen by the file's content, and each reader's blocks: sections named by
a slide's title or a heading (with its anchor), tables kept as rows, notes marked, the
chrome of a web page left out. Files are built here with the real libraries."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from ingest.extract.layout import BlockKind
from ingest.extract.base import CorruptFileError, EmptyFileError, EncryptedOfficeError, UnsupportedFileError
from ingest.extract.readers import detect_format, read_document
from mitra.core.settings import Settings
from tests.fixtures.documents import (
    CHROME, PHRASES, TALK_TABLE_SLIDE, wiki_page, write_docx, write_encrypted_docx, write_legacy_doc, write_pptx,
)


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("readers")
    pptx, docx = write_pptx(root / "talk.pptx"), write_docx(root / "note.docx")
    encrypted = write_encrypted_docx(root / "locked.docx", docx)
    made = {
        "pptx": pptx, "docx": docx, "encrypted": encrypted, "legacy": write_legacy_doc(root / "old.doc", encrypted),
        "html": root / "page.html", "markdown": root / "notes.txt", "markdown-by-name": root / "plain.md",
        "text": root / "minutes.txt", "latex": root / "paper.tex", "png-as-pptx": root / "slides.pptx",
        "truncated": root / "cut.docx", "zip": root / "bundle.zip", "xlsx": root / "sheet.xlsx",
        "html-as-pdf": root / "download.pdf", "empty": root / "empty.md", "latin-1": root / "old.txt",
        "pdf": root / "note.pdf",
    }
    made["html"].write_text(wiki_page(), encoding="utf-8")
    made["markdown"].write_text("# Selection\n\nEvents with one jet.\n\n- a list item\n- another\n")
    made["markdown-by-name"].write_text("Just a sentence, no structure at all.\n")
    made["text"].write_text("Minutes of the meeting.\nThe timing offset was discussed.\n")
    made["latex"].write_text("\\documentclass{article}\n\\begin{document}\n\\section{Intro}\nText.\n\\end{document}\n")
    made["png-as-pptx"].write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(64))
    made["truncated"].write_bytes(docx.read_bytes()[:2000])
    with zipfile.ZipFile(made["zip"], "w") as archive:
        archive.writestr("notes.txt", "hello")
    with zipfile.ZipFile(made["xlsx"], "w") as archive:
        archive.writestr("[Content_Types].xml", '<Types><Override ContentType="application/'
                         'vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/></Types>')
    made["html-as-pdf"].write_bytes(b"<!DOCTYPE html><html><body>Session expired, please log in</body></html>")
    made["empty"].write_bytes(b"")
    made["latin-1"].write_bytes("Caf\xe9 des physiciens".encode("latin-1"))
    made["pdf"].write_bytes(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    return made


@pytest.mark.parametrize("kind", ["pdf", "pptx", "docx", "html", "markdown", "text", "latex"])
def test_each_format_is_told_by_its_content(files, kind):
    assert detect_format(files[kind]) == kind


def test_the_name_only_breaks_a_tie_between_markdown_and_text(files):
    assert detect_format(files["markdown-by-name"]) == "markdown"  # no structure, a .md name
    assert detect_format(files["markdown"]) == "markdown"  # structure, a .txt name


@pytest.mark.parametrize(("kind", "error", "says"), [
    ("encrypted", EncryptedOfficeError, "password-protected"),
    ("legacy", UnsupportedFileError, "save it as .docx"),
    ("png-as-pptx", UnsupportedFileError, "PNG image"),
    ("truncated", CorruptFileError, "damaged"),
    ("zip", UnsupportedFileError, "ZIP archive"),
    ("xlsx", UnsupportedFileError, "Excel"),
    ("html-as-pdf", UnsupportedFileError, "the file is HTML"),
    ("empty", EmptyFileError, "empty"),
    ("latin-1", UnsupportedFileError, "UTF-8"),
])
def test_what_cannot_be_read_is_said_in_one_line(files, kind, error, says):
    with pytest.raises(error, match=says) as raised:
        detect_format(files[kind])
    message = str(raised.value)
    assert "\n" not in message and message.startswith(str(files[kind]))


def test_a_slide_is_a_section_named_by_its_title(files):
    deck = read_document(files["pptx"], Settings())
    assert (deck.unit, deck.format, deck.pages, deck.title) == ("slide", "pptx", 4, "Monojet search: status report")
    titles = {b.page: b.text for b in deck.blocks if b.kind is BlockKind.heading and b.level == 1}
    assert titles == {1: "Monojet search: status report", 2: "Event selection", 3: "Yields per region",
                      4: "Backup"}  # slide 4 has no title placeholder: its first line names it
    table = next(b for b in deck.blocks if b.kind is BlockKind.table)
    assert table.page == TALK_TABLE_SLIDE
    assert table.text.splitlines()[2] == f"the {PHRASES['talk.pptx']['table']} | 9210"
    on_slide_3 = [(b.kind, b.text) for b in deck.blocks if b.page == TALK_TABLE_SLIDE]
    assert on_slide_3[-2:] == [(BlockKind.heading, "Speaker notes"),
                               (BlockKind.body, f"Say that the {PHRASES['talk.pptx']['notes']} agrees within 2%.")]
    assert any(PHRASES["talk.pptx"]["group"] in b.text and b.page == 2 for b in deck.blocks)  # inside a group shape


def test_word_headings_are_sections_and_tables_sit_where_they_are(files):
    note = read_document(files["docx"], Settings())
    assert (note.format, note.title) == ("docx", "Monojet analysis note")
    assert all(b.page is None for b in note.blocks)  # Word files carry no page numbers
    shape = [(b.kind, b.level) for b in note.blocks]
    assert shape == [(BlockKind.heading, 1), (BlockKind.body, None), (BlockKind.heading, 1), (BlockKind.body, None),
                     (BlockKind.table, None), (BlockKind.body, None), (BlockKind.heading, 2), (BlockKind.body, None)]
    assert note.blocks[4].text == f"Trigger | Prescale\nHLT_PFMET120 | {PHRASES['note.docx']['table']}"


def test_a_wiki_page_keeps_its_topic_and_heading_anchors_and_loses_its_chrome(files):
    page = read_document(files["html"], Settings())
    assert (page.format, page.title) == ("html", "Monojet dark matter search 2024")
    headings = [(b.level, b.text, b.anchor) for b in page.blocks if b.kind is BlockKind.heading]
    # the one h1 opening the page is its title, and its h2 sections the top level, as a Word file's
    assert headings == [(1, "Monojet dark matter search 2024", "MonojetSearch2024"),
                        (1, "Event selection", "EventSelection"), (2, "Signal regions", "SignalRegions"),
                        (1, "Backgrounds", "Backgrounds")]  # the last from an <a name> inside the heading
    assert next(b for b in page.blocks if b.kind is BlockKind.caption).text == "Expected yields per region"
    text = "\n".join(b.text for b in page.blocks)
    assert all(phrase in text for phrase in PHRASES["page.html"].values())
    assert not [chrome for chrome in CHROME if chrome in text]
    table = next(b for b in page.blocks if b.kind is BlockKind.table)
    assert table.text.splitlines()[0] == "Region | MET range [GeV] | Expected events"
    # the table of contents (a list of links) is navigation too: "Event selection" only as a heading
    assert sum(b.text == "Event selection" for b in page.blocks) == 1


def test_a_page_without_main_content_is_refused(tmp_path):
    from ingest.extract.base import NoTextFoundError

    login = tmp_path / "login.html"
    login.write_text('<!DOCTYPE html><html><body><nav><a href="/">Home</a></nav>'
                     '<form><input name="user"><button>Sign in</button></form></body></html>')
    with pytest.raises(NoTextFoundError, match="no main content"):
        read_document(login, Settings())


def test_a_short_page_keeps_its_heading_and_loses_its_header_footer_and_menu(tmp_path):
    page = tmp_path / "event.html"
    page.write_text(  # no charset declared: read as UTF-8
        '<!DOCTYPE html><html><head><title>Weekly meeting · Indico</title></head><body>'
        '<header><div class="main-menu"><a href="/">Home</a> <a href="/login">Login</a></div></header>'
        '<div class="event"><div class="crumbs"><a href="/c/1">Physics</a> › <a href="/c/2">Exotica</a></div>'
        '<h1>Exotica weekly meeting</h1><p>Agenda: the monojet unblinding approval → minutes later.</p></div>'
        '<footer><p>Powered by Indico. Help | Contact</p></footer></body></html>', encoding="utf-8")
    blocks = [(b.kind, b.text) for b in read_document(page, Settings()).blocks]
    assert blocks == [(BlockKind.heading, "Exotica weekly meeting"),
                      (BlockKind.body, "Agenda: the monojet unblinding approval → minutes later.")]


def test_a_markdown_file_cites_its_sections_by_their_github_anchors():
    from ingest.chunk.from_text import chunk_text
    from mitra.core.types import Document

    text = "# Event selection\n\nJets above 100 GeV.\n\n## Results (2024)\n\nA limit.\n\n# Results (2024)\n\nAgain.\n"
    chunks = chunk_text(Document(analysis_id="A", doc_id="readme"), text, 1, 500, "markdown", anchors=True).chunks
    assert [c.anchor for c in chunks] == ["event-selection", "results-2024", "results-2024-1"]
    assert not any(c.anchor for c in chunk_text(Document(analysis_id="A", doc_id="r"), text, 1, 500).chunks)


def test_a_word_files_abstract_section_is_the_analysis_abstract(tmp_path):
    import docx

    note = docx.Document()
    note.add_heading("Monojet note", 0)
    note.add_heading("Abstract", 1)
    note.add_paragraph("A search for dark matter in events with one jet.")
    note.add_paragraph("No excess is seen.")
    note.add_heading("Introduction", 1)
    note.add_paragraph("Dark matter is ...")
    note.save(tmp_path / "note.docx")
    assert read_document(tmp_path / "note.docx", Settings()).abstract == (
        "A search for dark matter in events with one jet. No excess is seen.")
    assert read_document(write_docx(tmp_path / "plain.docx"), Settings()).abstract == ""


_STARTS = [b"", b"%PDF-1.4\n", b"PK\x03\x04", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", b"<!DOCTYPE html><html><body>",
           b"# Heading\n\n", b"\x89PNG\r\n\x1a\n"]


@hypothesis_settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(start=st.sampled_from(_STARTS), tail=st.binary(max_size=400),
       name=st.sampled_from(["f.pdf", "f.pptx", "f.docx", "f.html", "f.md", "f.txt", "f"]))
def test_any_bytes_are_read_or_refused_in_one_line(tmp_path, start, tail, name):
    """Whatever a file holds, its reader reads it or an ``ExtractionError`` says why:
    never another exception (pdf is left to its own tests: PDFium is not pure Python)."""
    from ingest.extract.base import ExtractionError
    from ingest.extract.readers import read_text

    path = tmp_path / name
    path.write_bytes(start + tail)
    try:
        fmt = detect_format(path)
        if fmt in ("pptx", "docx", "html"):
            read_document(path, Settings(), fmt=fmt)
        elif fmt != "pdf":
            read_text(path)
    except ExtractionError as error:
        assert "\n" not in str(error)


def test_a_damaged_office_file_is_refused_in_one_line_whatever_the_damage(files, tmp_path):
    """Truncated, or bytes changed anywhere (its ZIP structure, a member's compressed data
    or CRC, an XML part): read, or one ``ExtractionError``."""
    import random

    from ingest.extract.base import ExtractionError

    rng = random.Random(24)
    originals = [files["pptx"].read_bytes(), files["docx"].read_bytes()]
    for n in range(300):
        data = bytearray(rng.choice(originals))
        if n % 3 == 0:
            data = data[:rng.randrange(len(data))]
        else:
            for _ in range(rng.randint(1, 3)):
                data[rng.randrange(len(data))] = rng.randrange(256)
        damaged = tmp_path / f"damaged-{n}.docx"
        damaged.write_bytes(bytes(data))
        try:
            read_document(damaged, Settings())
        except ExtractionError as error:
            assert "\n" not in str(error)
