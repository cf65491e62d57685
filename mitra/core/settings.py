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

from pydantic import BaseModel, Field, SecretStr, model_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
    YamlConfigSettingsSource,
)

from mitra.core.answer_settings import AnswerSettings, GroundingSettings


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


class StorageSettings(BaseModel):
    """Where the knowledge base lives, and how writers share it."""

    data_dir: Path = Field(Path(".mitra"), description="Chroma, BM25 indexes, catalog, manifest, adapted models")
    lock_timeout_s: float = Field(
        600.0, ge=0, description="how long a writer waits for another writer of the same data dir before giving up"
    )
    database_url: SecretStr | None = Field(
        None, description="PostgreSQL URL (postgresql://user:password@host/db) holding the shared state: catalog, "
        "users, access policy, audit trail, feedback, conversations; unset = SQLite and files in data_dir"
    )
    chroma_host: str | None = Field(None, description="Chroma server host; unset = embedded PersistentClient")
    chroma_port: int = Field(8000, description="Chroma server port (with chroma_host)")
    chroma_reopen_every: int = Field(
        8, ge=1, description="full-text collections a writer fills before it reopens its embedded Chroma client "
        "(which keeps every index it opened in memory until then: this bounds an indexing run's memory)"
    )
    reader_cache_analyses: int = Field(
        64, ge=1, description="analyses whose indexes (BM25, dense, Chroma handle) a reader keeps loaded, most "
        "recently used first: a long-running app's memory is bounded by this, not by how many analyses it served"
    )


class EmbedderSettings(BaseModel):
    """The dense encoder of both tiers (changing it requires re-indexing)."""

    embedder: Literal["sentence-transformers", "dpr"] = Field(
        "sentence-transformers", description="sentence-transformers (one encoder), or DPR (question + context encoders)"
    )
    embedder_model: str = Field(
        "all-MiniLM-L6-v2", description="a model name (a local path, the packaged copy, or the HF cache) or a path"
    )
    dpr_question_model: str = Field(
        "facebook/dpr-question_encoder-multiset-base", description="DPR: the paper's question encoder"
    )
    dpr_context_model: str = Field(
        "facebook/dpr-ctx_encoder-multiset-base", description="DPR: the passage encoder matching the question encoder"
    )
    dpr_shared_encoder: bool = Field(False, description="DPR: the paper's 'same encoder for both' questions and passages")
    embed_batch_size: int = Field(
        16, ge=1, description="passages embedded per batch while indexing (a batch's activations set the writer's "
        "peak memory: ~4.7 MB a passage; 16 runs as fast as 32 on CPU)"
    )
    dense_window_words: int = Field(
        60, ge=0, description="paragraphs longer than this many words also get a vector per run of sentences of "
        "at most this length (MiniLM was trained on texts of <=128 tokens); dense search scores a paragraph by "
        "the mean of its own and its best window's similarity. 0 disables (analyses indexed while it is 0 have none)"
    )
    dense_paragraph_vector: Literal["windows", "text"] = Field(
        "windows", description="a paragraph with sentence windows: its own vector is the length-weighted mean of "
        "its windows' (each token embedded once) or a second encoding of its text, cut at 256 tokens (~1.8x the "
        "encoder's time)"
    )
    embed_runtime: Literal["onnx", "torch"] = Field(
        "onnx", description="what runs the sentence-transformers encoder on passages and questions (CPU): ONNX "
        "Runtime (exported once into encoder_cache_dir, the same vectors; 2.2x torch's speed on passages, a "
        "question in 9 against 26 ms on 2 cores) or torch; DPR always runs on torch"
    )
    encoder_cache_dir: Path = Field(
        Path.home() / ".cache" / "mitra" / "onnx", description="encoder graphs exported for ONNX Runtime, one per "
        "model and weights, shared by every data dir (where it cannot be written, passages are embedded on torch)"
    )
    device: str = Field("cpu", description="torch device of the encoders and rerankers")
    embed_threads: int = Field(
        0, ge=0, description="threads a batch of passages is embedded with; 0 = on torch, measured per batch (1, "
        "half or all cores, the fastest kept: on cores shared with other work 1 thread was 1.5x faster than 2), "
        "on ONNX Runtime every core"
    )


