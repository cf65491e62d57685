"""What one MCP call, and one caller per minute, may ask: bounds that turn a huge ``k``, a
novel-length question or a flood of calls into a one-line error instead of work."""

from __future__ import annotations

import threading
import time
from collections import deque

from mitra.core.errors import MitraError

MAX_NEIGHBOURS = 5  # read_passage: paragraphs either side; more is reading the document (its resource)


class LimitError(MitraError):
    """A call over one of the server's limits, said in one line with the setting that sets it."""


def checked_text(name: str, value: str, most: int) -> str:
    if not value.strip():
        raise LimitError(f"{name} is empty")
    if len(value) > most:
        raise LimitError(f"{name} is {len(value)} characters long: the limit is {most} (mcp_max_question_chars)")
    return value


def in_range(name: str, value: int, low: int, high: int, setting: str = "") -> int:
    if not low <= value <= high:
        raise LimitError(f"{name}={value}: ask for {low} to {high}" + (f" ({setting})" if setting else ""))
    return value


class RateLimit:
    """At most ``per_minute`` calls per key in any 60 s (a sliding window, in this process)."""

    def __init__(self, per_minute: int):
        self.per_minute = per_minute
        self._calls: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def check(self, key: str) -> None:
        now = time.monotonic()
        with self._lock:
            calls = self._calls.setdefault(key, deque())
            while calls and now - calls[0] >= 60:
                calls.popleft()
            if len(calls) >= self.per_minute:
                wait = 60 - (now - calls[0])
                raise LimitError(f"rate limit: {self.per_minute} calls a minute per token (mcp_calls_per_minute); "
                                 f"try again in {wait:.0f} s")
            calls.append(now)
