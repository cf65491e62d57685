"""The real model-loading code paths on small locally saved checkpoints, Chroma's
server mode, and the CLI."""

import json
from pathlib import Path

import numpy as np
import pytest

from mitra.models.embedders import DPREmbedder, ModelUnavailable, resolve_model_path
from mitra.models.rerank import CrossEncoderReranker, load_reranker
from mitra.retrieval.pipeline import build_pipeline
from mitra.core.settings import Settings
from tests.fixtures.samples import ANALYSES, write_jsonl
from tests.fixtures.servers import running_chroma


def _tiny_bert_config(**extra):

    return dict(
        vocab_size=30522, hidden_size=32, num_hidden_layers=1, num_attention_heads=2, intermediate_size=64, **extra
    )


@pytest.fixture(scope="module")
def tokenizer():
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(resolve_model_path("all-MiniLM-L6-v2"))


@pytest.fixture(scope="module")
def tiny_cross_encoder(tmp_path_factory, tokenizer) -> Path:
    """A randomly initialised BERT cross-encoder saved the way HF checkpoints are."""
    import torch
    from transformers import BertConfig, BertForSequenceClassification

    torch.manual_seed(0)
    path = tmp_path_factory.mktemp("tiny-cross-encoder")
    BertForSequenceClassification(BertConfig(num_labels=1, **_tiny_bert_config())).save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path


def test_cross_encoder_reranks_the_fused_head(pipeline, tiny_cross_encoder):
    reranker = CrossEncoderReranker(str(tiny_cross_encoder))
    pipeline.retriever.reranker = reranker
    result = pipeline.retriever.search("HIG-24-001", "dominant background", system="rerank")
    assert result.reranked and "rerank" in result.timings_ms
    reranked = [h for h in result.hits if "rerank" in h.scores]
    assert len(reranked) == min(pipeline.settings.rerank_top_n, len(result.hits))
    logits = [h.scores["rerank"] for h in reranked]
    assert logits == sorted(logits, reverse=True)
    # the scores are the cross-encoder's own
    direct = reranker.score("dominant background", [reranked[0].chunk.index_text])
    assert direct[0] == pytest.approx(logits[0], abs=1e-5)


def test_missing_reranker_is_reported_and_retrieval_continues(tmp_path, caplog):
    settings = Settings(data_dir=tmp_path, reranker="cross-encoder/ms-marco-MiniLM-L-6-v2")
    reranker, note = load_reranker(settings)
    assert reranker is None
    assert "ms-marco-MiniLM-L-6-v2" in note and "MITRA_RERANKER" in note
    assert load_reranker(Settings(data_dir=tmp_path, reranker="none")) == (None, "reranking disabled (reranker = none)")


def test_dpr_question_and_context_encoders(tmp_path, tokenizer):
    from transformers import DPRConfig, DPRContextEncoder, DPRQuestionEncoder

    config = DPRConfig(projection_dim=0, **_tiny_bert_config())
    for name, cls in (("q", DPRQuestionEncoder), ("c", DPRContextEncoder)):
        cls(config).save_pretrained(tmp_path / name)
        tokenizer.save_pretrained(tmp_path / name)
    separate = DPREmbedder(str(tmp_path / "q"), str(tmp_path / "c"))
    shared = DPREmbedder(str(tmp_path / "q"), str(tmp_path / "c"), shared=True)
    q = separate.embed_queries(["dominant background"])
    p = separate.embed_passages(["Drell-Yan is dominant.", "Top pairs."])
    assert q.shape == (1, 32) and p.shape == (2, 32) and separate.dim == 32
    assert np.allclose(np.linalg.norm(p, axis=1), 1.0, atol=1e-5)
    # shared mode encodes passages with the question encoder
    assert np.allclose(shared.embed_passages(["Top pairs."]), shared.embed_queries(["Top pairs."]), atol=1e-5)
    assert not np.allclose(separate.embed_passages(["Top pairs."]), separate.embed_queries(["Top pairs."]), atol=1e-3)
    assert separate.name.startswith("dpr:") and shared.name.endswith(":shared")


def test_missing_dpr_weights_name_the_model():
    with pytest.raises(ModelUnavailable, match="(?s)facebook/dpr-question_encoder-multiset-base.*huggingface-cli download"):
        DPREmbedder("facebook/dpr-question_encoder-multiset-base", "facebook/dpr-ctx_encoder-multiset-base")


