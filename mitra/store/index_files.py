"""Where each generation's index directories live (its BM25 and dense indexes and passages, and tier 1's
routing BM25 and evidence segments), behind one interface with two back ends:

* ``LocalIndexFiles`` (embedded, and whenever Chroma is embedded): directories in the data
  dir, replaced whole by rename (``mitra.store.files``);
* ``BlobIndexFiles`` (cluster form: ``MITRA_DATABASE_URL`` and ``MITRA_CHROMA_HOST`` set):
  each directory a tar blob in PostgreSQL's ``index_blobs``, so replicas that share no disk
  read the same indexes. The writer stores a generation's blobs before the catalog commit
  that names it, so a reader never meets a catalog entry whose blobs are missing. Each
  replica unpacks a blob once per stamp into ``<data_dir>/index-cache`` (a pure cache: an
  empty data dir fills it) and loads from there, so dense arrays stay memory-mapped.

Why blobs and not rebuilding from the passages Chroma stores: one generation of 10k
chunks loaded in 0.6-1.1 s from its blobs (71 MB) against 2.7-5.8 s rebuilt from Chroma's
``get`` (``benchmarks/index_load.py``, 2 busy cores), and the rebuild still lacked the
sentence windows' vectors, which Chroma does not hold (re-embedding them takes minutes).
"""

from __future__ import annotations

import io
import shutil
import tarfile
import tempfile
import uuid
from pathlib import Path
from typing import Callable, Literal, Protocol

from filelock import FileLock
from sqlalchemy import delete, select

from mitra.core import faults
from mitra.core.settings import Settings
from mitra.models.adapted import published_dir
from mitra.store import schema
from mitra.store.files import swap_in, sweep_swaps
from mitra.store.state import cluster_form, database, now, upsert

Kind = Literal["bm25", "dense", "passages", "model", "evidence", "brief"]
# The file each kind writes last, whose presence marks a whole index and whose mtime is its stamp.
_MARKER: dict[Kind, str] = {"bm25": "entries.json", "dense": "ids.json", "passages": "passages.sqlite",
                            "model": "manifest.json", "evidence": "manifest.json", "brief": "brief.json"}
SHARED_MODEL = "adapted"  # the blob name of the adapted reranker replicas read (cluster form)
# What a writer reads back after saving it: a new generation's BM25 term counts (its
# evidence units) and every evidence segment at its next run. Kept in its cache as written,
# not fetched again: at 5,000 analyses a writer run fetched the 862 MB of segments, and
# adding one analysis took 19.4 s (routing_end_to_end.py --cluster).
_KEPT_ON_SAVE: frozenset[Kind] = frozenset({"bm25", "evidence"})
_SAVING = "mitra-index-"  # the cache root's temporary directory of a save in progress


class IndexFiles(Protocol):
    def directory(self, kind: Kind, name: str) -> Path:
        """A local directory holding the current version of index ``name`` (empty or absent
        where none was saved)."""

    def stamp(self, kind: Kind, name: str) -> str:
        """What changes whenever index ``name`` is saved again ("" where none is saved)."""

    def save(self, kind: Kind, name: str, write: Callable[[Path], None]) -> None:
        """Replace index ``name`` by what ``write`` puts in the (new) directory it is given."""

    def delete(self, kind: Kind, name: str) -> None: ...

    def sweep(self) -> None:
        """Remove what saves interrupted by a killed writer left behind (a writer's call,
        under the data dir's lock: no save runs beside it)."""


class LocalIndexFiles:
    """Today's layout: ``<data_dir>/bm25/<name>`` and ``<data_dir>/dense/<name>``."""

    def __init__(self, settings: Settings):
        self.roots: dict[Kind, Path] = {"bm25": settings.bm25_dir, "dense": settings.data_dir / "dense",
                                        "passages": settings.data_dir / "passages", "model": settings.models_dir,
                                        "evidence": settings.data_dir / "evidence", "brief": settings.data_dir / "briefs"}

    def directory(self, kind: Kind, name: str) -> Path:
        return self.roots[kind] / name

    def stamp(self, kind: Kind, name: str) -> str:
        marker = self.directory(kind, name) / _MARKER[kind]
        return str(marker.stat().st_mtime_ns) if marker.exists() else ""

    def save(self, kind: Kind, name: str, write: Callable[[Path], None]) -> None:
        self.directory(kind, name).parent.mkdir(parents=True, exist_ok=True)
        swap_in(self.directory(kind, name), lambda tmp: _written(write, tmp))

    def delete(self, kind: Kind, name: str) -> None:
        shutil.rmtree(self.directory(kind, name), ignore_errors=True)

    def sweep(self) -> None:
        for root in self.roots.values():
            sweep_swaps(root)