class RetrievalSettings(BaseModel):
    """Tier 2, inside one analysis: dense + BM25 (+ section score, + feedback) fused, then reranked."""

    reranker: str = Field("cross-encoder/ms-marco-MiniLM-L-6-v2", description='cross-encoder name or path; "none" disables')
    rerank_top_n: int = Field(
        20, ge=1, description="fused candidates the cross-encoder reads (~55 ms each on 2 cores: 20 keeps it near 1 s)"
    )
    rerank_max_length: int = Field(256, description="tokens of question + passage the cross-encoder reads")
    dense_k: int = Field(50, ge=1, description="dense candidates per question")
    bm25_k: int = Field(50, ge=1, description="BM25 candidates per question")
    final_k: int = Field(8, ge=1, description="passages returned (and given to the answering model)")
    fusion: Literal["zscore", "convex", "rrf"] = Field(
        "zscore", description="zscore: weighted sum of scores in standard deviations above each list's lowest; "
        "convex: weighted mean of min-max normalised scores (Bruch et al. 2023); rrf: reciprocal ranks"
    )
    rrf_k: int = Field(60, ge=1, description="the k of reciprocal-rank fusion")
    fusion_depth: int = Field(
        20, ge=2, description="tier 2's z-score and min-max fusion take each list's statistics from its top "
        "fusion_depth scores only, so candidates deeper in a list never move the fused scores (20: long papers "
        "rank better than at 10, every set at least as well as BM25; README)"
    )
    fusion_guard: int = Field(
        0, ge=0, description="where dense's and BM25's best fusion_guard passages share none, keep BM25's order "
        "instead of the fused one; 0 always fuses"
    )
    weight_dense: float = Field(1.0, ge=0, description="fusion weight of the dense score")
    weight_bm25: float = Field(1.0, ge=0, description="fusion weight of the BM25 score")
    weight_section: float = Field(
        1.0, ge=0, description="weight of each candidate's section score (BM25 over whole top-level sections); 0 disables"
    )
    weight_coverage: float = Field(
        1.0, ge=0, description="weight of each candidate's share of the question's idf (the distinct question terms "
        "it holds); 0 disables"
    )
    weight_prf: float = Field(
        0.0, ge=0, description="weight of BM25 re-asked with the query expanded from the best first-pass passages; "
        "0 disables (the default: on long papers feedback terms from wrong first passages cost more than it gave)"
    )
    weight_context: float = Field(
        0.5, ge=0, description="weight of the best fused score among each candidate's neighbouring paragraphs; 0 disables"
    )
    prf_docs: int = Field(5, ge=1, description="pseudo-relevance feedback: first-pass passages the expansion terms come from")
    prf_terms: int = Field(10, ge=1, description="pseudo-relevance feedback: terms added to the query")
    retrieval_system: Literal["auto", System] = Field(
        "auto", description="auto: the adapted reranker where enabled, else the cross-encoder where loaded, else hybrid"
    )
    include_superseded: bool = Field(False, description="search superseded document versions too")


class AdaptSettings(BaseModel):
    """The reranker `mitra adapt` trains on the knowledge base's own text."""

    use_adapted: bool = Field(True, description="use the adapted reranker `mitra adapt` switched on, if any")
    adapt_base_model: str = Field(
        "all-MiniLM-L6-v2", description="the packaged encoder the adapted reranker is fine-tuned from"
    )
    adapt_max_length: int = Field(256, description="tokens of a passage the adapted encoder reads")
    adapt_batch_size: int = Field(16, description="questions per training step (each with its passage and a negative)")
    adapt_learning_rate: float = Field(2e-5, description="training learning rate (constant after warm-up)")