@pytest.fixture
def chroma_server(tmp_path):
    """The compose file's chroma service on a free port (``tests.fixtures.servers``)."""
    with running_chroma(tmp_path / "server") as server:
        yield server.port


def test_chroma_server_mode(chroma_server, tmp_path, embedder, corpus_jsonl):
    from ingest.sources.jsonl import index_jsonl

    settings = Settings(data_dir=tmp_path / "local", chroma_host="127.0.0.1", chroma_port=chroma_server, reranker="none")
    p = build_pipeline(settings, embedder=embedder)
    index_jsonl(p.kb, corpus_jsonl)
    assert not settings.chroma_dir.exists()  # vectors live in the server
    assert p.router.route("dark matter monojet").top.analysis.id == "EXO-24-002"
    assert p.retriever.retrieve("SMP-24-003", "parton distribution uncertainty")[0].chunk.analysis_id == "SMP-24-003"
    assert p.kb.stats()["chroma"] == f"http://127.0.0.1:{chroma_server}"


# ---------------------------------------------------------------- CLI
def test_cli_index_route_search_eval_stats(cli, tmp_path, corpus_jsonl):
    result = cli("index-jsonl", str(corpus_jsonl), "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["stats"]["analyses"] == 3

    routed = json.loads(cli("route", "W boson mass from the muon pT spectrum", "--json").stdout)
    assert routed["candidates"][0]["analysis_id"] == "SMP-24-003" and "margin" in routed

    one = json.loads(cli("search", "--analysis", "EXO-24-002", "missing transverse momentum", "--json").stdout)
    assert one["hits"] and {h["doc_id"] for h in one["hits"]} == {"AN-2024-002"}
    assert set(one["hits"][0]) >= {"rank", "chunk_id", "doc_id", "version", "section", "page", "text", "scores"}

    queries = write_jsonl(
        tmp_path / "q.jsonl",
        [{"qid": "a", "query": "dark matter mediator limits"}, {"qid": "b", "query": "dominant background", "analysis_id": "HIG-24-001"}],
    )
    out = tmp_path / "r.jsonl"
    result = cli("search", "--queries", str(queries), "--out", str(out), "--system", "hybrid")
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert rows[0]["routed"][0]["analysis_id"] == "EXO-24-002" and rows[0]["hits"]
    assert rows[1]["routed"] == [] and rows[1]["analysis_id"] == "HIG-24-001"

    gold = write_jsonl(
        tmp_path / "gold.jsonl",
        [
            {"qid": "g1", "query": "What is the dominant background?", "analysis_id": "EXO-24-002",
             "evidence": ["The dominant background is Z boson production with decays to neutrinos"]},
            {"qid": "g2", "query": "How large is the PDF uncertainty?", "analysis_id": "SMP-24-003",
             "route_query": "W boson mass PDF uncertainty", "evidence": ["parton distribution function modelling, 9 MeV"]},
        ],
    )
    report = json.loads(cli("eval", "--gold", str(gold), "--systems", "bm25,hybrid", "--json").stdout)
    assert set(report["systems"]["all"]) == {"bm25", "hybrid"}
    assert report["systems"]["all"]["hybrid"]["MRR@10"] > 0
    assert report["routing"]["all"]["top1"] == 1.0
    markdown = cli("eval", "--gold", str(gold), "--systems", "bm25,hybrid").stdout
    assert "| Query set | System | P@1 | R@1 |" in markdown and "MRR@10" in markdown

    stats = json.loads(cli("stats", "--json").stdout)
    assert stats["analyses"] == 3 and len(stats["per_analysis"]) == 3


def test_cli_reports_bad_input_without_traceback(cli, tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(ANALYSES[0]) + "\n{oops\n")
    result = cli("index-jsonl", str(bad))
    assert result.exit_code == 2
    assert f"{bad}:2:" in result.output and "Traceback" not in result.output
    result = cli("search", "--analysis", "NOPE", "anything")
    assert result.exit_code == 2 and "no analysis 'NOPE'" in result.output
    assert cli("eval", "--gold", str(tmp_path / "missing.jsonl")).exit_code == 2
