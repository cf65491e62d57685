"""The real LHCb expert questions (slow: needs ../shared/data and ~1 min of embedding)."""

import pytest

from mitra.evaluation.retrieval import evaluate
from ingest.sources.jsonl import index_records
from benchmarks.corpora.lhcb import expert_questions, gold_queries, iter_papers
from mitra.retrieval.pipeline import build_pipeline

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def lhcb(shared_root, tmp_path_factory, embedder):
    from mitra.core.settings import Settings

    questions = expert_questions(shared_root)
    needed = {q.arxiv_id for q in questions}
    papers = list(iter_papers(shared_root))
    # the 5 papers with questions in full, plus 150 other abstracts as routing distractors
    chosen = [p for p in papers if p.arxiv_id in needed] + [p for p in papers if p.arxiv_id not in needed][:150]
    pipeline = build_pipeline(Settings(data_dir=tmp_path_factory.mktemp("lhcb"), reranker="none"), embedder=embedder)
    index_records(pipeline.kb, [p.record(full_text=p.arxiv_id in needed) for p in chosen])
    return pipeline, gold_queries(questions, {p.arxiv_id: p.title for p in chosen})


def test_the_default_system_beats_bm25_on_the_expert_questions(lhcb):
    pipeline, gold = lhcb
    report = evaluate(pipeline, gold, ["bm25", "hybrid"], "lhcb")
    metrics = report.systems["LHCb expert"]
    assert report.skipped_without_gold == 2
    assert metrics["hybrid"]["MRR@10"] > metrics["bm25"]["MRR@10"]
    assert metrics["hybrid"]["NDCG@5"] > metrics["bm25"]["NDCG@5"]
    assert report.routing["LHCb expert"]["top3"] == 1.0


def test_the_evidence_of_every_answerable_question_is_in_the_index(lhcb):
    from mitra.evaluation.metrics import evidence_matches

    pipeline, gold = lhcb
    for query in (g for g in gold if g.evidence):
        chunks = pipeline.kb.chunks(query.analysis_id)
        assert any(evidence_matches(ev, c.text) for ev in query.evidence for c in chunks), query.qid
