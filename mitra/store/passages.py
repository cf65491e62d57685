"""Each generation's passages by id, beside its BM25 and dense indexes: what a question's
hits are read from. Reading them from Chroma instead made embedded Chroma load, and keep
until its client closes, every collection a reader ever touched (2.6 MB each: a reader
that served 1,000 analyses grew from 0.97 to 3.3 GB, ``benchmarks/reader_memory.py``);
a replica would send every fetch to the Chroma server. One SQLite file per generation,
written once by the writer, opened read-only per lookup (~0.1 ms), so nothing stays loaded.
"""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

from mitra.core.types import Chunk

FILE = "passages.sqlite"


def write_passages(directory: Path, chunks: list[Chunk]) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    with closing(sqlite3.connect(directory / FILE)) as db, db:
        db.execute("CREATE TABLE passages (id TEXT PRIMARY KEY, chunk TEXT NOT NULL) WITHOUT ROWID")
        db.executemany("INSERT INTO passages VALUES (?, ?)", ((c.id, c.model_dump_json()) for c in chunks))


def read_passages(directory: Path, ids: list[str] | None = None) -> dict[str, Chunk] | None:
    """The passages of ``ids`` (all where None) the generation holds, or None where it has
    no passages file (written before there was one: the caller reads Chroma)."""
    path = directory / FILE
    if not path.exists():
        return None
    # immutable: the file never changes once written (a new save is a new directory).
    with closing(sqlite3.connect(f"{path.as_uri()}?immutable=1", uri=True)) as db:
        if ids is None:
            rows = db.execute("SELECT id, chunk FROM passages").fetchall()
        else:
            rows = db.execute(f"SELECT id, chunk FROM passages WHERE id IN ({','.join('?' * len(ids))})",
                              ids).fetchall()
    return {i: Chunk.model_validate_json(chunk) for i, chunk in rows}
