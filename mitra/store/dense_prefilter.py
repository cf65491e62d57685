"""A first pass over a large analysis's paragraph vectors in 8-bit integers, that never
loses one of the rows an exact search would keep.

At 100k paragraphs the exact float32 product reads 150 MB per question and is bound by
memory bandwidth (~13 ms on one core here). The same product over 8-bit copies reads a
quarter of that, in ONNX Runtime's integer kernel (~3.5 ms). Each row's score from the
8-bit copies is off from its exact score by at most a bound known per row (Cauchy-Schwarz
on the rounding errors of the row and of the question), so every row whose upper bound
reaches a floor the exact top ``depth`` cannot fall below is kept, and only those are
scored exactly: the exact top ``depth`` is always among them (``tests/unit/store/test_dense_prefilter.py``).

Weights are rounded to 7 bits (±63): on CPUs without VNNI, ONNX Runtime's u8×s8 kernel
adds pairs of products in 16 bits, which full 8-bit weights can overflow.
"""

from __future__ import annotations

import numpy as np

# Float32 rounding in the two products, far above its real size (~1e-6) and far below
# the bound itself (~0.02).
_SLACK = 1e-4
_WEIGHT_LEVELS = 63
_QUESTION_LEVELS = 127
_ZERO_POINT = 128
_BLOCK = 8192  # rows quantized at a time


def _session(weights: np.ndarray):
    """An ONNX Runtime session multiplying a uint8 row by ``weights`` (K × N, int8), held
    as an initializer so that the kernel packs it once."""
    import onnxruntime as ort
    from onnx import TensorProto, helper, numpy_helper

    graph = helper.make_graph(
        [helper.make_node("MatMulInteger", ["question", "weights", "zero"], ["scores"])],
        "prefilter",
        [helper.make_tensor_value_info("question", TensorProto.UINT8, [1, weights.shape[0]])],
        [helper.make_tensor_value_info("scores", TensorProto.INT32, [1, weights.shape[1]])],
        [numpy_helper.from_array(weights, "weights"), numpy_helper.from_array(np.array(_ZERO_POINT, np.uint8), "zero")],
    )
    options = ort.SessionOptions()
    # One thread, like the float32 product (see ``mitra.store.dense``), and no spinning:
    # a waiting thread would take the core the question's encoder needs next.
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    return ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])


class Int8Prefilter:
    """8-bit copies of ``vectors`` (rows), each row's scale and the bounds of its error."""

    def __init__(self, vectors: np.ndarray):
        rows = len(vectors)
        self.scale, self.error, self.norm = (np.empty(rows, np.float32) for _ in range(3))
        quantized = np.empty((vectors.shape[1], rows), np.int8)  # transposed: the kernel's K x N
        # A block at a time: whole, the float temporaries would reach ~3x the vectors
        # (450 MB at 100k paragraphs) on a reader's first search.
        for start in range(0, rows, _BLOCK):
            block = np.asarray(vectors[start : start + _BLOCK], np.float32)
            peak = np.abs(block).max(axis=1)
            scale = np.where(peak > 0, peak / _WEIGHT_LEVELS, 1.0).astype(np.float32)
            levels = np.rint(block / scale[:, None]).astype(np.int8)
            rounded = levels * scale[:, None]
            span = slice(start, start + len(block))
            self.scale[span] = scale
            self.error[span] = np.linalg.norm(block - rounded, axis=1)  # |row - its 8-bit copy|
            self.norm[span] = np.linalg.norm(rounded, axis=1)  # |its 8-bit copy|
            quantized[:, span] = levels.T
        self._session = _session(quantized)

    def shortlist(
        self, vectors: np.ndarray, query: np.ndarray, depth: int, admitted: np.ndarray | None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Rows of ``vectors`` (among ``admitted``, or all) that hold the ``depth`` most
        similar to the unit ``query`` by the exact product, and their exact similarities.

        The ``depth`` best rows by the 8-bit scores are scored exactly first; the least of
        those scores is a floor the exact top ``depth`` cannot fall below, so only rows
        whose upper bound reaches it are scored too (~2,000 more at 100k rows and depth
        1,000, against ~6,000 with the floor taken from the lower bounds)."""
        approx, bound = self.scores(query, admitted)
        first = np.argpartition(-approx, depth - 1)[:depth]
        rows = first if admitted is None else admitted[first]
        exact = vectors[rows] @ query
        more = approx + bound >= exact.min()
        more[first] = False
        others = np.flatnonzero(more)
        if admitted is not None:
            others = admitted[others]
        return np.concatenate([rows, others]), np.concatenate([exact, vectors[others] @ query])

    def scores(self, query: np.ndarray, admitted: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
        """Each row's score from the 8-bit copies and the bound of its distance from the exact one."""
        step = (float(np.abs(query).max()) or 1.0) / _QUESTION_LEVELS
        levels = np.rint(query / step)
        (products,) = self._session.run(None, {"question": (levels + _ZERO_POINT).astype(np.uint8)[None]})
        scale, error, norm = self.scale, self.error, self.norm
        products = products[0]
        if admitted is not None:
            products, scale, error, norm = products[admitted], scale[admitted], error[admitted], norm[admitted]
        approx = np.multiply(products, scale * np.float32(step), dtype=np.float32)
        # q.v - approx = q.(v - v8) + (q - q8).v8, each bounded by the norms' product.
        question_error = np.float32(np.linalg.norm(query - levels * step))
        bound = error * np.float32(np.linalg.norm(query)) + norm * question_error + np.float32(_SLACK)
        return approx, bound