class RoutingSettings(BaseModel):
    """Tier 1: which analysis a first question is about (the abstracts)."""

    route_top_n: int = Field(3, ge=1, description="candidate analyses shown to the user to confirm")
    route_k: int = Field(50, ge=1, description="dense and BM25 candidates per question")
    route_fusion_depth: int = Field(
        10, ge=2, description="fusion_depth for routing: each routing list's statistics come from its top "
        "route_fusion_depth scores (routing's own, so tier 2's choice never moves routing)"
    )
    route_weight_dense: float = Field(0.5, ge=0, description="fusion weight of the dense score (MiniLM on abstracts "
                                      "routes below keywords on text nobody tuned on)")
    route_weight_bm25: float = Field(1.0, ge=0, description="fusion weight of the BM25 score")
    route_weight_evidence: float = Field(
        3.0, ge=0, description="fusion weight of each analysis's best full-text evidence (BM25 over every "
        "analysis's sections or passages, see route_evidence_unit); 0 routes by the abstracts alone"
    )
    route_evidence_unit: Literal["section", "passage"] = Field(
        "section", description="what the evidence index scores: top-level sections or passages (writers rebuild "
        "it at the end of a run when this changes)"
    )
    route_evidence_depth: int = Field(
        200, ge=1, description="best evidence units read before taking each analysis's best"
    )
    across_k: int = Field(3, ge=1, description="`mitra ask --across`: the most routed analyses one answer draws on")
    across_score_share: float = Field(
        0.4, ge=0, le=1, description="`mitra ask --across`: a routed analysis joins only when its fused routing score "
        "is at least this share of the first one's (Rivet routing set: where the right analysis routes 2nd or 3rd, "
        "0.4 keeps it 97 % of the time, 0.5 86 %, 0.3 99 % with more passages spent on the others)"
    )
    across_value_candidates: int = Field(
        4, ge=1, description="`mitra ask --across`: candidate values each analysis's model choice reads, at most the "
        "locked question's `value_candidates` (each choice's prompt is read before its line shows, ~20 ms a token "
        "for the demo model on 2 cores)"
    )


class ChunkingSettings(BaseModel):
    """Text -> paragraphs -> chunks, and what intake refuses."""

    chunk_min_chars: int = Field(200, ge=1, description="shorter paragraphs join their neighbour in the same section")
    chunk_max_chars: int = Field(1200, description="longer paragraphs are split at sentence ends")
    max_document_mb: float = Field(
        50.0, gt=0, description="a larger document (its text, or its PDF file) is refused with an error naming it"
    )
    min_coverage: float = Field(
        0.9,
        description="the coverage floor: a document whose chunks hold less than this share of its words (text "
        "dropped on purpose, such as references, not counted) is flagged to the admin or refused (low_coverage)",
    )
    low_coverage: Literal["flag", "refuse"] = Field(
        "flag", description="a document below min_coverage: flag = indexed with what it has and named on a "
        "'flagged:' line of the intake summary and in `mitra stats --json` (with its coverage by kind of block); "
        "refuse = its analysis (JSONL) or file is not indexed (--refuse-low-coverage; --allow-low-coverage indexes it)"
    )


