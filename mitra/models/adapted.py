"""The adapted reranker: a bi-encoder `mitra adapt` fine-tuned on the knowledge base's
own text, published under ``models_dir`` behind an atomic pointer with its manifest
(held-out scores, whether it is switched on), and loaded here for retrieval."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

import numpy as np
from pydantic import BaseModel

from mitra.core.settings import Settings
from mitra.models.embedders import ModelUnavailable, resolve_model_path

POINTER = "adapted.json"


class HeldoutScores(BaseModel):
    queries: int
    fusion_mrr: float
    adapted_mrr: float
    gain_ci95: tuple[float, float]  # 95 % bootstrap interval of adapted minus fusion
    weight: float | None  # the adapted score's weight against fusion; 0: fusion alone; None: adapted alone
    checkpoint: str


class AdaptManifest(BaseModel):
    model_dir: str
    base_model: str
    max_length: int
    created_at: str
    corpus: dict  # analyses, passages, snapshot hash
    pseudo_queries: dict[str, int]  # per kind, and train / held out
    llm: str  # which model wrote questions, or why none did
    steps: int
    heldout: HeldoutScores
    enabled: bool
    reason: str
    seconds: dict[str, float]

    def summary(self) -> str:
        h = self.heldout
        state = "on" if self.enabled else "off"
        return (f"adapted reranker {state}: held-out MRR@10 {h.adapted_mrr:.3f} vs fusion {h.fusion_mrr:.3f} "
                f"({h.queries} queries), trained {self.created_at[:16]} on {self.corpus['passages']} passages")


def base_encoder(settings: Settings, path: str | None = None):
    """The packaged base encoder (or a checkpoint of it) as a trainable SentenceTransformer."""
    from sentence_transformers import SentenceTransformer

    source = path or resolve_model_path(settings.adapt_base_model)
    try:
        model = SentenceTransformer(source, device=settings.device, local_files_only=True)
    except Exception as error:
        raise ModelUnavailable(f"the base model '{settings.adapt_base_model}' for adaptation is not on this machine "
                               f"({type(error).__name__}); set MITRA_ADAPT_BASE_MODEL to a local directory") from error
    model.max_seq_length = settings.adapt_max_length
    return model


def text_key(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()


def publish(settings: Settings, manifest: AdaptManifest) -> None:
    """Write the manifest beside its model, then switch the pointer to it atomically;
    the models it replaces are removed."""
    models = settings.models_dir
    (models / manifest.model_dir / "manifest.json").write_text(manifest.model_dump_json(indent=2))
    pointer = models / POINTER
    tmp = pointer.with_suffix(".tmp")
    tmp.write_text(json.dumps({"current": manifest.model_dir}))
    os.replace(tmp, pointer)
    for old in models.glob("adapted-*"):
        if old.name != manifest.model_dir:
            shutil.rmtree(old, ignore_errors=True)


def published_dir(settings: Settings) -> Path | None:
    """The data dir's published model (behind the pointer), or None where none was published."""
    pointer = settings.models_dir / POINTER
    return settings.models_dir / json.loads(pointer.read_text())["current"] if pointer.exists() else None


def current_manifest(directory: Path | None) -> AdaptManifest | None:
    """The manifest of the model published in ``directory`` (``mitra.store.index_files.
    published_model`` says where: the data dir's, or a cluster's shared copy)."""
    manifest = directory / "manifest.json" if directory is not None else None
    return AdaptManifest.model_validate_json(manifest.read_text()) if manifest and manifest.exists() else None


class AdaptedReranker:
    """The adapted encoder as a reranker: the question's similarity to each passage,
    mixed with the fused score at ``weight`` (validation's choice). Passage vectors are
    looked up by text (those of the adapted corpus come from disk); a passage indexed
    since is embedded once, then kept."""

    def __init__(self, model, vectors: dict[str, np.ndarray], weight: float | None, name: str):
        self.model, self.weight, self.name = model, weight, name
        self.vectors = vectors

    @classmethod
    def load(cls, settings: Settings, manifest: AdaptManifest, directory: Path) -> "AdaptedReranker":
        keys = json.loads((directory / "passages.json").read_text())
        vectors = dict(zip(keys, np.load(directory / "passages.npy")))
        return cls(base_encoder(settings, str(directory)), vectors, manifest.heldout.weight,
                   f"adapted:{manifest.model_dir}")

    def score(self, query: str, passages: list[str]) -> list[float]:
        if not passages:
            return []
        keys = [text_key(p) for p in passages]
        missing = [(k, p) for k, p in zip(keys, passages) if k not in self.vectors]
        if missing:
            new = self.model.encode([p for _, p in missing], normalize_embeddings=True, convert_to_numpy=True)
            self.vectors.update((k, v.astype(np.float16)) for (k, _), v in zip(missing, new))
        q = self.model.encode([query], normalize_embeddings=True, convert_to_numpy=True)[0]
        return [float(self.vectors[k].astype(np.float32) @ q) for k in keys]


def load_adapted(settings: Settings, directory: Path | None) -> tuple[AdaptedReranker | None, str]:
    """The adapted reranker published in ``directory`` when it is switched on (and
    ``use_adapted``), or None with the reason."""
    manifest = current_manifest(directory)
    if manifest is None:
        return None, "no adapted reranker (run `mitra adapt`)"
    if not manifest.enabled or not settings.use_adapted:
        return None, manifest.summary() + ("" if settings.use_adapted else "; use_adapted is off")
    return AdaptedReranker.load(settings, manifest, directory), manifest.summary()
