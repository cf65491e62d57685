"""What a burst of MCP calls shares for a few seconds: a member's groups and the pipeline
scoped to them. Reading the users file and the access policy, and scoping a pipeline, on
every call cost 5 ms of a 4 ms search (benchmarks/mcp_latency.py); the app itself keeps a
member's groups for the whole session. A token's revocation is never cached."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

KEPT_S = 30.0  # how long a change of groups or of the access policy may take to reach a running server
_MOST = 1024  # entries kept at most: a flood of distinct callers cannot grow it without bound

V = TypeVar("V")


class Recent(Generic[V]):
    def __init__(self, kept_s: float = KEPT_S):
        self.kept_s = kept_s
        self._kept: dict[Hashable, tuple[float, V]] = {}
        self._lock = threading.Lock()

    def get(self, key: Hashable, make: Callable[[], V]) -> V:
        now = time.monotonic()
        with self._lock:
            hit = self._kept.get(key)
            if hit is not None and now - hit[0] < self.kept_s:
                return hit[1]
        value = make()
        with self._lock:
            if len(self._kept) >= _MOST:
                self._kept = {k: v for k, v in self._kept.items() if now - v[0] < self.kept_s}
                if len(self._kept) >= _MOST:
                    self._kept.clear()
            self._kept[key] = (now, value)
        return value