class IngestSettings(BaseModel):
    """Crawling the document portal and reading its files (ingest/)."""

    ocr_backend: Literal["auto", "tesseract", "surya"] = Field(
        "auto", description="auto: Surya where its weights are installed, else Tesseract"
    )
    ocr_dpi: int = Field(300, description="pages are rendered at this resolution for OCR")
    max_inflated_mb: float = Field(
        256.0, gt=0, description="the most a file may inflate to before a reader parses it: a .docx's or .pptx's ZIP "
        "members together, or one stream of a PDF (read a page at a time); more is refused as a decompression bomb"
    )
    max_inflation_ratio: float = Field(
        100.0, gt=1, description="a ZIP member inflating past 1 MB may grow at most this many times (Apache POI's "
        "bound); a PDF's streams together at most this many times the file (or max_inflated_mb, if larger)"
    )
    max_image_pixels: int = Field(
        89_478_485, gt=0, description="a PDF image declaring more pixels is refused; a page that would render larger "
        "for OCR is rendered at a lower resolution (the default is Pillow's MAX_IMAGE_PIXELS)"
    )
    max_pdf_pages: int = Field(5000, gt=0, description="a PDF with more pages is refused")
    ocr_language: str = Field("eng", description="Tesseract language")
    ocr_physics_fixes: bool = Field(
        True, description="undo Tesseract's misreadings of physics notation ('+ 2.4 (stat)' -> '± 2.4', 'fb-!' -> fb^-1)"
    )
    crawl_timeout_s: float = Field(30.0, description="a portal page or download that takes longer is retried")
    crawl_retries: int = Field(3, description="attempts per page or file")
    crawl_delay_s: float = Field(0.5, description="pause between requests (be kind to the portal)")
    crawl_backoff_s: float = Field(1.0, description="first retry waits this long, then doubles")
    crawl_volatile_params: str = Field(
        r"(?i)^(jsessionid|phpsessid|sessionid|sid|utm_\w+|_|nocache)$", description="regex: URL query parameters "
        "that do not name a document (sessions, tracking, cache busting); left out of its identity, which is its "
        "path and other parameters under the portal's base URL, never the portal's host, port or scheme"
    )
    chromium_binary: Path = Field(Path("/usr/bin/chromium"), description="Debian's chromium: no browser download")
    chromedriver_binary: Path = Field(Path("/usr/bin/chromedriver"), description="Debian's chromium-driver")
    ray_address: str | None = Field(
        None, description="run extraction, OCR and embedding of `mitra ingest pdf`/`run` as Ray Data stages on this "
        "Ray cluster (an address for ray.init: auto, host:6379, ray://host:10001; local starts one on this machine); "
        "the ingesting process stays the one writer. Unset = in this process"
    )
    ray_workers: int = Field(
        0, ge=0, description="Ray: extraction tasks and embedding actors at once (each actor loads the encoder); "
        "0 = a task per CPU of the cluster and an actor per GPU, or per CPU where it has none"
    )


class AccessSettings(BaseModel):
    """Who may use MITRA and read which analysis, and the audit trail (mitra.access, mitra.audit)."""

    auth: Literal["auto", "oidc", "local", "none"] = Field(
        "auto", description="auto: OIDC where .streamlit/secrets.toml has an [auth] section, else the local users "
        "file where it exists; none: no login at all (must be set explicitly: the app refuses to start open otherwise)"
    )
    users_file: Path | None = Field(None, description="local users and their password hashes; unset = <data_dir>/users.yaml")
    access_policy: Path | None = Field(
        None, description="YAML mapping analyses (ids or glob patterns) to the groups that may read them; unset = "
        "<data_dir>/access.yaml where it exists, else every signed-in member reads every analysis"
    )
    groups_claim: str = Field("groups", description="the OIDC ID-token claim that lists a user's groups")
    principal: str | None = Field(
        None, description="the local user the CLI acts as when --as is not given; unset = the operator, who reads everything"
    )
    audit_file: Path | None = Field(None, description="the audit trail (JSON lines); unset = <data_dir>/audit/audit.jsonl")
    audit_max_bytes: int = Field(10_000_000, ge=1024, description="the audit file rotates at this size")
    audit_backups: int = Field(10, ge=1, description="rotated audit files kept")
    session_hours: float = Field(
        12.0, ge=0, description="how long a member stays signed in across browser refreshes (a signed, expiring "
        "cookie, revoked at sign-out; with OIDC, a sign-in older than this is asked again); 0 = sign in on every load"
    )
    session_secret: SecretStr | None = Field(
        None, description="the key that signs session cookies; unset = <data_dir>/session.key, made on first use "
        "(set the same one on every replica of the cluster form, or members sign in again on each)"
    )


