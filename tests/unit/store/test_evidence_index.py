"""The evidence index kept in segments (``mitra.store.evidence*``): per-analysis scores,
dead units, and scores equal to one BM25 index rebuilt over the current units, whatever
the writer runs, merges and deletions before (no models needed)."""

import numpy as np
import pytest

from mitra.core.settings import Settings
from mitra.store import evidence, evidence_files
from mitra.store.bm25 import BM25Index
from mitra.store.evidence import EvidenceIndex
from mitra.store.evidence_files import EvidenceFiles, build_segments
from mitra.store.index_files import LocalIndexFiles
from mitra.store.routing import generation_units

shares = evidence._shares
Rows = list[tuple[str, list[str]]]  # (section, tokens) of each chunk of a generation


def _chunk_index(rows: Rows, superseded: set[int] = frozenset()) -> BM25Index:
    """A generation's chunk index as ``index_cache.chunk_index`` saves it (term counts kept)."""
    tags = [{"section": section, "superseded": "1" if i in superseded else "0"} for i, (section, _) in enumerate(rows)]
    return BM25Index.from_tokens([f"c{i}" for i in range(len(rows))], [t for _, t in rows], tags, with_terms=True)


def _source(generations: dict[str, Rows], unit: str = "section"):
    return lambda collection: generation_units(_chunk_index(generations[collection]), unit)


SMALL = {
    "ft-x-g1": [("d@1#Intro", ["higgs", "muon"]), ("d@1#Filters", ["dscr", "filter", "screen"]),
                ("d@1#Filters", ["filter", "set"])],
    "ft-y-g3": [("d@1#Intro", ["filter", "muon"]), ("d@1#Results", ["higgs", "mass"])],
    "ft-z-g1": [("d@1#Intro", ["dscr", "screen", "filter", "set"])],
}
CURRENT = {"X-1": "ft-x-g1", "X-2": "ft-y-g3", "X-3": "ft-z-g1"}


def _index(current: dict[str, str], generations: dict[str, Rows], unit: str = "section") -> EvidenceIndex:
    vocabulary: list[str] = []
    return EvidenceIndex(vocabulary, build_segments(current, _source(generations, unit), vocabulary))


def test_evidence_scores_each_analysis_by_its_best_unit():
    view = _index(CURRENT, SMALL).view(CURRENT)
    ranked = view.search(["dscr", "filter", "set"], 10, 100)
    assert [a for a, _ in ranked][:2] in (["X-3", "X-1"], ["X-1", "X-3"])
    assert [a for a, _ in ranked][-1] == "X-2"  # one shared word, its best unit scores lowest
    assert len({a for a, _ in ranked}) == len(ranked)  # one entry per analysis
    assert view.units == 5 and _index(CURRENT, SMALL, "passage").view(CURRENT).units == 6  # sections joined


def test_evidence_never_counts_a_hidden_or_replaced_analysis():
    index = _index(CURRENT, SMALL)
    # X-1 was re-indexed since the build (another generation); X-3 is hidden from this reader
    view = index.view({"X-1": "ft-x-g2", "X-2": "ft-y-g3", "X-3": "ft-z-g1"})
    assert [a for a, _ in view.search(["dscr", "filter", "set"], 10, 100, only={"X-1", "X-2"})] == ["X-2"]
    assert view.units == 3  # X-1's dead units count in neither N nor the average length; hidden X-3's do


def test_superseded_chunks_are_no_evidence():
    units = generation_units(_chunk_index(SMALL["ft-x-g1"], superseded={1}), "section")
    names, counts = units
    assert [sorted(names[t] for t in counts.tokens[a:b]) for a, b in zip(counts.indptr, counts.indptr[1:])] \
        == [["higgs", "muon"], ["filter", "set"]]


def _corpus(rng: np.random.Generator, n: int) -> Rows:
    words = [f"w{i}" for i in range(400)]
    weights = 1 / np.arange(1, 401)
    weights /= weights.sum()
    return [(f"d@1#S{rng.integers(6)}", list(rng.choice(words, int(rng.integers(0, 30)), p=weights)))
            for _ in range(n)]


def _rebuilt(current: dict[str, str], generations: dict[str, Rows], query: list[str], depth: int,
             only: set[str] | None = None) -> dict[str, float]:
    """Each analysis's best section score among the ``depth`` best (ties all in) in one
    BM25 index built from scratch over the current units."""
    ids, tokens = [], []
    for analysis_id in sorted(current):
        sections: dict[str, list[str]] = {}
        for section, words in generations[current[analysis_id]]:
            sections.setdefault(section, []).extend(words)
        ids += [analysis_id] * len(sections)
        tokens += list(sections.values())
    scores = BM25Index.from_tokens(ids, tokens)._retriever.get_scores(query)
    ranked = [(a, s) for a, s in zip(ids, scores.tolist()) if s > 0 and (only is None or a in only)]
    floor = sorted((s for _, s in ranked), reverse=True)[depth - 1] if len(ranked) >= depth else 0.0
    best: dict[str, float] = {}
    for analysis_id, score in ranked:
        if score >= floor:
            best[analysis_id] = max(best.get(analysis_id, 0.0), score)
    return best


