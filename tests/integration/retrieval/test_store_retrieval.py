"""Both tiers on a real Chroma on disk with the real packaged embedder."""

import json
import shutil

import numpy as np
import pytest

from tests.fixtures.samples import ANALYSES, write_jsonl
from ingest.sources.jsonl import JsonlAnalysis, index_jsonl, index_records
from mitra.core.text import tokenize
from mitra.core.jsonl import InputError
from mitra.store.filters import SearchFilter
from mitra.store.bm25 import BM25Index
from mitra.store.chroma import EVIDENCE, collection_name
from mitra.store.knowledge_base import UnknownAnalysis
from mitra.core.types import Analysis, Document


def test_routing_finds_the_analysis_a_question_is_about(pipeline):
    result = pipeline.router.route("what limits were set on dark matter mediators in the monojet search?")
    assert [c.analysis.id for c in result.candidates][0] == "EXO-24-002"
    assert len(result.candidates) == 3
    assert result.margin > 0
    assert {"dense", "bm25", "fused"} <= set(result.top.scores)
    # an analysis id in the question routes to it
    assert pipeline.router.route("SMP-24-003 uncertainties").top.analysis.id == "SMP-24-003"


@pytest.mark.parametrize(
    "analysis_id, expected",
    [("HIG-24-001", "Drell-Yan"), ("EXO-24-002", "Z(nunu)")],
)
def test_locked_retrieval_answers_from_the_locked_analysis_only(pipeline, analysis_id, expected):
    hits = pipeline.retriever.retrieve(analysis_id, "What is the dominant background?")
    assert any(expected in h.chunk.text for h in hits[:2])
    assert {h.chunk.analysis_id for h in hits} == {analysis_id}
    assert [h.rank for h in hits] == list(range(1, len(hits) + 1))


def test_each_system_reports_its_stage_scores(pipeline):
    question = "dominant background Drell-Yan"
    bm25 = pipeline.retriever.search("HIG-24-001", question, system="bm25")
    dense = pipeline.retriever.search("HIG-24-001", question, system="dense")
    hybrid = pipeline.retriever.search("HIG-24-001", question, system="hybrid")
    assert all(set(h.scores) == {"bm25", "bm25_rank"} for h in bm25.hits)
    assert all(set(h.scores) == {"dense", "dense_rank"} for h in dense.hits)
    assert all("fused" in h.scores for h in hybrid.hits)
    assert "Drell-Yan" in hybrid.hits[0].chunk.text
    assert {"embed_query", "dense", "bm25", "fusion"} <= set(hybrid.timings_ms)
    with pytest.raises(ValueError, match="unknown retrieval system"):
        pipeline.retriever.search("HIG-24-001", question, system="magic")


def test_rerank_without_reranker_falls_back_to_fused_order(pipeline):
    rerank = pipeline.retriever.search("HIG-24-001", "muon momentum scale uncertainty", system="rerank")
    hybrid = pipeline.retriever.search("HIG-24-001", "muon momentum scale uncertainty", system="hybrid")
    assert not rerank.reranked
    assert [h.chunk.id for h in rerank.hits] == [h.chunk.id for h in hybrid.hits]


def test_unknown_analysis_is_a_clear_error(pipeline):
    with pytest.raises(UnknownAnalysis, match="no analysis 'NOPE-1'"):
        pipeline.retriever.retrieve("NOPE-1", "anything")


def test_reindex_replaces_an_analysis_atomically(pipeline, tmp_path):
    kb = pipeline.kb
    before = kb.stats()
    old_collection = kb.catalog.analysis("HIG-24-001").collection
    changed = json.loads(json.dumps(ANALYSES[0]))
    changed["documents"][0]["text"] = "# Backgrounds\nThe dominant background is now ttbar production."
    index_jsonl(kb, write_jsonl(tmp_path / "one.jsonl", [changed]))

    record = kb.catalog.analysis("HIG-24-001")
    assert record.collection == collection_name("HIG-24-001", 2)
    # The old generation outlives the switch (a reader may be on it) until the next writer collects it.
    assert old_collection in {c.name for c in kb.client.list_collections()}
    kb.collect_garbage()
    assert old_collection not in {c.name for c in kb.client.list_collections()}
    texts = [c.text for c in kb.chunks("HIG-24-001")]
    assert texts == ["The dominant background is now ttbar production."]
    assert "ttbar" in pipeline.retriever.retrieve("HIG-24-001", "dominant background")[0].chunk.text
    assert kb.stats()["analyses"] == before["analyses"]


