"""A sentence-transformers model's transformer run by ONNX Runtime, for writers.

Why: on this project's 2 cores torch runs MiniLM's small matrices poorly in parallel.
500 LHCb paragraphs and windows took 48 s with torch on 2 threads and 41 s on 1, and
22 s with ONNX Runtime on 2, for the same vectors (cosine to torch's ≥ 0.9999998). One
session on every core (``embed_threads`` fixes the count): a session's threads are
fixed, and a second one for a single thread, as torch's choice per batch, would keep
another copy of the weights resident for ~10 % on cores other work shares.
Only the transformer's forward pass moves: tokenizing, truncation, pooling and
normalising stay sentence-transformers' own (``preprocess`` and the modules after the
transformer), so indexing, queries and ``mitra adapt`` share one implementation of them.

The graph is exported once from the local weights (``torch.onnx``) into
``encoder_cache_dir`` (one per model and weights, shared by every data dir) under a name that changes with the weights, checked against
torch on sample texts, and reused by every later run. A graph that does not give
torch's vectors is refused (``OnnxUnavailable``) and the caller stays on torch.
"""

from __future__ import annotations

import hashlib
import os
import warnings
from pathlib import Path

import numpy as np

from mitra.core.errors import MitraError

_OPSET = 17
# Texts of different lengths, so the export traces padding and the check compares it.
_SAMPLES = [
    "Systematic uncertainties\nThe dominant systematic uncertainty comes from the tracking efficiency.",
    "B meson",
    "The branching fraction is measured to be (1.23 +- 0.04) x 10^-5, where the first uncertainty is statistical.",
]
_MIN_COSINE = 0.9999


class OnnxUnavailable(MitraError):
    """The model cannot run on ONNX Runtime here (export failed, or its vectors differ)."""


def _weights_key(model_dir: Path) -> str:
    """Changes with the weights and config: their names, sizes and modification times."""
    files = sorted(p for p in model_dir.rglob("*") if p.is_file() and p.suffix in {".safetensors", ".bin", ".json"})
    stamp = "|".join(f"{p.relative_to(model_dir)}:{p.stat().st_size}:{p.stat().st_mtime_ns}" for p in files)
    return hashlib.sha256(f"{model_dir.resolve()}|{stamp}|opset{_OPSET}".encode()).hexdigest()[:16]


class OnnxTransformer:
    """``encode(texts)``: the unit vectors ``model.encode(texts, normalize_embeddings=True)``
    gives, with the transformer on ONNX Runtime."""

    def __init__(self, model, model_dir: Path, cache_dir: Path, threads: int = 0):
        import onnxruntime

        transformer = model[0]
        if type(transformer).__name__ != "Transformer" or not hasattr(transformer, "auto_model"):
            raise OnnxUnavailable(f"{type(transformer).__name__} is not a transformer sentence-transformers exports")
        self.model = model
        self.inputs = [name for name, value in model.preprocess(_SAMPLES[:1]).items() if hasattr(value, "shape")]
        path = cache_dir / f"{model_dir.name}-{_weights_key(model_dir)}.onnx"
        if not path.is_file():
            self._export(transformer.auto_model, path)
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads or os.cpu_count() or 1
        options.inter_op_num_threads = 1
        options.enable_mem_pattern = False  # shapes change with every batch
        # The arena keeps the largest batch's activations otherwise (1,212 against 838 MB
        # peak on 10 papers with torch); without an arena each op mallocs and unmaps its
        # activations (18 % more CPU). Shrunk after each batch, it serves one batch's ops.
        self._shrink = onnxruntime.RunOptions()
        self._shrink.add_run_config_entry("memory.enable_memory_arena_shrinkage", "cpu:0")
        reference = model.encode(_SAMPLES, normalize_embeddings=True, convert_to_numpy=True)
        try:
            self.session = onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
            cosine = float(np.min(np.sum(self.encode(_SAMPLES) * reference, axis=1)))
        except Exception as error:  # onnxruntime's own exceptions: a graph it cannot load or run
            raise OnnxUnavailable(f"ONNX Runtime cannot run {path} ({type(error).__name__}: {error})") from error
        if cosine < _MIN_COSINE:
            raise OnnxUnavailable(f"its ONNX graph gives other vectors than torch (cosine {cosine:.5f})")

    def _export(self, auto_model, path: Path) -> None:
        import torch

        class Forward(torch.nn.Module):  # positional inputs, the hidden states out
            def __init__(self, inner, names: list[str]):
                super().__init__()
                self.inner, self.names = inner, names

            def forward(self, *tensors):
                return self.inner(**dict(zip(self.names, tensors))).last_hidden_state

        features = self.model.preprocess(_SAMPLES[:2])
        sample = tuple(features[name] for name in self.inputs)
        axes = {name: {0: "batch", 1: "tokens"} for name in [*self.inputs, "hidden"]}
        attention = auto_model.config._attn_implementation
        auto_model.set_attn_implementation("eager")  # SDPA's traced mask logic ignored padding
        partial = path.with_suffix(f".{os.getpid()}.partial")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            # The tracer's warnings are about graph shapes the check below verifies.
            with torch.inference_mode(), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                torch.onnx.export(Forward(auto_model, self.inputs).eval(), sample, str(partial), dynamo=False,
                                  input_names=self.inputs, output_names=["hidden"], dynamic_axes=axes,
                                  opset_version=_OPSET)
            partial.replace(path)  # whole or absent: a run killed mid-export leaves no graph
        except Exception as error:  # torch.onnx raises many kinds; all mean "not on ONNX"
            raise OnnxUnavailable(f"exporting to ONNX failed ({type(error).__name__}: {error})") from error
        finally:
            partial.unlink(missing_ok=True)
            auto_model.set_attn_implementation(attention)

    def encode(self, texts: list[str]) -> np.ndarray:
        import torch

        features = self.model.preprocess(texts)
        inputs = {name: features[name].numpy() for name in self.inputs}
        hidden = self.session.run(None, inputs, self._shrink)[0]
        features["token_embeddings"] = torch.from_numpy(hidden)
        with torch.inference_mode():
            for module in list(self.model)[1:]:  # pooling, normalising: sentence-transformers' own
                features = module(features)
        vectors = features["sentence_embedding"].numpy().astype(np.float32)
        return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)  # as normalize_embeddings
