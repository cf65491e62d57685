"""What routing by full-text evidence costs as the knowledge base grows.

The evidence index (``mitra.store.evidence``) is BM25 over every analysis's current
text, its top-level sections (the default) or its passages, kept in segments a writer
adds one run at a time. This chunks the 780 LHCb papers with the real intake
(``ingest.sources.jsonl.prepare``) and takes each paper's units from a chunk index as a
writer does (``generation_units``). An analysis is ``--papers-per-analysis`` papers (as
many documents), the corpus going round, so 5,000 analyses of 22 papers reach a
collaboration's ~5 M passages (~700k sections). For each size it times:

* the full build (the writer's ``update`` from nothing, the saved files included);
* adding one analysis and re-indexing one: the evidence part of a writer run, its
  generation's chunk index loaded from disk as a writer does;
* queries in a fresh reader process (the 33 expert questions and the abstracts' first
  sentences), p50/p95 in ms, and that process's memory: anonymous (vocabulary, lengths,
  the view's arrays) and file-backed (postings, memory-mapped and shared by replicas).

Prints JSON.

    python benchmarks/routing_scale.py [--papers 780] [--sizes 780:1,5000:22] [--passage-sizes 780:1]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from statistics import quantiles

import numpy as np

from benchmarks.corpora import shared_dir
from benchmarks.corpora.lhcb import expert_questions, iter_papers
from ingest.sources.jsonl import prepare
from mitra.core.settings import Settings
from mitra.core.text import split_sentences, tokenize
from mitra.store.bm25 import BM25Index, TermCounts
from mitra.store.evidence_files import EvidenceFiles
from mitra.store.index_cache import section_key
from mitra.store.index_files import LocalIndexFiles
from mitra.store.routing import generation_units


def percentile(values: list[float], q: int) -> float:
    return round(quantiles(values, n=100)[q - 1], 2) if len(values) > 1 else round(values[0], 2)


def memory_mb() -> dict[str, float]:
    fields = dict(line.split(":", 1) for line in Path("/proc/self/status").read_text().splitlines() if ":" in line)
    return {k: round(int(fields[k].split()[0]) / 1024, 1) for k in ("VmRSS", "RssAnon", "RssFile")}


def read(directory: Path, questions_file: Path, depth: int) -> None:
    """The reader: a fresh process loads the saved index and answers every question."""
    before = memory_mb()
    current = json.loads((directory / "current.json").read_text())
    start = time.perf_counter()
    view = EvidenceFiles(LocalIndexFiles(Settings(_env_file=None, data_dir=directory))).index().view(current)
    load_s = time.perf_counter() - start
    timings = []
    for words in json.loads(questions_file.read_text()):
        began = time.perf_counter()
        view.search(words, 50, depth)
        timings.append((time.perf_counter() - began) * 1000)
    print(json.dumps({"load_s": round(load_s, 2), "query_p50_ms": percentile(timings, 50),
                      "query_p95_ms": percentile(timings, 95), "memory_before_mb": before, "memory_after_mb": memory_mb()}))


def chunked_papers(root: Path, count: int) -> tuple[list[tuple[str, list[tuple[str, list[str]]]]], list[str]]:
    """The first ``count`` LHCb papers chunked by the real intake, each as its chunks'
    (section key, tokens), and the questions: the 33 expert ones and each abstract's first
    sentence."""
    settings = Settings(_env_file=None)
    papers, questions = [], [q.question for q in expert_questions(root)]
    for paper in list(iter_papers(root))[:count]:
        prepared = prepare(paper.record(full_text=True), settings)
        papers.append((prepared.analysis.id, [(section_key(c), tokenize(c.index_text)) for c in prepared.chunks]))
        questions += split_sentences(paper.abstract)[:1]
    return papers, questions


class Corpus:
    """Each paper's units as a writer takes them from its chunk index, in one vocabulary."""

    def __init__(self, papers: list[tuple[str, list[tuple[str, list[str]]]]], unit: str):
        ids: dict[str, int] = {}
        self.units: list[TermCounts] = []
        for _, rows in papers:
            names, counts = generation_units(_chunk_index(rows), unit)
            local = np.array([ids.setdefault(n, len(ids)) for n in names] + [0], np.int32)
            self.units.append(TermCounts(counts.indptr, local[counts.tokens], counts.counts))
        self.vocabulary: list[str] = list(ids)

    def analysis(self, number: int, papers: int) -> tuple[list[str], TermCounts]:
        """Analysis ``number``'s units: ``papers`` papers' in turn (distinct documents)."""
        parts = [self.units[(number * papers + j) % len(self.units)] for j in range(papers)]
        tokens = np.concatenate([p.tokens for p in parts])
        names, local = np.unique(tokens, return_inverse=True)
        sizes = np.concatenate([np.diff(p.indptr) for p in parts])
        return ([self.vocabulary[t] for t in names.tolist()],
                TermCounts(np.concatenate([[0], np.cumsum(sizes)]), local.astype(np.int32),
                           np.concatenate([p.counts for p in parts])))


