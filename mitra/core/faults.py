"""Named points where a test can kill this process, the way ``kill -9`` would.

``MITRA_KILL_AT=<point>`` (or ``<point>:<n>`` for its n-th passage) sends SIGKILL to
the process when the code reaches that point, so fault-injection tests choose exactly
where a run dies instead of racing it with sleeps. Unset, a point costs one dict lookup.
"""

from __future__ import annotations

import os
import signal
from collections import Counter

_passes: Counter = Counter()


def reached(point: str) -> None:
    wanted = os.environ.get("MITRA_KILL_AT")
    if not wanted:
        return
    name, _, nth = wanted.partition(":")
    if name != point:
        return
    _passes[point] += 1
    if _passes[point] >= int(nth or 1):
        os.kill(os.getpid(), signal.SIGKILL)
