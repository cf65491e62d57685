"""How many threads torch embeds a batch of passages with, chosen by measuring.

On cores other work shares (an ingestion beside the app, other jobs), torch's default of
one thread per core is slower than fewer: a thread waiting at a barrier for a sibling the
scheduler took away spins. On this project's 2 shared cores (load average 7), 64 passages
took 6.0 s with 2 threads and 4.0 s with 1. A writer's run of batches therefore tries each
count on a batch, keeps the fastest per character embedded (batches come longest first, so
per passage would not compare), and tries the others again every ``_PROBE_EVERY`` batches,
as the other work comes and goes. ``embed_threads`` fixes the count instead.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager

_PROBE_EVERY = 25  # batches between two rounds of trying the other counts


class BatchThreads:
    """The thread count of each batch: ``fixed`` when given (> 0), else measured."""

    def __init__(self, fixed: int = 0, cores: int | None = None) -> None:
        cores = cores or os.cpu_count() or 1
        self.fixed = fixed
        self.counts = sorted({1, max(1, cores // 2), cores})
        self.speed: dict[int, float] = {}  # seconds per character of each count's last batch
        self.batches = 0

    def choose(self) -> int:
        if self.fixed > 0:
            return self.fixed
        round_at = self.batches % _PROBE_EVERY
        if round_at < len(self.counts):
            return self.counts[round_at]  # a round of trying each count
        return min(self.speed, key=self.speed.get)

    def record(self, count: int, seconds: float, characters: int) -> None:
        self.speed[count] = seconds / max(characters, 1)  # the newest: the other work comes and goes
        self.batches += 1

    @contextmanager
    def batch(self, texts: list[str]) -> Iterator[None]:
        """Embed one batch of ``texts`` inside this block, with the chosen thread count."""
        import torch

        count, before = self.choose(), torch.get_num_threads()
        torch.set_num_threads(count)
        start = time.perf_counter()
        try:
            yield
        finally:
            self.record(count, time.perf_counter() - start, sum(map(len, texts)))
            torch.set_num_threads(before)
