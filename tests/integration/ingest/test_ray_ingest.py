"""Ingestion on Ray (``ingest.ray_stages``): a real local Ray on this machine's 2 CPUs
gives exactly the stores of the single-process path, and the ingesting process only
writes (it embeds no passage, only the analysis's routing text)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from ingest.pipeline import index_manifest
from ingest.sources.manifest import Manifest
from mitra.core.settings import Settings
from mitra.core.types import Analysis
from mitra.models.embedders import SentenceTransformerEmbedder
from mitra.store.dense import DenseIndex
from mitra.store.chroma import ABSTRACTS
from mitra.store.knowledge_base import KnowledgeBase
from tests.integration.ingest.test_ingest_pipeline import _copy, _settings, crawled, reference, snapshot  # noqa: F401

ANALYSIS = Analysis(id="RAY-01", title="Ray ingestion")


@pytest.fixture(scope="session")
def ray_cluster():
    """One local Ray for the session (starting one takes seconds)."""
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False)
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def pdfs(demo_corpus, tmp_path_factory) -> list[Path]:
    """Three text-layer PDFs of the demo corpus and, between them, a file that is no PDF."""
    bad = tmp_path_factory.mktemp("bad") / "not-a-pdf.pdf"
    bad.write_text("this is not a PDF")
    root = demo_corpus.root
    return [root / "BPH-24-005" / "AN-2024-052_v1.pdf", bad, root / "EXO-24-003" / "PAS-EXO-24-003_v1.pdf",
            root / "HIG-24-001" / "AN-2024-017_v2.pdf"]


def stores(settings: Settings, embedder) -> dict:
    """Per chunk its text, provenance and vector, its sentence windows' vectors, and the
    analysis with its routing vector."""
    kb = KnowledgeBase(settings, embedder)
    collection = kb.catalog.analysis(ANALYSIS.id).collection
    got = kb.client.get_collection(collection).get(include=["embeddings"])
    vectors = dict(zip(got["ids"], got["embeddings"]))
    windows = {i: w for i, (_, w) in DenseIndex.load(settings.data_dir / "dense" / collection).parts().items()}
    routing = kb.client.get_collection(ABSTRACTS).get(ids=[ANALYSIS.id], include=["embeddings"])["embeddings"][0]
    return {
        "analysis": kb.get_analysis(ANALYSIS.id).model_dump(),
        "documents": sorted((d.document.model_dump_json(), d.n_chunks) for d in kb.documents(ANALYSIS.id)),
        "chunks": {c.id: (c.model_dump(), vectors[c.id], windows[c.id]) for c in kb.chunks(ANALYSIS.id)},
        "routing": routing,
    }


def test_ray_ingest_writes_the_chunks_and_vectors_of_the_single_process_path(ray_cluster, pdfs, tmp_path, embedder,
                                                                           cli_in, monkeypatch):
    def ingest(data_dir: Path, *ray: str) -> dict:
        monkeypatch.setenv("MITRA_DATA_DIR", str(data_dir))
        result = cli_in("ingest", "pdf", *map(str, pdfs), "--analysis", ANALYSIS.id, "--title", ANALYSIS.title,
                        *ray, "--json")
        assert result.exit_code == 1, result.output  # the bad file
        return json.loads(result.stdout)

    local = ingest(tmp_path / "one")
    # What this process embeds while Ray extracts and embeds (the workers are other processes).
    embedded: list[str] = []
    encode = SentenceTransformerEmbedder.embed_passages
    monkeypatch.setattr(SentenceTransformerEmbedder, "embed_passages",
                        lambda self, texts, show_progress=False: embedded.extend(texts) or encode(self, texts))
    monkeypatch.setenv("MITRA_RAY_WORKERS", "2")
    distributed = ingest(tmp_path / "ray", "--ray", "local")

    # The bad file is reported as the single-process path reports it, and the others are indexed.
    assert distributed == local
    assert [f["file"] for f in distributed["failed"]] == [str(pdfs[1])] and distributed["versions"] == 3
    # The writer embedded only the analysis's routing text, once per version written.
    assert len(embedded) == distributed["versions"], embedded[:5]
    expected = stores(Settings(data_dir=tmp_path / "one", reranker="none"), embedder)
    actual = stores(Settings(data_dir=tmp_path / "ray", reranker="none"), embedder)
    assert actual["analysis"] == expected["analysis"] and actual["documents"] == expected["documents"]
    assert actual["chunks"].keys() == expected["chunks"].keys() and len(expected["chunks"]) > 20
    for chunk_id, (chunk, vector, windows) in expected["chunks"].items():
        assert actual["chunks"][chunk_id][0] == chunk
        np.testing.assert_allclose(actual["chunks"][chunk_id][1], vector, atol=1e-5)
        np.testing.assert_allclose(actual["chunks"][chunk_id][2], windows, atol=1e-5)
    np.testing.assert_allclose(actual["routing"], expected["routing"], atol=1e-5)


@pytest.mark.slow
def test_ray_ingest_run_leaves_the_stores_of_the_single_process_run(ray_cluster, crawled, reference, tmp_path, embedder):
    """``mitra ingest run`` on Ray: the crawled demo portal, a scanned note (OCR) and a
    superseded version among its documents."""
    data_dir = _copy(crawled, tmp_path / "kb")
    settings = _settings(data_dir).model_copy(update={"ray_address": "local"})
    with Manifest.open(settings) as manifest:
        summary = index_manifest(KnowledgeBase(settings, embedder), manifest, settings)
    _, expected, state = reference
    assert summary.as_dict() == expected.as_dict()
    assert snapshot(data_dir, embedder) == state


def test_an_unreachable_ray_address_is_one_line_at_once(pdfs, tmp_path, cli_in, monkeypatch):
    """ray.init retries an address nobody listens on for minutes; the check before it says so in a second."""
    import time

    from tests.conftest import closed_port

    monkeypatch.setenv("MITRA_DATA_DIR", str(tmp_path))
    address = f"127.0.0.1:{closed_port()}"
    start = time.monotonic()
    result = cli_in("ingest", "pdf", str(pdfs[0]), "--analysis", ANALYSIS.id, "--ray", address)
    assert result.exit_code == 2 and time.monotonic() - start < 30, result.output
    assert f"no Ray cluster answers at {address}" in " ".join(result.output.split())
    assert "Traceback" not in result.output
