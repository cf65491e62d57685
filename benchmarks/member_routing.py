"""What routing a signed-in member's question costs beside routing an unscoped one.

A member reads through ``ScopedKnowledge``: every routing list is filtered to the analyses
their groups may read. This builds ``--analyses`` analyses of ``--chunks`` LHCb passages
each (``reader_memory.build``: one writer, random passage vectors, since what is measured
is cost), half of them for group "a" and half for group "b", then routes the 33 expert
questions, unscoped and as a member of group "a", in turn, question by question, in a
fresh reader, p50/p95 ms.

    python benchmarks/member_routing.py [--analyses 1000] [--chunks 5] [--work-dir DIR]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.corpora import shared_dir  # noqa: E402
from benchmarks.corpora.lhcb import expert_questions  # noqa: E402
from benchmarks.reader_memory import build  # noqa: E402
from benchmarks.routing_scale import percentile  # noqa: E402
from mitra.core.settings import Settings  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--analyses", type=int, default=1000)
    parser.add_argument("--chunks", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--work-dir", type=Path)
    args = parser.parse_args()
    if shared_dir() is None:
        sys.exit("../shared/data not found (set MITRA_SHARED_DIR): this benchmark needs the LHCb corpus")
    from mitra.access.policy import Principal
    from mitra.retrieval.pipeline import build_pipeline

    data_dir = (args.work_dir or Path(tempfile.mkdtemp(prefix="mitra-member-routing-"))) / f"kb-{args.analyses}"
    start = time.perf_counter()
    if not (data_dir / "catalog.sqlite").exists():  # built once per work dir
        build(Settings(data_dir=data_dir), args.analyses, args.chunks, groups=("a", "b"))
    build_s = time.perf_counter() - start
    pipeline = build_pipeline(Settings(data_dir=data_dir, reranker="none"), with_reranker=False)
    routers = {"unscoped": pipeline.router, "member": pipeline.for_principal(Principal("m", frozenset({"a"}))).router}
    questions = [q.question for q in expert_questions(shared_dir())]
    for router in routers.values():
        router.route(questions[0])  # loads and caches
    timed: dict[str, list[float]] = {name: [] for name in routers}
    for question in questions * args.rounds:
        for name, router in routers.items():
            begin = time.perf_counter()
            router.route(question)
            timed[name].append((time.perf_counter() - begin) * 1000)
    print(json.dumps({"benchmark": "member_routing", "analyses": args.analyses, "build_seconds": round(build_s, 1),
                      "route_ms": {name: {"p50": round(percentile(v, 50), 1), "p95": round(percentile(v, 95), 1)}
                                   for name, v in timed.items()}}, indent=2))


if __name__ == "__main__":
    main()
