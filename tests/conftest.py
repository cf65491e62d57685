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
