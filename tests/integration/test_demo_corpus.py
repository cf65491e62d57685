"""The demo corpus generator: deterministic, realistic features, versions that really differ."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from demo.make_corpus import build_corpus
from demo.portal import CorpusIndex

needs_poppler = pytest.mark.skipif(shutil.which("pdftotext") is None, reason="poppler-utils (pdftotext) missing")


def text_of(path: Path) -> str:
    return subprocess.run(["pdftotext", "-layout", str(path), "-"], capture_output=True, text=True, check=True).stdout


def test_rebuild_is_byte_identical(demo_corpus, tmp_path):
    again = build_corpus(tmp_path / "again")
    assert {d.source: d.sha256 for d in again.documents} == {d.source: d.sha256 for d in demo_corpus.documents}
    assert (tmp_path / "again" / "index.json").read_text() == (demo_corpus.root / "index.json").read_text()


def test_index_describes_the_corpus(demo_corpus):
    assert CorpusIndex.load(demo_corpus.root) == demo_corpus
    assert [a.id for a in demo_corpus.analyses] == ["BPH-24-005", "EXO-24-003", "HIG-24-001", "HIG-24-007", "SMP-24-002"]
    assert all(a.abstract and a.experiment == "ORION" for a in demo_corpus.analyses)
    for doc in demo_corpus.documents:
        assert 3 <= doc.pages <= 6, doc.source
        assert demo_corpus.path(doc).stat().st_size == doc.size
    assert [d.doc_id for d in demo_corpus.documents if d.columns == 2] == ["PAS-EXO-24-003"]
    assert [d.doc_id for d in demo_corpus.documents if d.scanned] == ["AN-2024-031"]
    assert [d.version for d in demo_corpus.documents_of("HIG-24-001")] == ["v1", "v2"]


@needs_poppler
def test_scanned_note_has_no_text_layer(demo_corpus):
    scanned = demo_corpus.document("SMP-24-002", "AN-2024-031", "v1")
    assert text_of(demo_corpus.path(scanned)).strip() == ""


@needs_poppler
def test_text_notes_carry_the_furniture_extraction_must_handle(demo_corpus):
    text = text_of(demo_corpus.path(demo_corpus.document("HIG-24-001", "AN-2024-017", "v1")))
    assert "DRAFT — HIG-24-001 Analysis Note v1" in text  # running header
    assert re.search(r"–\s*2\s*–", text)  # page number
    assert "A. Okafor, L. Brandt" in text  # author list
    for fragment in ("1 Introduction", "3.1 Event categories", "Figure 1:", "Table 1:", "(1)", "References"):
        assert fragment in text
    numbered = [line for line in text.splitlines() if line.strip()[:3].strip().isdigit()]
    assert len(numbered) > 50  # line numbers in the margin


@needs_poppler
def test_the_two_versions_differ_as_documented(demo_corpus):
    v1, v2 = (text_of(demo_corpus.path(demo_corpus.document("HIG-24-001", "AN-2024-017", v))) for v in ("v1", "v2"))
    assert "significance of the excess at mH = 125.38 GeV is 2.4 (1.9)" in " ".join(v1.split())
    assert "significance of the excess at mH = 125.38 GeV is 2.7 (2.1)" in " ".join(v2.split())
    assert "Muon momentum calibration" in v2 and "Muon momentum calibration" not in v1  # added subsection
    assert "It will be included in the next version" in " ".join(v1.split())  # removed paragraph
    assert "It will be included in the next version" not in " ".join(v2.split())


def test_content_errors_name_the_problem(tmp_path):
    content = tmp_path / "content"
    content.mkdir()
    (content / "X.yaml").write_text(
        "id: TST-00-001\ntitle: T\nabstract: A\ndocuments:\n"
        "  - {doc_id: D, kind: Note, title: T, header: H, authors: [A], abstract: 'x {{missing}}',\n"
        "     sections: [], versions: [{label: v1, date: 2024-01-01}]}\n"
    )
    with pytest.raises(KeyError, match=r"D v1: no value for \{\{missing\}\}"):
        build_corpus(tmp_path / "out", content_dir=content)
