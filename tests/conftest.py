"""Shared fixtures. Sections: core (stores, embedder) first; stage fixtures below."""

from __future__ import annotations

from pathlib import Path

import pytest

from mitra.settings import Settings
from tests.samples import ANALYSES, write_jsonl

REPO = Path(__file__).resolve().parents[1]


# ---------------------------------------------------------------- core
@pytest.fixture(scope="session")
def embedder():
    """The real packaged all-MiniLM-L6-v2, loaded once per test session."""
    from mitra.embedders import SentenceTransformerEmbedder

    return SentenceTransformerEmbedder("all-MiniLM-L6-v2")


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path / "kb", reranker="none", chunk_min_chars=40, chunk_max_chars=600)


@pytest.fixture(scope="session")
def shared_root() -> Path:
    from mitra.lhcb import shared_dir

    root = shared_dir()
    if root is None:
        pytest.skip("../shared/data is absent (set MITRA_SHARED_DIR): real-data test skipped")
    return root


@pytest.fixture(scope="session")
def corpus_jsonl(tmp_path_factory) -> Path:
    return write_jsonl(tmp_path_factory.mktemp("corpus") / "analyses.jsonl", ANALYSES)


@pytest.fixture
def pipeline(settings, embedder, corpus_jsonl):
    """A real pipeline (real Chroma on disk, real embedder) over the three analyses."""
    from mitra.indexing import index_jsonl
    from mitra.retrieval import build_pipeline

    built = build_pipeline(settings, embedder=embedder)
    index_jsonl(built.kb, corpus_jsonl)
    return built


# ---------------------------------------------------------------- portal: demo corpus + local document portal
@pytest.fixture(scope="session")
def demo_corpus(tmp_path_factory):
    """The ORION demo corpus rendered once per session (about 5 s: one note is scanned)."""
    from demo.make_corpus import build_corpus

    return build_corpus(tmp_path_factory.mktemp("demo-corpus"))


@pytest.fixture(scope="module")
def portal(demo_corpus):
    """The local portal serving the demo corpus with its fault documents, on a free port.
    One per test module, so its counters (logins, downloads) start at zero in each."""
    from ingest.portal import PortalConfig, serve_portal

    config = PortalConfig(
        corpus_dir=demo_corpus.root, username="physicist", password="test-password-4711",
        faults=True, slow_s=8.0, render_delay_ms=100,
    )
    with serve_portal(config) as running:
        yield running