def _same(got: list[tuple[str, float]], want: dict[str, float]) -> None:
    assert dict(got).keys() == want.keys()
    assert all(dict(got)[a] == pytest.approx(want[a], rel=1e-5) for a in want)


def test_incremental_scores_equal_a_full_rebuild(tmp_path, monkeypatch):
    """Writer runs that add, re-index and delete analyses, with segments small enough to
    merge and compact: every query's scores equal those of one index rebuilt from the
    current units, and a second reader of the saved files sees the same."""
    monkeypatch.setattr(evidence_files, "SEGMENT_POSTINGS", 400)
    monkeypatch.setattr(evidence, "SHORTLIST", 4)  # the pruning floor from fewer units than are above it
    looked_up = []
    monkeypatch.setattr(evidence, "_shares", lambda *args: looked_up.append(1) or shares(*args))
    rng = np.random.default_rng(3)
    generations: dict[str, Rows] = {}
    current: dict[str, str] = {}
    files = LocalIndexFiles(Settings(_env_file=None, data_dir=tmp_path))
    writer, reader = EvidenceFiles(files), EvidenceFiles(files)
    queries = [list(rng.choice([f"w{i}" for i in range(60)], 4)) + ["unknown"] for _ in range(12)]

    def index_analysis(analysis_id: str) -> None:
        generation = len([c for c in generations if c.startswith(f"ft-{analysis_id}-")]) + 1
        current[analysis_id] = f"ft-{analysis_id}-g{generation}"
        generations[current[analysis_id]] = _corpus(rng, int(rng.integers(1, 12)))

    steps = [("add", range(25)), ("add", range(25, 30)), ("reindex", range(0, 30, 4)), ("delete", range(1, 30, 7)),
             ("add", range(30, 31)), ("reindex", range(2, 30, 3))]
    for action, which in steps:
        for i in which:
            if action == "delete":
                current.pop(f"A-{i:02d}", None)
            else:
                index_analysis(f"A-{i:02d}")
        assert writer.update(current, _source(generations), "section")
        view = reader.index().view(current)
        even = {a for a in current if int(a[2:]) % 2 == 0}
        for query in queries:
            _same(view.search(query, 100, 10_000), _rebuilt(current, generations, query, 10_000))
            # a small depth: the common terms are only looked up (MaxScore), the answer the same
            _same(view.search(query, 100, 3), _rebuilt(current, generations, query, 3))
            _same(view.search(query, 100, 3, only=even), _rebuilt(current, generations, query, 3, even))
    assert not writer.update(current, _source(generations), "section")  # nothing changed: nothing written
    assert looked_up  # pruning took place
    saved = {p.name for p in (tmp_path / "evidence").iterdir()}
    assert saved == {"state", *evidence_files.State.load(tmp_path / "evidence" / "state").segments}  # merged away


def test_a_new_unit_setting_rebuilds_the_whole_index(tmp_path):
    files = LocalIndexFiles(Settings(_env_file=None, data_dir=tmp_path))
    store = EvidenceFiles(files)
    store.update(CURRENT, _source(SMALL), "section")
    assert store.index().view(CURRENT).units == 5
    store.update(CURRENT, _source(SMALL, "passage"), "passage")
    assert store.index().view(CURRENT).units == 6
    assert len(list((tmp_path / "evidence").iterdir())) == 2  # the state and one segment


def test_one_analysis_a_run_keeps_few_segments(tmp_path):
    """Forty runs of one new analysis each: merged log-structured, never forty segments,
    and a re-indexed analysis's old units go with the merges."""
    rng = np.random.default_rng(5)
    generations = {f"ft-{i}-g1": _corpus(rng, 8) for i in range(40)}
    generations |= {f"ft-{i}-g2": _corpus(rng, 8) for i in range(40)}
    store = EvidenceFiles(LocalIndexFiles(Settings(_env_file=None, data_dir=tmp_path)))
    current: dict[str, str] = {}
    for i in range(40):
        current[f"A-{i:02d}"] = f"ft-{i}-g1"
        store.update(current, _source(generations), "section")
        assert len(store.index().segments) <= 7
    current = current | {a: c.replace("-g1", "-g2") for a, c in current.items() if a < "A-20"}
    store.update(current, _source(generations), "section")
    held = [pair for segment in store.index().segments for pair in segment.analyses]
    assert len(held) < 60 and set(current.items()) <= set(held)
