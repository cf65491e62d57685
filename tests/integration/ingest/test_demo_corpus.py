"""The demo corpus generator: deterministic, realistic features, versions that really differ,
a wiki topic and a talk whose facts the notes do not hold, and a knowledge base that answers
from them."""

from __future__ import annotations

import hashlib
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from demo.corpus_specs import load_specs
from demo.make_corpus import build_corpus
from demo.portal import CorpusIndex

needs_poppler = pytest.mark.skipif(shutil.which("pdftotext") is None, reason="poppler-utils (pdftotext) missing")


def text_of(path: Path) -> str:
    return subprocess.run(["pdftotext", "-layout", str(path), "-"], capture_output=True, text=True, check=True).stdout


def test_rebuild_is_byte_identical(demo_corpus, tmp_path):
    again = build_corpus(tmp_path / "again")
    assert {d.source: d.sha256 for d in again.documents} == {d.source: d.sha256 for d in demo_corpus.documents}
    assert again.wiki == demo_corpus.wiki  # the talk's zip too: python-pptx stamps the time of saving
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
    (topic,) = demo_corpus.wiki
    assert (topic.analysis_id, topic.topic, topic.revision) == ("HIG-24-001", "HiggsToMuMuRun3", "r14")
    assert [(a.name, a.version, a.slides) for a in topic.attachments] == [("HIG-24-001_preapproval.pptx", "1", 5)]
    for item in (topic, *topic.attachments):
        assert hashlib.sha256(demo_corpus.path(item).read_bytes()).hexdigest() == item.sha256


def test_the_talk_is_a_real_deck_with_a_table_and_speaker_notes(demo_corpus):
    from pptx import Presentation

    (talk,) = demo_corpus.wiki[0].attachments
    deck = Presentation(str(demo_corpus.path(talk)))
    assert [s.shapes.title.text for s in deck.slides][3] == "Latest yields with the 2024 data"
    yields = deck.slides[3]
    (table,) = [shape.table for shape in yields.shapes if shape.has_table]
    assert [c.text for c in table.rows[2].cells] == ["VBF", "37.6", "566"]
    assert "expected significance with 89.3 fb⁻¹" in yields.notes_slide.notes_text_frame.text
    assert deck.core_properties.title == "H → μμ with Run 3 data: pre-approval"


def test_the_wiki_topic_and_the_talk_hold_what_the_notes_do_not(demo_corpus):
    topic = demo_corpus.path(demo_corpus.wiki[0]).read_text()
    assert '<h2 id="AnalysisRecipe">' in topic and "ORION_14_0_7" in topic and "<table" in topic
    specs = {s.id: s for s in load_specs()}
    notes = str([raw for spec in specs.values() for raw in spec.documents])
    for fact in ("ORION_14_0_7", "37.6", "89.3"):
        assert fact not in notes


@pytest.mark.parametrize("question, doc_id", [
    ("Which software release reproduces the results of the analysis?", "HiggsToMuMuRun3"),
    ("How many signal events does the VBF category expect with the first 2024 data?", "HIG-24-001_preapproval.pptx"),
])
def test_the_demo_knowledge_base_answers_from_the_wiki_and_the_talk(demo_pipeline, question, doc_id):
    top = demo_pipeline.retriever.search("HIG-24-001", question).hits[0]
    assert top.chunk.doc_id == doc_id, top.chunk.citation_label


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
