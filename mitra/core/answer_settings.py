"""The sections of ``Settings`` that say how a question is answered: the model and its
prompt (``AnswerSettings``) and what keeps an answer to its passages (``GroundingSettings``).
``mitra.core.settings`` composes them with the other sections; import ``Settings`` from there."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field


class AnswerSettings(BaseModel):
    """The answering model and how it is prompted (mitra.models.llm, mitra.answer)."""

    llm_backend: Literal["auto", "ollama", "openai", "embedded"] = Field(
        "auto", description="auto: Ollama if reachable with the model pulled, else the embedded llama.cpp server"
    )
    ollama_host: str = Field(
        default_factory=lambda: os.environ.get("OLLAMA_HOST", "http://127.0.0.1:11434"),
        description="defaults to $OLLAMA_HOST like the ollama CLI",
    )
    ollama_model: str = Field("mistral:7b-instruct-q4_K_M", description="the Ollama model (the paper's 4-bit Mistral-7B)")
    openai_base_url: str | None = Field(None, description="an OpenAI-compatible server (vLLM, llama.cpp) for `openai`")
    openai_model: str = Field("default", description="the model name that server expects")
    openai_api_key: str = Field("not-needed", description="its API key, if it wants one")
    gguf_path: Path | None = Field(None, description="embedded llama.cpp server: a GGUF path; unset = the packaged model")
    llm_context_tokens: int = Field(4096, description="the model's context window the prompt must fit in")
    llm_max_tokens: int = Field(512, description="longest answer")
    llm_temperature: float = Field(0.1, description="sampling temperature")
    llm_timeout_s: float = Field(120.0, description="an answer that takes longer is an error")
    llm_probe_timeout_s: float = Field(3.0, description="is a server there? (auto backend, Ollama model check)")
    relevance_floor: float | None = Field(
        None, description="cross-encoder logit below which a passage is not trusted; with none above it, no LLM call"
    )
    relevance_floor_dense: float | None = Field(
        None, description="the same floor on the dense cosine, when no reranker ran (fused scores have no scale)"
    )
    llm_chars_per_token: float = Field(
        3.0, description="conservative characters per token for the context budget (SmolLM2 3.65, Qwen2.5 3.89 measured)"
    )
    llm_history_turns: int = Field(3, description="earlier exchanges shown to the answering model")
    context_sentences: bool = Field(
        True, description="the model reads the sentences of each passage that bear on the question (with their "
        "neighbours, '…' where some are left out) under context_tokens; off: whole passages, as before"
    )
    context_tokens: int = Field(
        450, ge=50, description="token budget of the passages' sentences in the answer prompt (estimated with "
        "llm_chars_per_token); the model reads the prompt before its first word, ~55 tokens/s on 2 cores"
    )
    context_headings: bool = Field(
        True, description="passages reach the model under a '## document vN · section path' line per section; off: "
        "each passage with its own place only (the ablation in the README)"
    )
    quote_first: bool = Field(True, description="value_choice off: the value's sentence is quoted before the prose")
    value_choice: bool = Field(True, description="a value question: the model chooses among the values ranked in "
                               "code (constrained output); the answer states it as its passage does. off: prose")
    value_passages: int = Field(20, ge=1, description="fused passages a value question's candidates come from")
    value_candidates: int = Field(
        4, ge=1, description="candidate values the model chooses among (4 against 6: as many chosen right on three "
        "frozen sets, more of the sure choices right, the choice 1.8 s sooner on 2 cores; docs/benchmarks.md)")
    value_margin: float = Field(2.5, ge=0, description="lead over the next value to show the first before any model")
    value_confidence: float = Field(
        0.7, ge=0, le=1, description="the copied value's probability under the schema to state it as the answer")
    value_prior: float | None = Field(
        None, ge=0, description="weight of the code's ranking score beside the model's log-probability of each value in "
        "the choice (0: the value the model copies); unset: measured per packaged model, else 0.5 (docs/benchmarks.md)")
    value_lead: float = Field(
        0.25, ge=0, le=1, description="a choice the model is not sure of still leads the warned list of likeliest "
        "values at this probability (above the uniform share of the values offered); below it the code's first leads")
    value_alternatives: int = Field(2, ge=1, description="values listed beside the likeliest when the model is not sure")
    multipart: bool = Field(True, description="a question asking several things is split by the model, each part "
                            "retrieved on its own and answered in turn; off: answered as one question")
    multipart_max_parts: int = Field(4, ge=2, description="parts a question is split into at most (the rest join the last)")
    llm_threads: int | None = Field(None, description="embedded llama.cpp server threads; unset = all cores")
    judge_backend: Literal["auto", "ollama", "openai", "embedded"] | None = Field(
        None, description="eval-answers' judge; unset = the answering backend"
    )
    judge_model: str | None = Field(None, description="the judge's model name (Ollama / OpenAI) or GGUF path (embedded)")
    judge_base_url: str | None = Field(None, description="the judge's Ollama host or OpenAI-compatible URL, if not the answerer's")


class GroundingSettings(BaseModel):
    """What keeps an answer to the locked analysis's passages (mitra.answer.grounding)."""

    min_question_coverage: float | None = Field(
        0.5, ge=0, le=1, description="abstain without calling the model when less than this share of the question's "
        "content words occurs anywhere in the locked analysis (off-topic questions); unset = never"
    )
    switch_margin: float | None = Field(
        0.25, ge=0, description="offer to switch when another analysis routes first and the locked one scores at "
        "least this much lower (fused routing score, 0-1) or is not among the routed; unset = never"
    )
    support_min_overlap: float = Field(
        0.6, ge=0, le=1, description="a cited sentence is supported when this share of its content words, and every "
        "number in it, occur in the passages it cites"
    )
    support_min_rerank: float | None = Field(
        0.0, description="where a cross-encoder is loaded, a cited sentence short of support_min_overlap is still "
        "supported when the cross-encoder scores it against its passages at least this (an ms-marco logit; numbers "
        "must match regardless); unset = words only"
    )
    withhold_unsupported: bool = Field(
        True, description="when no cited sentence of an answer is supported, show the passages instead of the answer"
    )
