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
    """The ORION demo corpus rendered once per session (a few seconds: one note is scanned)."""
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


# ---------------------------------------------------------------- chat: session, app and browser
CHAT_LLM = {"llm_backend": "embedded", "llm_max_tokens": 24, "llm_context_tokens": 2048}


def closed_port() -> int:
    """A port nothing listens on (bound, then released): an LLM server that is down."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def answerer(pipeline):
    """The real answerer on the packaged SmolLM2 in the embedded llama.cpp server (started
    once per process), with few tokens: the tests check the flow, not the prose."""
    from mitra.answer import build_answerer

    return build_answerer(pipeline, pipeline.settings.model_copy(update=CHAT_LLM))


@pytest.fixture
def unreachable_answerer(pipeline):
    """The real answerer pointed at an OpenAI-compatible server that is not running."""
    from mitra.answer import build_answerer

    down = {"llm_backend": "openai", "openai_base_url": f"http://127.0.0.1:{closed_port()}/v1"}
    return build_answerer(pipeline, pipeline.settings.model_copy(update=down))


@pytest.fixture(scope="session")
def app_data_dir(tmp_path_factory, embedder, corpus_jsonl) -> Path:
    """The three sample analyses indexed once, for the app, which reads its settings from env."""
    from mitra.indexing import index_jsonl
    from mitra.retrieval import build_pipeline

    data_dir = tmp_path_factory.mktemp("app") / "kb"
    built = build_pipeline(Settings(data_dir=data_dir, reranker="none"), embedder=embedder, with_reranker=False)
    index_jsonl(built.kb, corpus_jsonl)
    return data_dir


def app_environment(data_dir: Path, **llm) -> dict[str, str]:
    """MITRA_* variables that point the app at ``data_dir`` and an LLM (default: CHAT_LLM)."""
    values = {"data_dir": data_dir, "reranker": "none", **(llm or CHAT_LLM)}
    return {f"MITRA_{k.upper()}": str(v) for k, v in values.items()}


_APP_ENV: dict[str, str] = {}  # what the app's process-wide caches were loaded with


@pytest.fixture
def app_env(monkeypatch, app_data_dir):
    """Env for in-process AppTests: ``use(data_dir=..., **llm)`` changes it. The app's cached
    settings and models are reset only when the env changes, so most tests reuse them."""
    import streamlit as st

    from mitra.settings import get_settings

    def use(data_dir: Path = app_data_dir, **llm) -> None:
        env = app_environment(data_dir, **llm)
        for key, value in env.items():
            monkeypatch.setenv(key, value)
        for key in set(_APP_ENV) - set(env):
            monkeypatch.delenv(key, raising=False)
        if env != _APP_ENV:
            _APP_ENV.clear()
            _APP_ENV.update(env)
            get_settings.cache_clear()
            st.cache_resource.clear()

    use()
    yield use
    get_settings.cache_clear()  # other tests must not see the app's env; ui.settings() keeps its copy


# ---------------------------------------------------------------- answerer: LLM backends
OLLAMA_MODEL = "mistral:7b-instruct-q4_K_M"


@pytest.fixture
def ollama_stub():
    """A stand-in Ollama server speaking the real /api/tags and /api/chat protocol, with
    the paper's model pulled; tests set ``reply``, ``pulled`` or ``delay_s`` as needed."""
    from tests.ollama_stub import OllamaStub, running_stub

    with running_stub(OllamaStub(pulled=[OLLAMA_MODEL])) as stub:
        yield stub


@pytest.fixture
def ollama_settings(tmp_path, ollama_stub) -> Settings:
    return Settings(data_dir=tmp_path / "kb", llm_backend="ollama", ollama_host=ollama_stub.url, ollama_model=OLLAMA_MODEL)