def _chunk_index(rows: list[tuple[str, list[str]]]) -> BM25Index:
    return BM25Index.from_tokens([str(i) for i in range(len(rows))], [t for _, t in rows],
                                 [{"section": s, "superseded": "0"} for s, _ in rows], with_terms=True)


def measure(corpus: Corpus, papers: list, analyses: int, per: int, unit: str, questions: Path, depth: int) -> dict:
    with tempfile.TemporaryDirectory(prefix="routing-scale-") as tmp:
        files = LocalIndexFiles(Settings(_env_file=None, data_dir=Path(tmp)))
        current = {f"A-{i:05d}": f"ft-{i}-g1" for i in range(analyses)}
        number = {c: i for i, c in enumerate(current.values())}
        writer = EvidenceFiles(files)
        start = time.perf_counter()
        writer.update(current, lambda c: corpus.analysis(number[c], per), unit)
        build_s = time.perf_counter() - start
        # One more analysis, and one re-indexed: their chunk indexes saved, then loaded as a writer does.
        for name, first in (("ft-new-g1", analyses), ("ft-0-g2", analyses + 1)):
            rows = [(f"{j}/{section}", tokens) for j in range(per)  # a document each
                    for section, tokens in papers[(first * per + j) % len(papers)][1]]
            _chunk_index(rows).save(Path(tmp) / "chunks" / name)
        timed = {}
        for step, changed in (("add_one_s", {"A-new": "ft-new-g1"}), ("reindex_one_s", {"A-00000": "ft-0-g2"})):
            current |= changed
            began = time.perf_counter()
            writer.update(current, lambda c: generation_units(BM25Index.load(Path(tmp) / "chunks" / c), unit), unit)
            timed[step] = round(time.perf_counter() - began, 2)
        index = writer.index()
        view = index.view(current)
        (Path(tmp) / "current.json").write_text(json.dumps(current))
        disk = sum(f.stat().st_size for f in (Path(tmp) / "evidence").rglob("*") if f.is_file())
        reader = subprocess.run([sys.executable, __file__, "--read", tmp, "--questions", str(questions),
                                 "--depth", str(depth)], capture_output=True, text=True, check=True)
        return {"unit": unit, "analyses": len(current), "papers_per_analysis": per,
                "passages": sum(len(papers[(i * per + j) % len(papers)][1]) for i in range(analyses) for j in range(per)),
                "units": view.units, "postings": sum(s.postings for s in index.segments),
                "segments": len(index.segments), "vocabulary": len(index.term_ids), "build_s": round(build_s, 1),
                **timed, "disk_mb": round(disk / 2**20, 1), **json.loads(reader.stdout)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--papers", type=int, default=780)
    parser.add_argument("--sizes", default="780:1,5000:22", help="analyses:papers-per-analysis, by sections")
    parser.add_argument("--passage-sizes", default="780:1", help="the same, by passages")
    parser.add_argument("--read", help=argparse.SUPPRESS)
    parser.add_argument("--questions", help=argparse.SUPPRESS)
    parser.add_argument("--depth", type=int, default=Settings(_env_file=None).route_evidence_depth)
    args = parser.parse_args()
    if args.read:
        return read(Path(args.read), Path(args.questions), args.depth)
    root = shared_dir()
    if root is None:
        sys.exit("../shared/data not found (set MITRA_SHARED_DIR): this benchmark needs the LHCb corpus")
    start = time.perf_counter()
    papers, questions = chunked_papers(root, args.papers)
    report = {"benchmark": "routing_scale", "papers": len(papers), "passages": sum(len(r) for _, r in papers),
              "chunk_and_tokenize_s": round(time.perf_counter() - start, 1), "queries": len(questions), "sizes": []}
    with tempfile.NamedTemporaryFile("w", suffix=".json") as handle:
        json.dump([tokenize(q) for q in questions], handle)
        handle.flush()
        for unit, sizes in (("section", args.sizes), ("passage", args.passage_sizes)):
            corpus = Corpus(papers, unit)
            for size in filter(None, sizes.split(",")):
                analyses, per = (int(x) for x in size.split(":"))
                report["sizes"].append(measure(corpus, papers, analyses, per, unit, Path(handle.name), args.depth))
                print(json.dumps(report["sizes"][-1]), file=sys.stderr, flush=True)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
