"""Index directories replaced whole, so a reader never sees half of one."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Callable

# What ``swap_in`` names its half-written and replaced directories.
_SWAP_SUFFIXES = (".tmp", ".old")


def swap_in(directory: Path, write: Callable[[Path], None]) -> None:
    """``write`` a fresh directory beside ``directory`` and swap it in by renames. Writers
    hold the data dir's lock, so no two swaps of one directory run at once."""
    tmp = directory.with_name(directory.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    write(tmp)
    old = directory.with_name(directory.name + ".old")
    shutil.rmtree(old, ignore_errors=True)
    if directory.exists():
        directory.rename(old)
    tmp.rename(directory)
    shutil.rmtree(old, ignore_errors=True)


def sweep_swaps(root: Path) -> None:
    """Remove what swaps a killed writer interrupted left in ``root``: a retry of the same
    directory clears its own, but a directory never written again kept them for good. Only
    for a writer under the data dir's lock, which no other swap runs beside."""
    if root.is_dir():
        for left in root.iterdir():
            if left.name.endswith(_SWAP_SUFFIXES):
                shutil.rmtree(left, ignore_errors=True)