class McpSettings(BaseModel):
    """``mitra mcp``: the MCP server's limits and the OIDC provider whose bearer tokens it accepts (mitra.mcp)."""

    mcp_max_k: int = Field(20, ge=1, description="the most passages one MCP search may ask for")
    mcp_max_question_chars: int = Field(2000, ge=10, description="the longest question or query an MCP call may send")
    mcp_calls_per_minute: int = Field(60, ge=1, description="MCP calls one token (or stdio member) may make per "
                                      "minute, per server process")
    mcp_oidc_metadata_url: str | None = Field(
        None, description="the OIDC provider's discovery URL whose bearer tokens MCP accepts; unset = the app's "
        "(server_metadata_url of .streamlit/secrets.toml's [auth] section), else none"
    )
    mcp_oidc_audience: str | None = Field(
        None, description="the audience an OIDC JWT must name; unset = the app's client_id (the same [auth] section)"
    )


SECTIONS: dict[str, type[BaseModel]] = {
    "storage": StorageSettings, "embedder": EmbedderSettings, "retrieval": RetrievalSettings,
    "adapt": AdaptSettings, "routing": RoutingSettings, "chunking": ChunkingSettings,
    "answer": AnswerSettings, "grounding": GroundingSettings, "ingest": IngestSettings, "access": AccessSettings,
    "mcp": McpSettings,
}

# Named starting points (``Settings.from_name``, or MITRA_PRESET); MITRA_* variables and
# keyword arguments still win over them.
PRESETS: dict[str, dict[str, object]] = {
    "default": {},
    # The offline demo: the embedded llama.cpp server, five passages (reading the prompt
    # is what a 2-core machine waits for).
    "demo": {"llm_backend": "embedded", "final_k": 5},
    # The paper's setup, on a machine that has its models.
    "paper": {"embedder": "dpr", "reranker": "cross-encoder/ms-marco-MiniLM-L-6-v2", "llm_backend": "ollama",
              "ollama_model": "mistral:7b-instruct-q4_K_M", "retrieval_system": "rerank"},
}


class Settings(
    StorageSettings, EmbedderSettings, RetrievalSettings, AdaptSettings, RoutingSettings, ChunkingSettings,
    AnswerSettings, GroundingSettings, IngestSettings, AccessSettings, McpSettings, BaseSettings,
):
    """Every setting, flat (``MITRA_<FIELD>``), grouped into the sections above; each field
    is described (``mitra settings`` prints them). ``Settings.from_name("demo")`` starts from
    a preset."""

    model_config = SettingsConfigDict(
        env_prefix="MITRA_", env_file=".env", extra="ignore", validate_default=True
    )

    @classmethod
    def from_name(cls, name: str, **overrides) -> "Settings":
        """The preset ``name`` (see ``PRESETS``); MITRA_* variables and ``overrides`` win over it."""
        if name not in PRESETS:
            raise ValueError(f"unknown preset '{name}': choose one of {', '.join(PRESETS)}")
        preset = {k: v for k, v in PRESETS[name].items() if f"MITRA_{k.upper()}" not in os.environ}
        return cls(**{**preset, **overrides})

    @classmethod
    def described(cls) -> dict[str, list[tuple[str, object, str]]]:
        """Per section: (field, default, description)."""
        return {name: [(f, cls.model_fields[f].default, cls.model_fields[f].description or "")
                       for f in section.model_fields] for name, section in SECTIONS.items()}

    @model_validator(mode="after")
    def _check(self) -> "Settings":
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
    def conversations_path(self) -> Path:
        return self.data_dir / "conversations.sqlite"

    @property
    def tokens_path(self) -> Path:
        return self.data_dir / "tokens.sqlite"

    @property
    def models_dir(self) -> Path:
        return self.data_dir / "models"

    @property
    def downloads_dir(self) -> Path:
        return self.data_dir / "downloads"

    @property
    def users_path(self) -> Path:
        return self.users_file or self.data_dir / "users.yaml"

    @property
    def policy_path(self) -> Path:
        return self.access_policy or self.data_dir / "access.yaml"

    @property
    def audit_path(self) -> Path:
        return self.audit_file or self.data_dir / "audit" / "audit.jsonl"


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings (tests build their own ``Settings`` instead); MITRA_PRESET
    names a preset to start from."""
    return Settings.from_name(os.environ.get("MITRA_PRESET", "default"))
