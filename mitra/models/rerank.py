"""Cross-encoder reranking (sentence-transformers ``CrossEncoder``)."""

from __future__ import annotations

import logging
from typing import Protocol

from mitra.models.embedders import ModelUnavailable, resolve_model_path
from mitra.core.settings import Settings

log = logging.getLogger(__name__)


class Reranker(Protocol):
    """Scores passages for a question, higher is better (the last retrieval stage)."""

    name: str

    def score(self, query: str, passages: list[str]) -> list[float]: ...


class CrossEncoderReranker:
    def __init__(self, model: str, max_length: int = 256, device: str = "cpu"):
        from sentence_transformers import CrossEncoder

        try:
            self.model = CrossEncoder(
                resolve_model_path(model), max_length=max_length, device=device, local_files_only=True
            )
        except Exception as error:
            raise ModelUnavailable(
                f"Reranker '{model}' is not available on this machine ({type(error).__name__}). "
                f"Copy it into the Hugging Face cache (`huggingface-cli download {model}` on a "
                "connected machine) or set MITRA_RERANKER to a local directory; "
                'MITRA_RERANKER=none disables reranking.'
            ) from error
        self.name = model

    def score(self, query: str, passages: list[str]) -> list[float]:
        if not passages:
            return []
        return [float(s) for s in self.model.predict([(query, p) for p in passages], show_progress_bar=False)]


def load_reranker(settings: Settings) -> tuple[CrossEncoderReranker | None, str]:
    """The configured reranker, or None with the reason; a missing model is
    reported once here and retrieval continues with the fused ranking."""
    if settings.reranker.lower() == "none":
        return None, "reranking disabled (reranker = none)"
    try:
        return CrossEncoderReranker(settings.reranker, settings.rerank_max_length, settings.device), f"reranker: {settings.reranker}"
    except ModelUnavailable as error:
        log.warning("%s Continuing with the fused (dense + BM25) ranking.", error)
        return None, f"reranker unavailable, using fused ranking: {error}"