class BlobIndexFiles:
    """Index directories as tar blobs in PostgreSQL, unpacked per stamp into a local cache."""

    def __init__(self, settings: Settings):
        self.engine = database(settings, "index")
        self.cache = settings.data_dir / "index-cache"

    def stamp(self, kind: Kind, name: str) -> str:
        with self.engine.connect() as db:
            found = db.scalar(select(schema.index_blobs.c.stamp).where(
                schema.index_blobs.c.kind == kind, schema.index_blobs.c.name == name))
        return found or ""

    def directory(self, kind: Kind, name: str) -> Path:
        stamp = self.stamp(kind, name)
        place = self.cache / kind / name / stamp
        if not stamp or place.exists():
            return place
        with self.engine.connect() as db:
            row = db.execute(select(schema.index_blobs.c.stamp, schema.index_blobs.c.data).where(
                schema.index_blobs.c.kind == kind, schema.index_blobs.c.name == name)).first()
        if row is None:  # deleted since
            return place
        return self._place(kind, name, row.stamp, lambda tmp: _unpack(row.data, tmp), prune=True)

    def _place(self, kind: Kind, name: str, stamp: str, fill: Callable[[Path], None], prune: bool) -> Path:
        """Version ``stamp`` of index ``name`` in the cache, ``fill``-ed where it is not there yet."""
        place = self.cache / kind / name / stamp
        self.cache.mkdir(parents=True, exist_ok=True)
        # One unpacker at a time: the app's sessions are threads that meet a new generation together.
        with FileLock(self.cache / "unpack.lock"):
            if not place.exists():
                # Older versions go, and (on a fetch) so do generations the writer has collected
                # since, so the cache holds what the database does (a reader holding one
                # memory-mapped keeps its pages). A writer deletes what it collects itself.
                shutil.rmtree(place.parent, ignore_errors=True)
                if prune:
                    self._prune(kind)
                place.parent.mkdir(parents=True)
                swap_in(place, fill)
        return place

    def _prune(self, kind: Kind) -> None:
        if not (self.cache / kind).exists():
            return
        with self.engine.connect() as db:
            live = set(db.scalars(select(schema.index_blobs.c.name).where(schema.index_blobs.c.kind == kind)))
        for cached in (self.cache / kind).iterdir():
            if cached.name not in live:
                shutil.rmtree(cached, ignore_errors=True)

    def save(self, kind: Kind, name: str, write: Callable[[Path], None]) -> None:
        self.cache.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(prefix=_SAVING, dir=self.cache) as tmp:  # the cache's disk: renamed in
            written = _written(write, Path(tmp) / name)
            stamp = uuid.uuid4().hex
            with self.engine.begin() as db:
                upsert(db, schema.index_blobs,
                       {"kind": kind, "name": name, "stamp": stamp, "data": _pack(written), "created_at": now()},
                       ["kind", "name"])
            if kind in _KEPT_ON_SAVE:
                self._place(kind, name, stamp, written.rename, prune=False)

    def delete(self, kind: Kind, name: str) -> None:
        with self.engine.begin() as db:
            db.execute(delete(schema.index_blobs).where(
                schema.index_blobs.c.kind == kind, schema.index_blobs.c.name == name))
        shutil.rmtree(self.cache / kind / name, ignore_errors=True)

    def sweep(self) -> None:
        # A killed save's temporary directory: it has a fresh name each time, so nothing
        # else would ever remove it. Unpacking readers swap in under <kind>/, never here.
        for left in self.cache.glob(f"{_SAVING}*"):
            shutil.rmtree(left, ignore_errors=True)


def _written(write: Callable[[Path], None], directory: Path) -> Path:
    """``directory`` once ``write`` has filled it: a save's files written, not yet in place,
    where fault-injection tests kill a writer (``index.saving``)."""
    write(directory)
    faults.reached("index.saving")
    return directory


def _pack(directory: Path) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:  # uncompressed: float arrays barely shrink
        tar.add(directory, arcname=".")
    return buffer.getvalue()


def _unpack(data: bytes, directory: Path) -> None:
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(directory, filter="data")


def open_index_files(settings: Settings) -> IndexFiles:
    return BlobIndexFiles(settings) if cluster_form(settings) else LocalIndexFiles(settings)


def share_model(settings: Settings, directory: Path) -> None:
    """In the cluster form, the adapted reranker just published in the writer's data dir
    (``directory``, its manifest inside) becomes the one every replica reads."""
    if cluster_form(settings):
        BlobIndexFiles(settings).save("model", SHARED_MODEL, lambda target: shutil.copytree(directory, target))


def published_model(settings: Settings) -> Path | None:
    """Where this deployment's adapted reranker is read from: the cluster's shared copy
    (unpacked into this replica's cache), else the data dir's; None where none is published."""
    if not cluster_form(settings):
        return published_dir(settings)
    directory = BlobIndexFiles(settings).directory("model", SHARED_MODEL)
    return directory if directory.exists() else None