def test_a_writer_run_lists_chromas_collections_once_whatever_it_writes(pipeline, tmp_path, monkeypatch):
    """Each analysis written asked Chroma for every collection twice (to drop leftovers,
    and for an older windows collection): O(analyses) an analysis, 60 % of a writer's time
    at ~750 analyses. Only collecting the garbage at the end of a run lists them."""
    kb = pipeline.kb
    listed = []
    every = kb.client.list_collections
    monkeypatch.setattr(kb.client, "list_collections", lambda *a, **k: listed.append(1) or every(*a, **k))
    changed = [json.loads(json.dumps(a)) for a in ANALYSES[:2]]
    for analysis in changed:
        analysis["documents"][0]["text"] += "\nA sentence added so that the analysis is written again."
    before = [kb.catalog.analysis(a["analysis_id"]).collection for a in changed]
    index_jsonl(kb, write_jsonl(tmp_path / "two.jsonl", changed))
    after = [kb.catalog.analysis(a["analysis_id"]).collection for a in changed]
    assert all(b != a for b, a in zip(before, after))  # both written anew
    assert len(listed) == 1


def test_a_search_reads_one_generation_and_asks_the_catalog_once(pipeline, tmp_path, monkeypatch):
    kb = pipeline.kb
    asked = []
    lookup = kb.catalog.analysis
    monkeypatch.setattr(kb.catalog, "analysis", lambda analysis_id: asked.append(analysis_id) or lookup(analysis_id))
    pipeline.retriever.search("HIG-24-001", "dominant background", system="hybrid")
    assert asked == ["HIG-24-001"]  # not once per stage
    changed = json.loads(json.dumps(ANALYSES[0]))
    changed["documents"][0]["text"] = "# Backgrounds\nThe dominant background is now ttbar production."
    with kb.reading("HIG-24-001"):  # a writer swaps a generation in while a search is under way
        index_jsonl(kb, write_jsonl(tmp_path / "one.jsonl", [changed]))
        during = pipeline.retriever.retrieve("HIG-24-001", "dominant background")
        texts = [c.text for c in kb.get_chunks("HIG-24-001", [h.chunk.id for h in during]).values()]
    assert "Drell-Yan" in during[0].chunk.text and not any("ttbar" in t for t in texts)
    assert "ttbar" in pipeline.retriever.retrieve("HIG-24-001", "dominant background")[0].chunk.text


def test_interrupted_reindex_leaves_the_old_analysis_intact(pipeline, tmp_path):
    kb = pipeline.kb
    before = [c.id for c in kb.chunks("EXO-24-002")]
    changed = json.loads(json.dumps(ANALYSES[1]))
    changed["documents"][0]["text"] += "\n\n# New section\nBrand new paragraph."

    def crash(_analysis_id, _n):
        def progress(_done):
            raise KeyboardInterrupt  # killed while embedding the new generation

        return progress

    with pytest.raises(KeyboardInterrupt):
        index_jsonl(kb, write_jsonl(tmp_path / "one.jsonl", [changed]), on_analysis=crash)
    assert [c.id for c in kb.chunks("EXO-24-002")] == before
    assert "Z(nunu)" in pipeline.retriever.retrieve("EXO-24-002", "dominant background Z(nunu)+jets")[0].chunk.text
    # the half-written generation is garbage, collected on the next write
    assert kb.collect_garbage() == [collection_name("EXO-24-002", 2)]


@pytest.mark.parametrize(
    "bad_line, message",
    [
        ("{not json", ":2: "),
        ('{"title": "no id"}', ":2: analysis_id: Field required"),
        ('{"analysis_id": "X", "title": "T", "documents": [{"doc_id": "d", "text": "  "}]}', ":2: documents.0.text"),
    ],
)
def test_malformed_jsonl_names_the_line_and_changes_nothing(pipeline, tmp_path, bad_line, message):
    kb = pipeline.kb
    before = kb.stats()
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps({**ANALYSES[0], "title": "Renamed"}) + "\n" + bad_line + "\n")
    with pytest.raises(InputError, match=message):
        index_jsonl(kb, path)
    assert kb.stats() == before
    assert kb.get_analysis("HIG-24-001").title == ANALYSES[0]["title"]


