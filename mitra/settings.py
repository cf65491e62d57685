"""One settings object for the whole system.

Values come, highest priority first, from: keyword arguments, ``MITRA_*``
environment variables, a ``.env`` file, the TOML or YAML file named by
``MITRA_CONFIG`` (or ``mitra.toml`` / ``mitra.yaml`` in the working directory),
then the defaults below.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path
from typing import Literal, get_args

from pydantic import Field, model_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
    YamlConfigSettingsSource,
)


# The retrieval systems, cheapest first (mitra.retrieval implements them; the CLI's
# --system choices and the settings' names come from here).
System = Literal["bm25", "dense", "hybrid", "rerank", "adapted"]
SYSTEMS: tuple[str, ...] = get_args(System)


def _config_file() -> Path | None:
    named = os.environ.get("MITRA_CONFIG")
    if named:
        path = Path(named)
        if not path.is_file():
            raise FileNotFoundError(f"MITRA_CONFIG points to {path}, which does not exist")
        return path
    for candidate in ("mitra.toml", "mitra.yaml", "mitra.yml"):
        if Path(candidate).is_file():
            return Path(candidate)
    return None


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="MITRA_", env_file=".env", extra="ignore", validate_default=True
    )

    # --- storage -----------------------------------------------------------
    data_dir: Path = Field(Path(".mitra"), description="Chroma, BM25 indexes, catalog, manifest")
    lock_timeout_s: float = Field(
        600.0, ge=0, description="how long a writer waits for another writer of the same data dir before giving up"
    )
    chroma_host: str | None = Field(None, description="Chroma server host; unset = embedded PersistentClient")
    chroma_cached_indexes: int = Field(
        64, ge=8, description="embedded Chroma: vector indexes (about one per analysis) kept in memory at once"
    )
    chroma_port: int = 8000

    # --- embedder ----------------------------------------------------------
    embedder: Literal["sentence-transformers", "dpr"] = "sentence-transformers"
    # A model name (loaded from a local path, the packaged copy, or the HF cache) or a path.
    embedder_model: str = "all-MiniLM-L6-v2"
    # DPR: the paper's question encoder; passages use the matching context encoder
    # unless dpr_shared_encoder is set (the paper's "same encoder for both").
    dpr_question_model: str = "facebook/dpr-question_encoder-multiset-base"
    dpr_context_model: str = "facebook/dpr-ctx_encoder-multiset-base"
    dpr_shared_encoder: bool = False
    embed_batch_size: int = 32
    device: str = "cpu"

    # --- reranker ----------------------------------------------------------
    reranker: str = Field("cross-encoder/ms-marco-MiniLM-L-6-v2", description='"none" disables reranking')
    # A MiniLM cross-encoder costs ~55 ms a passage on 2 cores: 20 keeps rerank near 1 s.
    rerank_top_n: int = 20
    rerank_max_length: int = 256

    # --- tier 2 retrieval --------------------------------------------------
    dense_k: int = 50
    bm25_k: int = 50
    final_k: int = 8
    # Tier 2 fusion. "convex": weighted mean of min-max normalised dense and BM25
    # scores (Bruch et al. 2023); on the 31 LHCb expert questions it lifted MRR@10
    # over reciprocal-rank fusion in every chunking and BM25 setting tried
    # (0.58 vs 0.55 at 200-1200 chars, BM25 0.51).
    fusion: Literal["convex", "rrf"] = "convex"
    rrf_k: int = 60
    weight_dense: float = 1.0
    weight_bm25: float = 1.0
    weight_section: float = Field(
        1.0, description="weight of each candidate's section score (BM25 over whole top-level sections); 0 disables"
    )
    weight_prf: float = Field(
        1.0, description="weight of BM25 re-asked with the query expanded from the best first-pass passages; 0 disables"
    )
    prf_docs: int = Field(5, description="pseudo-relevance feedback: first-pass passages the expansion terms come from")
    prf_terms: int = Field(10, description="pseudo-relevance feedback: terms added to the query")
    retrieval_system: Literal["auto", System] = Field(
        "auto", description="auto: the adapted reranker where enabled, else the cross-encoder where loaded, else hybrid"
    )
    include_superseded: bool = False

    # --- the adapted reranker (mitra adapt) ------------------------------------
    use_adapted: bool = Field(True, description="use the adapted reranker `mitra adapt` switched on, if any")
    adapt_base_model: str = Field(
        "all-MiniLM-L6-v2", description="the packaged encoder the adapted reranker is fine-tuned from"
    )
    adapt_max_length: int = Field(256, description="tokens of a passage the adapted encoder reads")
    adapt_batch_size: int = Field(16, description="questions per training step (each with its passage and a negative)")
    adapt_learning_rate: float = Field(2e-5, description="training learning rate (constant after warm-up)")

    # --- tier 1 routing ----------------------------------------------------
    route_top_n: int = 3
    route_k: int = 50
    route_weight_dense: float = 1.0
    route_weight_bm25: float = 1.0

    # --- chunking ----------------------------------------------------------
    chunk_min_chars: int = 200
    chunk_max_chars: int = 1200
    max_document_mb: float = Field(
        50.0, gt=0, description="a larger document (its text, or its PDF file) is refused with an error naming it"
    )
    min_coverage: float = Field(
        0.9,
        description="a document whose chunks hold less than this share of its words (sections dropped on purpose, "
        "such as references, not counted) is refused unless --allow-low-coverage",
    )

    # --- answerer (mitra/llm.py, mitra/answer.py) ---------------------------
    llm_backend: Literal["auto", "ollama", "openai", "embedded"] = "auto"
    ollama_host: str = Field(
        default_factory=lambda: os.environ.get("OLLAMA_HOST", "http://127.0.0.1:11434"),
        description="defaults to $OLLAMA_HOST like the ollama CLI",
    )
    ollama_model: str = "mistral:7b-instruct-q4_K_M"
    openai_base_url: str | None = None
    openai_model: str = "default"
    openai_api_key: str = "not-needed"
    # Embedded llama.cpp server: a GGUF path, or empty for the packaged model.
    gguf_path: Path | None = None
    llm_context_tokens: int = 4096
    llm_max_tokens: int = 512
    llm_temperature: float = 0.1
    llm_timeout_s: float = 120.0
    llm_probe_timeout_s: float = 3.0  # is a server there? (auto backend, Ollama model check)
    # Passages below the floor are not trusted; with none above it the LLM is not called.
    # It compares the cross-encoder logit when a reranker ran, else the dense cosine
    # (RRF and BM25 scores have no absolute scale), so there is one floor per scale.
    relevance_floor: float | None = None
    relevance_floor_dense: float | None = None
    # Conservative token estimate for the context budget: on the demo corpus SmolLM2's
    # tokenizer gives 3.65 characters a token (worst document 3.17), Qwen2.5's 3.89 (3.46).
    llm_chars_per_token: float = 3.0
    llm_history_turns: int = 3  # earlier exchanges shown to the answering model
    llm_threads: int | None = None  # embedded llama.cpp server; None = all cores
    # The eval-answers judge: unset = the answering backend; its model is the backend's
    # model name (Ollama / OpenAI-compatible) or a GGUF path (embedded).
    judge_backend: Literal["auto", "ollama", "openai", "embedded"] | None = None
    judge_model: str | None = None
    judge_base_url: str | None = None  # its Ollama host or OpenAI-compatible URL, if not the answerer's

    # --- ingestion (ingest/) --------------------------------------------------
    ocr_backend: Literal["auto", "tesseract", "surya"] = "auto"
    ocr_dpi: int = 300
    ocr_language: str = "eng"
    crawl_timeout_s: float = 30.0
    crawl_retries: int = 3
    crawl_delay_s: float = 0.5
    crawl_backoff_s: float = Field(1.0, description="first retry waits this long, then doubles")
    # Debian's chromium and chromium-driver: no driver download at run time.
    chromium_binary: Path = Path("/usr/bin/chromium")
    chromedriver_binary: Path = Path("/usr/bin/chromedriver")

    @model_validator(mode="after")
    def _check(self) -> "Settings":
        for name in ("dense_k", "bm25_k", "final_k", "route_top_n", "route_k", "rrf_k"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1")
        if min(self.weight_dense, self.weight_bm25, self.weight_section, self.weight_prf) < 0:
            raise ValueError("fusion weights must be >= 0")
        if self.weight_dense + self.weight_bm25 == 0:
            raise ValueError("weight_dense and weight_bm25 must not both be 0")
        if self.chunk_min_chars >= self.chunk_max_chars:
            raise ValueError("chunk_min_chars must be smaller than chunk_max_chars")
        return self

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        sources: list[PydanticBaseSettingsSource] = [init_settings, env_settings, dotenv_settings]
        path = _config_file()
        if path is not None:
            if path.suffix == ".toml":
                sources.append(TomlConfigSettingsSource(settings_cls, toml_file=path))
            else:
                sources.append(YamlConfigSettingsSource(settings_cls, yaml_file=path))
        return tuple(sources)

    @property
    def chroma_dir(self) -> Path:
        return self.data_dir / "chroma"

    @property
    def bm25_dir(self) -> Path:
        return self.data_dir / "bm25"

    @property
    def catalog_path(self) -> Path:
        return self.data_dir / "catalog.sqlite"

    @property
    def manifest_path(self) -> Path:
        return self.data_dir / "manifest.sqlite"

    @property
    def feedback_path(self) -> Path:
        return self.data_dir / "feedback.sqlite"

    @property
    def models_dir(self) -> Path:
        return self.data_dir / "models"

    @property
    def downloads_dir(self) -> Path:
        return self.data_dir / "downloads"


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings (tests build their own ``Settings`` instead)."""
    return Settings()
