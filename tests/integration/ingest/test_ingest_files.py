"""`mitra ingest files` on real documents of every type, built in the test: each is found
by a phrase only it holds, a talk's passage is cited by its slide, a web page's by its
section anchor and none of its navigation is indexed; a folder with broken files indexes
the rest (exit 1, one line per bad file); a rerun skips everything; a changed file as
version 2 supersedes version 1."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mitra.core.settings import Settings
from mitra.store.knowledge_base import KnowledgeBase
from tests.fixtures.documents import (
    CHROME, PHRASES, TALK_TABLE_SLIDE, write_docx, write_encrypted_docx, write_folder, write_legacy_doc,
)

ANALYSIS = "FILES-24"


def mitra(data_dir: Path, *args: str):
    """``mitra`` in process on ``data_dir`` (settings read afresh for the call)."""
    from mitra.cli import main as cli_module
    from mitra.core.settings import get_settings

    get_settings.cache_clear()
    try:
        return CliRunner().invoke(cli_module.register_commands(), list(args),
                                  env={"MITRA_DATA_DIR": str(data_dir), "MITRA_RERANKER": "none"})
    finally:
        get_settings.cache_clear()


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    return write_folder(tmp_path_factory.mktemp("docs") / "monojet")


@pytest.fixture(scope="module")
def ingested(folder, tmp_path_factory) -> tuple[Path, dict]:
    """The folder ingested once through the CLI: the data dir and the run's JSON summary."""
    data_dir = tmp_path_factory.mktemp("files-kb") / "kb"
    result = mitra(data_dir, "ingest", "files", str(folder), "--analysis", ANALYSIS, "--title", "Monojet", "--json")
    assert result.exit_code == 0, result.output
    return data_dir, json.loads(result.stdout)


@pytest.fixture(scope="module")
def hits(ingested, tmp_path_factory) -> dict[str, list[dict]]:
    """The top hits of a search for each phrase (one batch through `mitra search`)."""
    data_dir, _ = ingested
    root = tmp_path_factory.mktemp("search")
    queries = [{"qid": f"{name}:{where}", "query": phrase, "analysis_id": ANALYSIS}
               for name, phrases in PHRASES.items() for where, phrase in phrases.items()]
    (root / "q.jsonl").write_text("".join(json.dumps(q) + "\n" for q in queries))
    result = mitra(data_dir, "search", "--queries", str(root / "q.jsonl"), "--out", str(root / "r.jsonl"))
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in (root / "r.jsonl").read_text().splitlines()]
    return {row["qid"]: row["hits"] for row in rows}


def _kb(data_dir: Path, embedder) -> KnowledgeBase:
    return KnowledgeBase(Settings(data_dir=data_dir, reranker="none"), embedder)


def test_every_file_is_indexed_and_what_is_left_out_is_counted(ingested, embedder, folder):
    data_dir, summary = ingested
    assert (summary["versions"], summary["failed"]) == (5, [])
    # .DS_Store and .git; the page's style sheet and logo
    assert summary["left_out"] == {"hidden": 2, "saved page resources": 2}
    documents = {r.document.doc_id: r.document for r in _kb(data_dir, embedder).documents(ANALYSIS)}
    assert {d: documents[d].format for d in documents} == {
        "talk": "pptx", "note": "docx", "page": "html", "readme": "markdown", "minutes": "text"}
    assert documents["talk"].kept == str((folder / "talk.pptx").resolve())  # what the app offers for download
    assert documents["talk"].pages == 4 and documents["note"].pages is None


def test_each_file_is_found_by_a_phrase_only_it_holds(hits):
    for qid, found in hits.items():
        name = qid.split(":")[0]
        phrase = PHRASES[name][qid.split(":")[1]]
        assert found[0]["doc_id"] == Path(name).stem, (qid, found[0])
        assert phrase in found[0]["text"] or phrase in found[0]["section"], (qid, found[0])


def test_a_talk_is_cited_by_its_slide(hits):
    table, notes = hits["talk.pptx:table"][0], hits["talk.pptx:notes"][0]
    assert table["page"] == f"slide {TALK_TABLE_SLIDE}" and table["kind"] == "table"
    assert table["label"] == f"talk v1 · Yields per region · slide {TALK_TABLE_SLIDE}"
    assert notes["section"] == "Yields per region > Speaker notes" and notes["page"] == f"slide {TALK_TABLE_SLIDE}"
    assert hits["talk.pptx:body"][0]["page"] == "slide 2"