def test_duplicate_analysis_in_one_file_is_rejected(pipeline, tmp_path):
    path = write_jsonl(tmp_path / "dup.jsonl", [ANALYSES[0], ANALYSES[0]])
    with pytest.raises(InputError, match="more than one line"):
        index_jsonl(pipeline.kb, path)


def test_new_document_version_supersedes_the_old_one(pipeline):
    kb = pipeline.kb
    analysis = Analysis(id="TOP-24-004", title="ttH multilepton", abstract="ttH in multilepton final states.")
    v1 = Document(analysis_id=analysis.id, doc_id="note", version="v1", sha256="a")
    v2 = Document(analysis_id=analysis.id, doc_id="note", version="v2", sha256="b")
    from ingest.chunk.from_text import chunk_text

    def chunks(doc, yield_value):
        text = f"# Results\nThe measured signal strength is {yield_value}.\n\n# Method\nA BDT separates signal."
        return chunk_text(doc, text, 10, 300).chunks

    kb.add_document_version(analysis, v1, chunks(v1, "0.92"))
    kb.add_document_version(analysis, v2, chunks(v2, "1.05"))
    kb.add_document_version(analysis, v2, chunks(v2, "1.05"))  # idempotent re-run

    current = pipeline.retriever.retrieve(analysis.id, "signal strength")
    assert {h.chunk.version for h in current} == {"v2"}
    assert "1.05" in current[0].chunk.text
    old = pipeline.retriever.retrieve(analysis.id, "signal strength", version="v1")
    assert {h.chunk.version for h in old} == {"v1"} and "0.92" in old[0].chunk.text
    records = {r.document.version: r for r in kb.documents(analysis.id)}
    assert records["v1"].superseded and not records["v2"].superseded
    assert len(kb.chunks(analysis.id)) == 4  # two per version, no duplicates
    assert kb.is_indexed(v2) and not kb.is_indexed(v2.model_copy(update={"sha256": "c"}))
    # re-running an older version does not make it current again
    kb.add_document_version(analysis, v1, chunks(v1, "0.92"))
    assert {h.chunk.version for h in pipeline.retriever.retrieve(analysis.id, "signal strength")} == {"v2"}
    assert pipeline.router.route("ttH multilepton").top.analysis.id == analysis.id


def test_embedder_mismatch_is_refused(pipeline, settings):
    from mitra.store.knowledge_base import IndexMismatch, KnowledgeBase

    class OtherEmbedder:
        name, dim = "sentence-transformers:other", 384

    with pytest.raises(IndexMismatch, match="built with sentence-transformers:all-MiniLM-L6-v2"):
        KnowledgeBase(settings, OtherEmbedder())


@pytest.mark.parametrize("notation", ["H to mumu", "H → μμ", r"H \to \mu\mu", "H->µµ"])
def test_routing_reads_every_notation_of_the_decay(demo_pipeline, notation):
    # Without one spelling of the notation, "mumu" matched nothing and the ttH analysis
    # (which also names the Higgs boson) routed first.
    question = f"What is the observed significance of the excess in the {notation} search?"
    assert demo_pipeline.router.route(question, top_n=3).candidates[0].analysis.id == "HIG-24-001"


def test_a_writer_reopening_its_chroma_client_loses_nothing(settings, embedder, corpus_jsonl):
    """Every ``chroma_reopen_every`` collections the writer closes its Chroma client (what
    frees embedded Chroma's indexes): every analysis written across reopens is searchable."""
    from mitra.retrieval.pipeline import build_pipeline

    built = build_pipeline(settings.model_copy(update={"chroma_reopen_every": 1}), embedder=embedder)
    first_client = built.kb.client
    index_jsonl(built.kb, corpus_jsonl)
    assert built.kb.client is not first_client
    for analysis in ANALYSES:
        hits = built.retriever.search(analysis["analysis_id"], "What is the dominant background?").hits
        assert hits and all(h.chunk.analysis_id == analysis["analysis_id"] for h in hits)
        assert built.router.route(analysis["title"]).candidates[0].analysis.id == analysis["analysis_id"]


