"""The whole ingestion pipeline on the demo corpus: portal -> crawl -> extract -> chunk ->
index, version supersession, skipping unchanged versions, and the kill-and-rerun
property (an interrupted run, started again, ends with the stores of an
uninterrupted one)."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ingest.sources.crawl import crawl
from ingest.pipeline import index_manifest
from ingest.sources.manifest import Manifest, Stage
from ingest.sources.profiles import load_profile
from ingest.sources.login import Credentials
from mitra.store.bm25 import BM25Index
from mitra.core.settings import Settings
from mitra.store.chroma import ABSTRACTS
from mitra.store.knowledge_base import KnowledgeBase


def _settings(data_dir: Path) -> Settings:
    return Settings(data_dir=data_dir, reranker="none", crawl_delay_s=0)


@pytest.fixture(scope="module")
def crawled(demo_corpus, tmp_path_factory) -> Path:
    """A data dir holding the crawl of a fault-free portal: manifest + downloads, nothing indexed."""
    from demo.portal import PortalConfig, serve_portal

    config = PortalConfig(corpus_dir=demo_corpus.root, username="physicist", password="pw-1234", render_delay_ms=0)
    data_dir = tmp_path_factory.mktemp("crawled")
    with serve_portal(config) as portal:
        report = crawl(
            load_profile("local_portal"), _settings(data_dir), base_url=portal.url,
            credentials=Credentials(username="physicist", password="pw-1234"),
        )
    assert report.ok and len(report.downloaded) == 9  # 7 PDFs, a wiki topic and its talk
    return data_dir


def _copy(crawled: Path, dest: Path) -> Path:
    shutil.copytree(crawled, dest)
    return dest


def snapshot(data_dir: Path, embedder) -> dict:
    """Everything the stores hold, independent of paths and timestamps."""
    kb = KnowledgeBase(_settings(data_dir), embedder)
    state = {"abstracts": sorted(kb.client.get_collection(ABSTRACTS).get()["ids"])}
    for record in kb.catalog.analyses():
        a = record.analysis
        state[a.id] = {
            "analysis": a.model_dump(),
            "chunks": sorted((c.id, c.superseded, c.section_path, c.page_start, c.kind.value) for c in kb.chunks(a.id)),
            "documents": sorted(
                (d.document.doc_id, d.document.version, d.document.sha256, d.n_chunks, d.superseded)
                for d in kb.documents(a.id)
            ),
            "bm25": sorted(BM25Index.load(kb.settings.bm25_dir / record.collection).ids),
        }
    with Manifest.open(kb.settings) as manifest:
        state["manifest"] = sorted((v.key, v.extract_status.value, v.index_status.value) for v in manifest.versions())
    return state


@pytest.fixture(scope="module")
def reference(crawled, tmp_path_factory, embedder):
    """An uninterrupted run, and what it left in the stores."""
    data_dir = _copy(crawled, tmp_path_factory.mktemp("reference") / "kb")
    settings = _settings(data_dir)
    kb = KnowledgeBase(settings, embedder)
    with Manifest.open(settings) as manifest:
        summary = index_manifest(kb, manifest, settings)
    return data_dir, summary, snapshot(data_dir, embedder)


def test_the_pipeline_indexes_every_version_with_provenance(reference, embedder):
    data_dir, summary, state = reference
    assert summary.as_dict() | {"failed": []} == {
        "analyses": 5, "documents": 8, "versions": 9, "pages": summary.pages, "ocr_pages": 5,
        "chunks": summary.chunks, "skipped": 0, "failed": [], "flagged": [], "left_out": {}, "notes": [],
    }
    assert not summary.failed and summary.pages >= 25
    higgs = dict((d[1], d) for d in state["HIG-24-001"]["documents"] if d[0] == "AN-2024-017")
    assert higgs["v1"][4] is True and higgs["v2"][4] is False  # v2 supersedes v1
    assert state["abstracts"] == ["BPH-24-005", "EXO-24-003", "HIG-24-001", "HIG-24-007", "SMP-24-002"]
    assert all(extract == index == "done" for _, extract, index in state["manifest"])

    kb = KnowledgeBase(_settings(data_dir), embedder)
    chunks = kb.chunks("HIG-24-001")
    assert {c.kind.value for c in chunks} >= {"body", "caption", "table"}
    # a note's or a slide's passage has its page; the wiki topic's, its heading's anchor
    assert all(c.section and (c.page_start or c.anchor) for c in chunks if c.kind.value == "body")
    # the abstract comes from the portal page
    assert kb.get_analysis("HIG-24-001").abstract.startswith("A search for")


def test_a_rerun_skips_what_is_indexed(reference, embedder):
    data_dir, _, state = reference
    settings = _settings(data_dir)
    kb = KnowledgeBase(settings, embedder)
    with Manifest.open(settings) as manifest:
        assert manifest.pending(Stage.index) == []
        again = index_manifest(kb, manifest, settings)
    assert again.versions == 0 and again.chunks == 0
    assert again.skipped == 9  # as many as the crawl finds unchanged (issue 47: it said 0)
    assert snapshot(data_dir, embedder) == state


class Killed(BaseException):
    """Stands in for SIGKILL inside the process: nothing after it runs."""


def _run_killed_after(data_dir: Path, embedder, pages: int) -> None:
    settings = _settings(data_dir)
    kb = KnowledgeBase(settings, embedder)
    seen = {"pages": 0}

    def progress(_record):
        def page(_done, _total):
            seen["pages"] += 1
            if seen["pages"] >= pages:
                raise Killed

        return page

    with Manifest.open(settings) as manifest, pytest.raises(Killed):
        index_manifest(kb, manifest, settings, progress=progress)


@pytest.mark.parametrize("pages", [8, pytest.param(1, marks=pytest.mark.slow), pytest.param(20, marks=pytest.mark.slow)])
def test_a_killed_run_started_again_ends_like_an_uninterrupted_one(crawled, reference, tmp_path, embedder, pages):
    data_dir = _copy(crawled, tmp_path / "kb")
    _run_killed_after(data_dir, embedder, pages)
    settings = _settings(data_dir)
    with Manifest.open(settings) as manifest:
        index_manifest(KnowledgeBase(settings, embedder), manifest, settings)
    assert snapshot(data_dir, embedder) == reference[2]


@pytest.mark.slow
def test_sigkill_mid_run_then_rerun(crawled, reference, tmp_path, embedder):
    """A real SIGKILL of `mitra ingest`'s index stage in another process, at whatever point it reached."""
    data_dir = _copy(crawled, tmp_path / "kb")
    script = (
        "from mitra.retrieval.pipeline import build_pipeline; from ingest.pipeline import index_manifest; "
        "from ingest.sources.manifest import Manifest; kb = build_pipeline(with_reranker=False).kb; "
        "m = Manifest.open(kb.settings); index_manifest(kb, m, kb.settings)"
    )
    env = {**__import__("os").environ, "MITRA_DATA_DIR": str(data_dir), "MITRA_RERANKER": "none"}
    process = subprocess.Popen([sys.executable, "-c", script], env=env, stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    while time.time() < deadline and process.poll() is None:
        with Manifest(data_dir / "manifest.sqlite") as manifest:
            if any(v.index_status.value == "done" for v in manifest.versions()):
                break
        time.sleep(0.2)
    time.sleep(1.5)  # somewhere inside the next version
    process.send_signal(signal.SIGKILL)
    process.wait()
    settings = _settings(data_dir)
    with Manifest.open(settings) as manifest:
        index_manifest(KnowledgeBase(settings, embedder), manifest, settings)
    assert snapshot(data_dir, embedder) == reference[2]


# ---------------------------------------------------------------- CLI
@pytest.fixture
def cli(tmp_path, monkeypatch):
    from mitra.cli import main as cli_module
    from mitra.core.settings import get_settings

    monkeypatch.setenv("MITRA_DATA_DIR", str(tmp_path / "kb"))
    monkeypatch.setenv("MITRA_RERANKER", "none")
    get_settings.cache_clear()
    app = cli_module.register_commands()
    runner = CliRunner()
    yield lambda *args: runner.invoke(app, list(args))
    get_settings.cache_clear()


def test_ingest_pdf_reports_bad_files_and_keeps_going(cli, note_pdf, bad_pdfs, tmp_path):
    result = cli("ingest", "pdf", str(note_pdf), str(bad_pdfs["html"]), str(bad_pdfs["truncated"]),
                 "--analysis", "TEST-1", "--title", "A test analysis", "--json")
    assert result.exit_code == 1, result.output
    summary = json.loads(result.stdout)
    assert summary["versions"] == 1 and summary["chunks"] > 0
    failed = {Path(f["file"]).name: f["reason"] for f in summary["failed"]}
    assert set(failed) == {"html.pdf", "truncated.pdf"}
    assert "the file is HTML" in failed["html.pdf"]

    again = cli("ingest", "pdf", str(note_pdf), "--analysis", "TEST-1", "--json")
    assert again.exit_code == 0 and json.loads(again.stdout)["skipped"] == 1
    stats = json.loads(cli("stats", "--json").stdout)
    assert stats["analyses"] == 1 and stats["per_analysis"][0]["title"] == "A test analysis"


def test_ingest_status_without_and_with_a_manifest(cli, crawled, tmp_path, monkeypatch):
    assert "no manifest" in cli("ingest", "status").stdout
    from mitra.core.settings import get_settings

    monkeypatch.setenv("MITRA_DATA_DIR", str(_copy(crawled, tmp_path / "copy")))
    get_settings.cache_clear()
    rows = json.loads(cli("ingest", "status", "--json").stdout)
    assert rows["analyses"] == 5 and len(rows["versions"]) == 9
    assert {(r["download"], r["index"]) for r in rows["versions"]} == {("downloaded", "pending")}


@pytest.mark.slow  # the whole demo crawled and indexed again (1 min); test_crawl runs `ingest run` on the portal by default
def test_ingest_run_crawls_indexes_and_a_rerun_skips(cli, demo_corpus, monkeypatch, tmp_path):
    from demo.portal import PortalConfig, serve_portal
    from ingest.sources.profiles import load_profile
    from mitra.access.policy import attached_groups

    monkeypatch.setenv("MITRA_PORTAL_USER", "physicist")
    monkeypatch.setenv("MITRA_PORTAL_PASSWORD", "pw-run")
    profile = tmp_path / "local_portal.yaml"  # the bundled profile, whose analyses its groups may read
    profile.write_text(load_profile("local_portal").model_copy(update={"groups": ["orion"]}).model_dump_json())
    config = PortalConfig(corpus_dir=demo_corpus.root, username="physicist", password="pw-run", render_delay_ms=0)
    with serve_portal(config) as portal:
        first = cli("ingest", "run", "--profile", str(profile), "--base-url", portal.url, "--groups", "orion-board",
                    "--json")
        assert first.exit_code == 0, first.output
        again = cli("ingest", "run", "--profile", str(profile), "--base-url", portal.url, "--json")
    done = json.loads(first.stdout)
    kb = KnowledgeBase(_settings(tmp_path / "kb"))
    assert {tuple(attached_groups(a)) for a in kb.analyses()} == {("orion", "orion-board")}
    assert len(done["crawl"]["analyses"]) == 5
    assert done["ingest"]["versions"] == 9 and done["ingest"]["ocr_pages"] == 5 and not done["ingest"]["failed"]
    rerun = json.loads(again.stdout)
    assert rerun["crawl"]["session_reused"] and rerun["ingest"]["versions"] == 0
    assert json.loads(cli("stats", "--json").stdout)["superseded_versions"] == 1
