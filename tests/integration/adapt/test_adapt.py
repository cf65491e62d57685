"""``mitra adapt`` on the demo corpus with a tiny budget: it trains a real cross-encoder
from the packaged MiniLM weights, publishes it with a manifest, the retriever uses it,
and a run killed at a checkpoint resumes. One slow test runs it with its default budget
on 30 real LHCb papers with no headings."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest


TINY = ["--minutes", "5", "--llm-share", "0", "--max-steps", "4"]


@pytest.fixture
def kb_copy(demo_kb, tmp_path, monkeypatch) -> Path:
    data_dir = tmp_path / "kb"
    shutil.copytree(demo_kb, data_dir)
    monkeypatch.setenv("MITRA_DATA_DIR", str(data_dir))
    return data_dir


def test_adapt_trains_publishes_and_is_used_by_search_and_the_default(kb_copy, cli_in):
    result = cli_in("adapt", *TINY, "--enable", "always", "--json")
    assert result.exit_code == 0, result.output
    manifest = json.loads(result.stdout)
    assert manifest["enabled"] and manifest["steps"] == 4
    assert manifest["pseudo_queries"]["heading"] > 0 and manifest["pseudo_queries"]["llm"] == 0
    assert manifest["pseudo_queries"]["heldout"] >= 5 and manifest["corpus"]["analyses"] == 5
    assert set(manifest["seconds"]) >= {"queries", "negatives", "training", "validation", "passage_vectors", "total"}
    model_dir = kb_copy / "models" / manifest["model_dir"]
    assert (model_dir / "manifest.json").exists() and (model_dir / "passages.npy").exists()
    assert json.loads((kb_copy / "models" / "adapted.json").read_text()) == {"current": manifest["model_dir"]}
    assert not (kb_copy / "models" / "adapt-work" / "checkpoints").exists()

    stats = json.loads(cli_in("stats", "--json").stdout)
    assert stats["adapted"]["model_dir"] == manifest["model_dir"]

    question = "What is the dominant background?"
    adapted = json.loads(cli_in("search", "--analysis", "EXO-24-003", question, "--system", "adapted", "--json").stdout)
    default = json.loads(cli_in("search", "--analysis", "EXO-24-003", question, "--json").stdout)
    assert "rerank" in adapted["hits"][0]["scores"]
    assert [h["chunk_id"] for h in default["hits"]] == [h["chunk_id"] for h in adapted["hits"]]


@pytest.mark.slow  # trains for real (1-3 min); test_adapt_trains_publishes… keeps training in the default suite
def test_adapt_is_switched_off_where_asked_and_the_default_stays_fusion(kb_copy, cli_in):
    result = cli_in("adapt", *TINY, "--enable", "never", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["enabled"] is False
    hits = json.loads(cli_in("search", "--analysis", "EXO-24-003", "dominant background", "--json").stdout)["hits"]
    assert "rerank" not in hits[0]["scores"] and "fused" in hits[0]["scores"]


def test_adapt_refuses_a_knowledge_base_too_small_to_learn_from(cli, corpus_jsonl):
    assert cli("index-jsonl", str(corpus_jsonl)).exit_code == 0
    result = cli("adapt", *TINY)
    assert result.exit_code == 2
    assert "too small to adapt to" in result.output and "needs at least 50 passages" in result.output
    assert "Traceback" not in result.output


@pytest.mark.slow  # trains for real (1-3 min); test_adapt_trains_publishes… keeps training in the default suite
def test_adapt_asks_the_configured_llm_for_questions(kb_copy, cli_in, monkeypatch, ollama_stub):
    from tests.conftest import OLLAMA_MODEL

    ollama_stub.reply = lambda request: "Which background dominates the signal region?"
    monkeypatch.setenv("MITRA_LLM_BACKEND", "ollama")
    monkeypatch.setenv("MITRA_OLLAMA_HOST", ollama_stub.url)
    monkeypatch.setenv("MITRA_OLLAMA_MODEL", OLLAMA_MODEL)
    result = cli_in("adapt", "--minutes", "5", "--llm-share", "0.5", "--llm-questions", "3", "--max-steps", "2", "--json")
    assert result.exit_code == 0, result.output
    manifest = json.loads(result.stdout)
    assert manifest["pseudo_queries"]["llm"] == 3 and OLLAMA_MODEL in manifest["llm"]
    assert "Passage:" in ollama_stub.chats[0]["messages"][-1]["content"]


@pytest.mark.slow  # trains for real (1-3 min); test_adapt_trains_publishes… keeps training in the default suite
def test_a_run_killed_at_a_checkpoint_resumes_where_it_stopped(kb_copy):
    env = {**os.environ, "MITRA_DATA_DIR": str(kb_copy), "MITRA_RERANKER": "none"}
    command = [sys.executable, "-m", "mitra", "adapt", *TINY, "--enable", "always", "--json"]
    killed = subprocess.run(command, env={**env, "MITRA_KILL_AT": "adapt.checkpoint"}, capture_output=True,
                            text=True, timeout=600)
    assert killed.returncode == -9, killed.stderr[-2000:]
    work = kb_copy / "models" / "adapt-work"
    assert (work / "queries.jsonl").exists() and list((work / "checkpoints").glob("checkpoint-2"))
    assert not (kb_copy / "models" / "adapted.json").exists()
    queries_before = (work / "queries.jsonl").read_text()

    resumed = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    manifest = json.loads(resumed.stdout)
    assert manifest["steps"] == 4 and manifest["enabled"]
    assert (work / "queries.jsonl").read_text() == queries_before  # the queries were reused, not remade


def _plain_paragraphs(latex: str) -> str:
    """A paper's text as plain paragraphs, one a line, with no headings."""
    import re

    from mitra.core.text import clean_latex

    blocks = re.split(r"\n\s*\n|\\(?:sub)*section\*?\{[^}]*\}|\\paragraph\*?\{[^}]*\}", latex)
    return "\n".join(text for block in blocks if len(text := " ".join(clean_latex(block).split())) >= 40)