def test_fusion_scores_each_candidate_by_its_neighbouring_paragraphs(demo_pipeline):
    from mitra.retrieval.retriever import Retriever

    question = "What is the dominant background?"
    hits = demo_pipeline.retriever.search("EXO-24-003", question, system="hybrid", k=20).hits
    assert any(h.scores.get("context", 0) > 0 for h in hits)
    off = demo_pipeline.settings.model_copy(update={"weight_context": 0.0})
    plain = Retriever(demo_pipeline.kb, demo_pipeline.embedder, None, off).search("EXO-24-003", question, k=20).hits
    assert not any("context" in h.scores for h in plain)


def test_fusion_scores_each_candidate_by_its_share_of_the_questions_rare_words(demo_pipeline):
    question = "What is the dominant background?"
    hits = demo_pipeline.retriever.search("EXO-24-003", question, system="hybrid", k=20).hits
    assert all(0.0 <= h.scores["coverage"] <= 1.0 for h in hits)
    assert any(h.scores["coverage"] == 1.0 for h in hits)
    off = demo_pipeline.with_settings(weight_coverage=0.0)
    assert not any("coverage" in h.scores for h in off.retriever.search("EXO-24-003", question, k=20).hits)


def test_a_passage_left_out_of_a_search_lifts_neither_its_neighbours_nor_its_section(demo_pipeline):
    question = "What is the dominant background?"
    first = demo_pipeline.retriever.search("EXO-24-003", question, system="hybrid", k=20).hits
    top = first[0].chunk.id
    again = demo_pipeline.retriever.search("EXO-24-003", question, system="hybrid", k=20, left_out=frozenset({top}))
    assert top not in {h.chunk.id for h in again.hits}
    section = {h.chunk.id: h.scores.get("section", 0.0) for h in again.hits}
    before = {h.chunk.id: h.scores.get("section", 0.0) for h in first}
    same_section = [h.chunk.id for h in first[1:] if h.chunk.section[:1] == first[0].chunk.section[:1]]
    assert any(section.get(i, 0.0) < before[i] for i in same_section if i in section)


def test_dense_search_scores_a_paragraph_by_its_own_and_its_best_windows_similarity(settings, embedder, tmp_path):
    """A long paragraph's vector blurs the one sentence a question is about: its dense score
    is the mean of its own similarity and its best sentence window's."""
    from mitra.retrieval.pipeline import build_pipeline
    from mitra.store.filters import SearchFilter
    from mitra.store.dense import DenseIndex
    from mitra.store.knowledge_base import KnowledgeBase

    record = {"analysis_id": "WIN-24-001", "title": "Muon trigger", "abstract": "Trigger and calibration studies.",
              "documents": [{"doc_id": "note", "version": "1", "text":
                             "# Calibration\nThe calorimeter was calibrated with minimum-bias events in every run "
                             "period. Pedestals were subtracted channel by channel before clustering. The "
                             "single-muon trigger efficiency was measured with a tag-and-probe method on Z decays.\n\n"
                             "# Luminosity\nThe integrated luminosity of the 2016-2018 data is 138 fb-1."}]}
    path = write_jsonl(tmp_path / "windows.jsonl", [record])
    kb = build_pipeline(settings.model_copy(update={"dense_window_words": 15}), embedder=embedder).kb
    index_jsonl(kb, path)
    long, short = kb.chunks("WIN-24-001")
    collection = kb.catalog.analysis("WIN-24-001").collection
    dense_dir = kb.settings.data_dir / "dense"
    assert len(DenseIndex.load(dense_dir / collection).windows) == len(long.index_windows(15)) == 3
    assert short.index_windows(15) == []  # one window: its own vector is that window's

    question = embedder.embed_queries(["How was the muon trigger efficiency measured?"])[0]
    (alone,) = embedder.embed_passages([short.index_text]) @ question
    windows = embedder.embed_passages(long.index_windows(15))
    # the long paragraph's own vector: its windows' mean, weighted by length (each token embedded once)
    mean = np.array([len(w) for w in long.index_windows(15)], np.float32) @ windows
    own = float(mean @ question / np.linalg.norm(mean))
    best = max(windows @ question)
    scores = dict(kb.dense_search("WIN-24-001", question, 10, SearchFilter()))
    assert scores[long.id] == pytest.approx((own + best) / 2, abs=1e-4)
    assert scores[short.id] == pytest.approx(alone, abs=1e-4)
    off = KnowledgeBase(kb.settings.model_copy(update={"dense_window_words": 0}), embedder)
    assert dict(off.dense_search("WIN-24-001", question, 10, SearchFilter()))[long.id] == (
        pytest.approx(own, abs=1e-4))

    # Re-indexing writes a new generation with its windows; the old windows go with the old generation.
    index_jsonl(kb, path)
    kb.collect_garbage()
    new = kb.catalog.analysis("WIN-24-001").collection
    assert {p.name for p in dense_dir.iterdir()} == {new}


