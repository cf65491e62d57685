"""A reader's numpy products on one BLAS thread.

Its products are matrix by vector: each row is read once, so memory bandwidth bounds
them, and OpenBLAS's threads go on spinning after a product, taking turns with ONNX
Runtime's question encoder and the numpy work after it on the same cores.

* Tier 2 (``mitra.store.dense``): two threads on 2 busy cores took 12-48 ms where one
  took 0.03 (2k paragraphs). At 100k paragraphs two threads search in 11.3 ms against
  16.3 on quiet cores, but in 18 against 16 beside one busy core, and in 24 against 19
  with two searches at once; gated on the load average they saved 4 ms of dense search
  and cost 3 ms of the question's embedding.
* Routing (``mitra.store.routing``): the product over 5,000 analyses' abstract vectors
  on OpenBLAS's threads doubled the next question's embedding (28 → 62 ms p50) and slowed
  the evidence search after it (31.6 → 47.1 ms for everything after the embedding),
  measured by ``benchmarks/routing_end_to_end.py`` on 2 idle cores.
"""

from __future__ import annotations

from contextlib import AbstractContextManager

from threadpoolctl import ThreadpoolController

_CONTROLLER = ThreadpoolController()


def one_blas_thread() -> AbstractContextManager:
    return _CONTROLLER.limit(limits=1, user_api="blas")
