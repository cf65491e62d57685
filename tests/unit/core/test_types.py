"""The one JSON shape of a hit and the one citation label (search, ask and the app use them)."""

from mitra.chat.labels import source_label
from mitra.core.types import Chunk, Hit

HIT_FIELDS = {"rank", "chunk_id", "doc_id", "version", "section", "page", "kind", "label", "text", "scores"}


def _hit() -> Hit:
    chunk = Chunk(id="c1", analysis_id="A", doc_id="AN-2024-001", version="3", position=0,
                  section=["Backgrounds", "Fakes"], page_start=12, page_end=13, text="Fakes dominate.")
    return Hit(chunk=chunk, rank=2, scores={"fused": 0.5})


def test_a_hit_has_one_json_shape():
    data = _hit().to_json()
    assert set(data) == HIT_FIELDS
    assert data["rank"] == 2 and data["page"] == "pp. 12-13" and data["label"] == "AN-2024-001 v3 · Backgrounds > Fakes · pp. 12-13"
    assert _hit().to_json(rank=1)["rank"] == 1  # an answer's source number


def test_the_app_names_a_passage_by_the_same_label():
    hit = _hit()
    assert source_label(4, hit) == f"[4] {hit.to_json()['label']}"


def test_a_long_paragraph_is_cut_into_sentence_windows_under_its_section():
    sentences = [f"Sentence {i} says something about the muon trigger efficiency here." for i in range(9)]
    chunk = Chunk(id="c", analysis_id="A", doc_id="d", version="v1", position=0, section=["Trigger"],
                  text=" ".join(sentences))
    windows = chunk.index_windows(30)
    assert len(windows) == 3 and all(w.startswith("Trigger\n") for w in windows)
    assert " ".join(w.removeprefix("Trigger\n") for w in windows) == chunk.text  # every word, in order
    assert all(len(w.split()) - 1 <= 30 for w in windows)
    # A paragraph that is one window already has none: its own vector is that window's.
    assert chunk.index_windows(200) == []


def test_a_slide_is_cited_by_its_number_and_a_web_page_by_its_anchor():
    slide = Chunk(id="t#1", analysis_id="A", doc_id="talk", version="1", position=0, section=["Yields"],
                  page_start=3, page_end=3, unit="slide", text="Signal yield 120")
    assert slide.citation_label == "talk v1 · Yields · slide 3"
    wiki = Chunk(id="w#1", analysis_id="A", doc_id="wiki", version="1", position=0, section=["Event selection"],
                 anchor="event-selection", text="Two muons")
    assert wiki.citation_label == "wiki v1 · Event selection · #event-selection"


def test_a_document_says_its_length_in_its_own_unit():
    from mitra.core.types import Document

    def length(**fields) -> str:
        return Document(analysis_id="A", doc_id="D", **fields).extent

    assert (length(pages=34, format="pdf"), length(pages=1, format="pdf")) == ("34 pages", "1 page")
    assert (length(pages=50, format="pptx"), length(pages=12, format="pdf-slides")) == ("50 slides", "12 slides")
    assert length(format="html") == length(format="docx") == length(pages=0, format="markdown") == ""