# Unit vectors seeded by their text: the same text gets the same vector in every process,
# so rankings can be compared across processes without loading a model.
_HASH_EMBEDDER = '''
import hashlib
import numpy as np

class HashEmbedder:
    name, dim = "hash-64", 64

    def embed_queries(self, texts):
        seeds = [int.from_bytes(hashlib.sha256(t.encode()).digest()[:8], "little") for t in texts]
        vectors = np.array([np.random.default_rng(s).standard_normal(64) for s in seeds], np.float32).reshape(-1, 64)
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)

    def embed_passages(self, texts, show_progress=False):
        return self.embed_queries(texts)

    def lengths(self, texts):
        return [len(t) for t in texts]
'''

_RANKINGS = _HASH_EMBEDDER + '''
import json, sys
from mitra.core.settings import Settings
from mitra.retrieval.retriever import Retriever
from mitra.store.knowledge_base import KnowledgeBase

settings = Settings(data_dir=sys.argv[1], reranker="none")
retriever = Retriever(KnowledgeBase(settings), HashEmbedder(), None, settings)
print(json.dumps([[h.chunk.id for h in retriever.search("DET-1", q, system=system, k=50).hits]
                  for q in json.loads(sys.argv[2]) for system in ("dense", "hybrid")]))
'''


def _tier2_rankings_in_fresh_processes(tmp_path, n_chunks: int, processes: int) -> list[list[list[str]]]:
    """One analysis of ``n_chunks`` paragraphs of ~80 words (two sentence windows each),
    then the dense and hybrid top 50 of a few questions, each asked in a new process."""
    import random
    import subprocess
    import sys
    from pathlib import Path

    from mitra.core.settings import Settings
    from mitra.core.types import Chunk, chunk_id
    from mitra.store.knowledge_base import KnowledgeBase

    namespace: dict = {}
    exec(_HASH_EMBEDDER, namespace)
    rng = random.Random(0)
    vocabulary = [f"{rng.choice('bcdfgklmnprst')}{rng.choice('aeiou')}{rng.choice('lmnrst')}{i}" for i in range(400)]
    document = Document(analysis_id="DET-1", doc_id="note")
    chunks = []
    for position in range(n_chunks):
        text = " ".join(" ".join(rng.choices(vocabulary, k=12)).capitalize() + "." for _ in range(7))
        chunks.append(Chunk(id=chunk_id("note", "1", position, text), analysis_id="DET-1", doc_id="note",
                            version="1", position=position, section=[f"Part {position // 50}"], text=text))
    settings = Settings(data_dir=tmp_path / "kb", reranker="none")
    KnowledgeBase(settings, namespace["HashEmbedder"]()).replace_analysis(
        Analysis(id="DET-1", title="determinism"), [document], chunks)
    questions = [" ".join(rng.choices(vocabulary, k=6)) + "?" for _ in range(5)]
    root = Path(__file__).resolve().parents[3]
    return [
        json.loads(subprocess.run([sys.executable, "-c", _RANKINGS, str(settings.data_dir), json.dumps(questions)],
                                  capture_output=True, text=True, check=True, cwd=root).stdout)
        for _ in range(processes)
    ]


