"""Keeping a long indexing run's resident memory flat."""

from __future__ import annotations

import ctypes
import ctypes.util
from functools import cache

_M_MMAP_THRESHOLD = -3  # glibc's mallopt parameter number
_THRESHOLD = 4 * 1024 * 1024


@cache  # find_library runs ldconfig in a subprocess: ~10 ms, and writers trim after every batch
def _libc() -> ctypes.CDLL | None:
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        return ctypes.CDLL(name)
    except OSError:
        return None


def keep_heap_flat() -> bool:
    """Serve allocations of 4 MiB and more from mmap, so they go back to the OS when freed.

    glibc raises its mmap threshold (up to 32 MiB) each time a large block is freed, and
    from then on serves such blocks from its heap, which fragments and never shrinks: the
    embedder's per-batch activations (~12 MB) made an indexing run's memory creep from
    715 MB to over 900 MB in 1,000 passages and keep growing with the corpus. Fixing the
    threshold keeps it flat at the price of ~20 % embedding time. Returns whether it
    applied (glibc only; other C libraries keep their own policy)."""
    mallopt = getattr(_libc(), "mallopt", None)
    return bool(mallopt and mallopt(_M_MMAP_THRESHOLD, _THRESHOLD))


def release_freed() -> None:
    """Hand the heap's free pages back to the OS (glibc ``malloc_trim``): what a closed
    Chroma client freed stays resident in the heap's free lists otherwise."""
    trim = getattr(_libc(), "malloc_trim", None)
    if trim is not None:
        trim(0)
