"""The evidence index's files, and the writer that keeps it current one analysis at a time.

Saved through ``mitra.store.index_files`` (kind ``evidence``, so the data dir or, in the
cluster form, PostgreSQL): ``state`` (``terms.txt``, the vocabulary, only ever appended
to so the term ids of older segments stay valid; ``manifest.json``, the unit, the
tokenizer and the segments' names) and one directory per segment, named once and never
rewritten. A writer run adds a segment of the analyses whose current generation no
segment holds, merges small segments log-structured (the newest two while the newer is
at least half the older, up to ``SEGMENT_POSTINGS``; a segment more than half dead is
rewritten), then saves the new segments, then the state naming them, then deletes what
it merged away. A reader loads a segment once (it never changes) and the state once per
stamp; one that meets a segment deleted under it loads the state again.

A full rebuild of 5 M passages took minutes and every run paid it; a run now pays for
the analyses it (re)indexed, plus an amortised share of merges.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from mitra.core.text import TOKENIZER
from mitra.store.bm25 import TermCounts
from mitra.store.evidence import EvidenceIndex
from mitra.store.evidence_segment import Segment
from mitra.store.index_files import IndexFiles

STATE = "state"
# ~33 M postings (~200 MB) at most a segment: a blob PostgreSQL holds whole, merged in seconds;
# fewer segments cost a query less (5 at 5,000 analyses).
SEGMENT_POSTINGS = 1 << 25
_READ_RETRIES = 3

# A generation's units: (its vocabulary, each unit's term ids in it and counts).
UnitsOf = Callable[[str], tuple[list[str], TermCounts]]


@dataclass
class State:
    unit: str
    tokenizer: str
    segments: list[str]
    vocabulary: list[str]

    def write(self, directory: Path) -> None:
        directory.mkdir(parents=True)
        (directory / "terms.txt").write_text("\n".join(self.vocabulary))  # tokens hold no newline
        (directory / "manifest.json").write_text(json.dumps(
            {"unit": self.unit, "tokenizer": self.tokenizer, "segments": self.segments}))

    @classmethod
    def load(cls, directory: Path) -> "State | None":
        if not (directory / "manifest.json").exists():
            return None
        manifest = json.loads((directory / "manifest.json").read_text())
        text = (directory / "terms.txt").read_text()
        return cls(manifest["unit"], manifest["tokenizer"], manifest["segments"], text.split("\n") if text else [])


def build_segments(todo: dict[str, str], units_of: UnitsOf, vocabulary: list[str]) -> list[Segment]:
    """Segments of the analyses ``todo`` (id -> collection), in id order, each up to
    ``SEGMENT_POSTINGS``; terms new to ``vocabulary`` are appended to it."""
    ids = {term: i for i, term in enumerate(vocabulary)}
    segments, parts, postings = [], [], 0
    for analysis_id in sorted(todo):
        names, counts = units_of(todo[analysis_id])
        local = np.array([ids.setdefault(name, len(ids)) for name in names] + [0], np.int32)
        parts.append((analysis_id, todo[analysis_id], TermCounts(counts.indptr, local[counts.tokens], counts.counts)))
        postings += len(counts.tokens)
        if postings >= SEGMENT_POSTINGS:
            segments.append(Segment.build(parts))
            parts, postings = [], 0
    if parts:
        segments.append(Segment.build(parts))
    vocabulary.extend(list(ids)[len(vocabulary):])
    return segments


def _keep(segment: Segment, current: dict[str, str]) -> np.ndarray:
    return np.array([current.get(a) == c for a, c in segment.analyses], bool)


def merged(segments: list[tuple[str | None, Segment]], current: dict[str, str]) -> list[tuple[str | None, Segment]]:
    """The segments (name, or None for a new one; oldest first) after merging: a segment
    more than half dead is rewritten, none dead is dropped, and the newest two merge while
    the newer holds at least half the older's postings and both fit ``SEGMENT_POSTINGS``,
    so a writer keeps O(log n) segments and rewrites each posting O(log n) times."""
    result: list[tuple[str | None, Segment]] = []
    for name, segment in segments:
        keep = _keep(segment, current)
        units = np.diff(segment.starts)
        live = int(units[keep].sum())
        if not keep.any():
            continue
        if live * 2 < int(units.sum()):
            name, segment = None, Segment.merge([segment], [keep])
        result.append((name, segment))
        while len(result) > 1 and 2 * result[-1][1].postings >= result[-2][1].postings \
                and result[-1][1].postings + result[-2][1].postings <= SEGMENT_POSTINGS:
            (_, older), (_, newer) = result.pop(-2), result.pop()
            result.append((None, Segment.merge([older, newer], [_keep(older, current), _keep(newer, current)])))
    return result


class EvidenceFiles:
    """The saved evidence index, for readers (``index``) and the one writer (``update``)."""

    def __init__(self, files: IndexFiles):
        self.files = files
        self._segments: dict[str, Segment] = {}
        self._index: tuple[str, EvidenceIndex] | None = None

    def _load(self, names: list[str]) -> list[Segment] | None:
        """The named segments, each loaded once; None where one is gone (merged away)."""
        for name in names:
            if name not in self._segments:
                segment = Segment.load(self.files.directory("evidence", name))
                if segment is None:
                    return None
                self._segments[name] = segment
        self._segments = {name: self._segments[name] for name in names}
        return [self._segments[name] for name in names]

    def index(self) -> EvidenceIndex | None:
        """The saved index, loaded once per save; None where none is saved."""
        for _ in range(_READ_RETRIES):
            stamp = self.files.stamp("evidence", STATE)
            if not stamp:
                return None
            if self._index is not None and self._index[0] == stamp:
                return self._index[1]
            state = State.load(self.files.directory("evidence", STATE))
            segments = None if state is None else self._load(state.segments)
            if state is not None and segments is not None:
                self._index = (stamp, EvidenceIndex(state.vocabulary, segments))
                return self._index[1]
        return None

    def update(self, current: dict[str, str], units_of: UnitsOf, unit: str) -> bool:
        """Make the saved index hold the generation ``current`` names of each analysis (all
        of them anew when the unit or the tokenizer changed); False where it did already."""
        saved = State.load(self.files.directory("evidence", STATE))
        state = saved if saved and saved.unit == unit and saved.tokenizer == TOKENIZER else State(unit, TOKENIZER, [], [])
        old = list(zip(state.segments, self._load(state.segments) or []))
        held = {pair for _, segment in old for pair in segment.analyses}
        todo = {a: c for a, c in current.items() if (a, c) not in held}
        added = build_segments(todo, units_of, state.vocabulary)
        plan = merged(old + [(None, s) for s in added], current)
        names = [name or f"seg-{uuid.uuid4().hex}" for name, _ in plan]
        if names == state.segments and self.files.stamp("evidence", STATE):
            return False
        for name, (was, segment) in zip(names, plan):
            if was is None:
                self.files.save("evidence", name, segment.write)
        gone = set(saved.segments if saved else []) - set(names)
        self.files.save("evidence", STATE, State(unit, TOKENIZER, names, state.vocabulary).write)
        for name in gone:
            self.files.delete("evidence", name)
        return True