@pytest.mark.slow
def test_adapt_trains_and_validates_on_30_papers_without_headings_in_its_default_budget(
        shared_root, tmp_path, monkeypatch, cli_in, embedder):
    from benchmarks.corpora.lhcb import iter_papers
    from ingest.sources.jsonl import JsonlDocument, index_records
    from mitra.core.settings import Settings
    from mitra.retrieval.pipeline import build_pipeline

    records = []
    for paper in list(iter_papers(shared_root))[:30]:
        record = paper.record(full_text=True)
        record.documents = [JsonlDocument(doc_id="paper", version="1", title=paper.title,
                                          text=_plain_paragraphs(paper.text))]
        records.append(record)
    data_dir = tmp_path / "kb"
    pipeline = build_pipeline(Settings(data_dir=data_dir, reranker="none"), embedder=embedder, with_reranker=False)
    index_records(pipeline.kb, records, allow_low_coverage=True)
    chunks = [c for r in pipeline.kb.catalog.analyses() for c in pipeline.kb.chunks(r.analysis.id)]
    assert sum(bool(c.section) for c in chunks) < 0.05 * len(chunks)  # few headings indeed

    monkeypatch.setenv("MITRA_DATA_DIR", str(data_dir))
    result = cli_in("adapt", "--json")
    assert result.exit_code == 0, result.output
    manifest = json.loads(result.stdout)
    queries, heldout = manifest["pseudo_queries"], manifest["heldout"]
    print(f"adapt on 30 papers: {manifest['seconds']} s, queries {queries}, {manifest['steps']} steps, "
          f"held-out {heldout}, LLM: {manifest['llm']}")
    assert queries["train"] >= 200 and queries["heldout"] >= 60
    assert manifest["steps"] > 0 and heldout["queries"] == queries["heldout"]
    assert manifest["seconds"]["total"] < 11 * 60
    assert (data_dir / "models" / manifest["model_dir"] / "manifest.json").exists()