def test_tier2_rankings_are_the_same_in_every_process(tmp_path):
    """The same question on the same index gets the same ranking in a new process."""
    first, *others = _tier2_rankings_in_fresh_processes(tmp_path, 1_000, 2)
    assert all(len(ranking) == 50 for ranking in first)
    assert all(other == first for other in others)


@pytest.mark.slow
def test_tier2_rankings_are_the_same_in_every_process_at_10k_chunks(tmp_path):
    first, *others = _tier2_rankings_in_fresh_processes(tmp_path, 10_000, 3)
    assert all(len(ranking) == 50 for ranking in first)
    assert all(other == first for other in others)


def test_routing_finds_an_analysis_by_a_detail_only_its_full_text_holds(pipeline, settings, embedder):
    """No abstract mentions parton distribution functions or templates: the evidence index
    over every analysis's sections does, and a re-indexed analysis routes on its new text only."""
    question = "Which parton distribution function templates were fitted?"
    routed = pipeline.router.route(question, top_n=3)
    assert routed.top.analysis.id == "SMP-24-003"
    assert routed.top.scores["evidence_rank"] == 1
    assert pipeline.kb.route_evidence(tokenize(question), 3)[0][0] == "SMP-24-003"
    # Re-index SMP-24-003 without that section: its old text no longer counts.
    record = next(a for a in ANALYSES if a["analysis_id"] == "SMP-24-003")
    text = "# Results\n\nThe W boson mass is measured to be 80354 +- 23 MeV with the muon spectrum."
    index_records(pipeline.kb, [JsonlAnalysis.model_validate(
        {**record, "documents": [{**record["documents"][0], "version": "2", "text": text}]})])
    assert "SMP-24-003" not in [a for a, _ in pipeline.kb.route_evidence(tokenize(question), 3)]


def test_an_older_data_dirs_single_evidence_index_routes_until_a_writer_replaces_it(pipeline, settings):
    """A data dir of a version that rebuilt one evidence index (a BM25 index) each run has
    no segments: a reader still routes by evidence (segments built in memory), and the
    writer's next run saves segments and deletes the old index."""
    question = "Which parton distribution function templates were fitted?"
    shutil.rmtree(settings.data_dir / "evidence")
    pipeline.kb.files.save("bm25", EVIDENCE, BM25Index.build(["old"], ["parton templates"]).write)
    assert pipeline.kb.route_evidence(tokenize(question), 3)[0][0] == "SMP-24-003"
    pipeline.kb.sync_abstracts()
    assert (settings.data_dir / "evidence" / "state").is_dir() and not (settings.data_dir / "bm25" / EVIDENCE).exists()
    assert pipeline.kb.route_evidence(tokenize(question), 3)[0][0] == "SMP-24-003"


def test_a_routed_question_reads_one_catalog_version_once(pipeline, monkeypatch):
    catalog = pipeline.kb.catalog
    versions, rows = [], []
    get_meta, analysis = catalog.get_meta, catalog.analysis
    monkeypatch.setattr(catalog, "get_meta", lambda key: versions.append(key) or get_meta(key))
    monkeypatch.setattr(catalog, "analysis", lambda analysis_id: rows.append(analysis_id) or analysis(analysis_id))
    result = pipeline.router.route("what limits were set on dark matter mediators in the monojet search?")
    assert result.candidates[0].analysis.id == "EXO-24-002" and len(result.candidates) == 3
    assert versions.count("routing_version") == 1 and rows == []  # not once per list and candidate


def test_routing_says_how_strong_its_first_candidate_is(pipeline):
    """A question every signal routes to one analysis is a strong match, with the words its
    abstract holds; a question that could be about any analysis stands out nowhere."""
    clear = pipeline.router.route("Dark matter monojet search: limits on mediator masses?", top_n=3)
    assert clear.stands_out and clear.top.analysis.id == "EXO-24-002"
    assert {"monojet", "mediator"} <= set(clear.top.matched)
    assert all(c.confidence == "weak" for c in clear.candidates[1:])
    vague = pipeline.router.route("What is the result?", top_n=3)
    assert not vague.stands_out and all(c.confidence == "weak" for c in vague.candidates)
    assert pipeline.router.route("SMP-24-003 uncertainties").stands_out  # named by its id