def test_a_web_page_is_cited_by_its_anchor_and_its_chrome_is_not_indexed(hits, ingested, embedder):
    body = hits["page.html:body"][0]
    assert body["label"] == "page v1 · Event selection · #EventSelection"  # the page's h1 titles it, no section
    assert hits["page.html:table"][0]["label"].endswith("#SignalRegions") and body["page"] == ""
    chunks = [c for c in _kb(ingested[0], embedder).chunks(ANALYSIS) if c.doc_id == "page"]
    indexed = "\n".join(c.index_text for c in chunks)
    assert not [chrome for chrome in CHROME if chrome in indexed]


def test_a_markdown_file_is_cited_by_its_heading_anchor(hits):
    assert hits["readme.md:body"][0]["label"] == "readme v1 · Pileup · #pileup"
    assert hits["minutes.txt:body"][0]["label"] == "minutes v1"  # plain text: no sections, no pages


def test_a_word_note_has_its_sections_and_no_pages(hits):
    table = hits["note.docx:table"][0]
    assert (table["section"], table["kind"], table["page"]) == ("Calibration", "table", "")
    assert hits["note.docx:body"][0]["label"] == "note v1 · Calibration"


def test_a_second_run_skips_everything(ingested, folder):
    data_dir, _ = ingested
    result = mitra(data_dir, "ingest", "files", str(folder), "--analysis", ANALYSIS, "--json")
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert (summary["versions"], summary["skipped"]) == (0, 5)


def test_a_folder_with_broken_files_indexes_the_rest(tmp_path, embedder):
    folder = tmp_path / "mixed"
    folder.mkdir()
    (folder / "good.md").write_text("# Tracking\n\nThe tracking efficiency is 99.2% for muons.\n")
    note = write_docx(tmp_path / "source.docx")
    (folder / "cut.docx").write_bytes(note.read_bytes()[:1500])
    (folder / "picture.pptx").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(128))
    write_encrypted_docx(folder / "locked.docx", note)
    write_legacy_doc(folder / "old.doc", folder / "locked.docx")
    (folder / "fine.docx").write_bytes(note.read_bytes())
    data_dir = tmp_path / "kb"
    first = mitra(data_dir, "ingest", "files", str(folder / "good.md"), "--analysis", "MIX-1")
    assert first.exit_code == 0, first.output

    result = mitra(data_dir, "ingest", "files", str(folder), "--analysis", "MIX-1", "--json")
    assert result.exit_code == 1 and "Traceback" not in result.output
    summary = json.loads(result.stdout)
    failed = {Path(f["file"]).name: f["reason"] for f in summary["failed"]}
    assert set(failed) == {"cut.docx", "picture.pptx", "locked.docx", "old.doc"}
    assert all("\n" not in reason for reason in failed.values())
    assert "damaged" in failed["cut.docx"] and "PNG image" in failed["picture.pptx"]
    assert "password-protected" in failed["locked.docx"] and "save it as .docx" in failed["old.doc"]
    assert (summary["versions"], summary["skipped"]) == (1, 1)  # fine.docx new, good.md kept from before
    assert {r.document.doc_id for r in _kb(data_dir, embedder).documents("MIX-1")} == {"good", "fine"}


def test_two_files_with_one_name_are_not_one_document(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "notes.md").write_text("# A\n\nThe first notes on the trigger.\n")
    (tmp_path / "notes.txt").write_text("Other notes on the calibration.\n")
    result = mitra(tmp_path / "kb", "ingest", "files", str(tmp_path / "a"), str(tmp_path / "notes.txt"),
                   "--analysis", "DUP-1", "--json")
    assert result.exit_code == 1
    summary = json.loads(result.stdout)
    assert summary["versions"] == 1
    assert [Path(f["file"]).name for f in summary["failed"]] == ["notes.txt"]
    assert "document 'notes'" in summary["failed"][0]["reason"]


def test_a_changed_file_as_version_2_supersedes_version_1(tmp_path, embedder):
    page = tmp_path / "minutes.txt"
    page.write_text("Minutes.\nThe luminosity is 138 inverse femtobarn.\n")
    data_dir = tmp_path / "kb"
    assert mitra(data_dir, "ingest", "files", str(page), "--analysis", "VER-1").exit_code == 0
    page.write_text("Minutes, corrected.\nThe luminosity is 140 inverse femtobarn.\n")
    assert mitra(data_dir, "ingest", "files", str(page), "--analysis", "VER-1", "--version", "2").exit_code == 0
    kb = _kb(data_dir, embedder)
    assert {(r.document.version, r.superseded) for r in kb.documents("VER-1")} == {("1", True), ("2", False)}
    current = [c.text for c in kb.chunks("VER-1") if not c.superseded]
    assert current and all("140" in text for text in current)