def test_a_reader_keeps_the_indexes_of_its_most_recently_read_analyses_only(pipeline):
    """A long-running app serves thousands of analyses: what it keeps loaded is bounded by
    reader_cache_analyses, and an analysis forgotten is loaded again when asked."""
    kb = pipeline.kb
    kb.settings.reader_cache_analyses = 2
    ids = [a.id for a in kb.analyses()]
    assert len(ids) >= 3
    for analysis_id in ids:
        assert pipeline.retriever.search(analysis_id, "background estimate", system="hybrid").hits
    kept = {name for name, _ in kb._bm25} | set(kb._dense)
    collections = {kb._record(i).collection for i in ids}
    assert kept & collections == {kb._record(i).collection for i in ids[-2:]}
    assert not kb._handles  # hits are read from each generation's passages file, never from Chroma
    assert pipeline.retriever.search(ids[0], "background estimate", system="hybrid").hits
    assert kb._record(ids[0]).collection in kb._dense

    listed = kb.chunks(ids[0], SearchFilter())  # the app's view of a cited section reads the file too
    assert listed and not kb._handles

    # A generation written before passages files existed is read from Chroma.
    shutil.rmtree(kb.files.directory("passages", kb._record(ids[0]).collection))
    assert pipeline.retriever.search(ids[0], "background estimate", system="hybrid").hits
    assert kb._handles
    assert kb.chunks(ids[0], SearchFilter()) == listed


def test_routing_keeps_its_own_fusion_depth_whatever_tier_2s(pipeline):
    """route_fusion_depth is routing's: changing tier 2's fusion_depth (or its guard)
    cannot move which analysis a question is routed to, nor its scores."""
    question = "what limits were set on dark matter mediators in the monojet search?"

    def routed(p):
        return [(c.analysis.id, round(c.scores["fused"], 9)) for c in p.router.route(question).candidates]

    before = routed(pipeline)
    assert routed(pipeline.with_settings(fusion_depth=2, fusion_guard=5)) == before
    assert routed(pipeline.with_settings(route_fusion_depth=2)) != before


def test_with_the_guard_a_ranking_holds_the_same_passages(pipeline):
    question = "What is the dominant background?"
    fused = pipeline.retriever.retrieve("HIG-24-001", question)
    guarded = pipeline.with_settings(fusion_guard=1).retriever.retrieve("HIG-24-001", question)
    assert {h.chunk.id for h in guarded} == {h.chunk.id for h in fused}


def test_a_reader_searches_a_large_analysis_through_the_exact_8_bit_first_pass(demo_pipeline, monkeypatch):
    """Readers load an analysis of PREFILTER_ROWS paragraphs or more with the 8-bit first
    pass (here every analysis, with a window depth below its size so the pass runs), and
    find the same passages with the same scores."""
    from mitra.store.dense_prefilter import Int8Prefilter

    kb = demo_pipeline.kb
    monkeypatch.setattr("mitra.store.dense.WINDOW_DEPTH", 3)
    monkeypatch.setattr(kb.settings, "dense_k", 3)
    shortlisted = []
    shortlist = Int8Prefilter.shortlist
    monkeypatch.setattr(Int8Prefilter, "shortlist", lambda self, *a: shortlisted.append(a) or shortlist(self, *a))
    question = "What is the dominant background?"
    exact = demo_pipeline.retriever.search("EXO-24-003", question, system="dense").hits
    assert kb._dense[kb._record("EXO-24-003").collection][2].prefilter is None

    monkeypatch.setattr("mitra.store.dense.PREFILTER_ROWS", 1)
    kb._dense.clear()  # a reader started afresh
    fast = demo_pipeline.retriever.search("EXO-24-003", question, system="dense").hits
    assert kb._dense[kb._record("EXO-24-003").collection][2].prefilter is not None
    assert shortlisted and len(exact) == 3
    assert [h.chunk.id for h in fast] == [h.chunk.id for h in exact]
    assert [h.scores["dense"] for h in fast] == pytest.approx([h.scores["dense"] for h in exact], abs=1e-6)
