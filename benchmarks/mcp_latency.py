"""What MCP adds to a search: ``search`` p50/p95 (ms) through ``mitra mcp`` over stdio and
over streamable HTTP, beside the same search in-process, and over HTTP with 20 clients at once.

The knowledge base is the ORION demo's five analyses (indexed from their Markdown text);
the caller is a member of group "higgs" (HIG-24-001 and HIG-24-007), asking the demo's
answerable questions about those two analyses in turn, k = 8, fused ranking without a
reranker (its model would dominate every figure alike). In-process is what the CLI and the
app run: ``run_search`` on a pipeline already scoped to the member. Through MCP each call
also finds its caller (over HTTP: the API token looked up, the member and the policy read),
scopes a pipeline, checks the limits, writes its audit row and crosses the transport; the
servers are real processes driven by the SDK's client, after 5 warm-up calls each.
``overhead_p50_ms`` is the p50 through MCP minus the p50 in-process, with the bootstrap 95 %
interval of each median.

    python benchmarks/mcp_latency.py [--calls 100] [--clients 20] [--per-client 10]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from statistics import median, quantiles

import sys

import anyio

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # tests.fixtures: the server processes and the SDK's clients

from benchmarks.corpora.demo_questions import ANSWERABLE  # noqa: E402
from benchmarks.intervals import median_ci  # noqa: E402
from tests.conftest import closed_port  # noqa: E402
from tests.fixtures.mcp import http, http_server, issue, member_kb, stdio  # noqa: E402

MEMBER = "bob"  # group higgs


def _summary(ms: list[float]) -> dict:
    return {"p50_ms": round(median(ms), 1), "p50_ci": median_ci(ms), "p95_ms": round(quantiles(ms, n=20)[-1], 1),
            "n": len(ms)}


def _questions(analyses: set[str]) -> list[tuple[str, str]]:
    return [(q.locked, q.question) for q in ANSWERABLE if q.locked in analyses]


def _build(root: Path) -> Path:
    from demo.records import demo_records
    from ingest.sources.jsonl import index_records
    from mitra.core.settings import Settings
    from mitra.retrieval.pipeline import build_pipeline

    pipeline = build_pipeline(Settings(_env_file=None, data_dir=root / "demo", reranker="none"), with_reranker=False)
    index_records(pipeline.kb, demo_records())
    return root / "demo"


def in_process(env: dict[str, str], calls: int) -> tuple[list[float], list[tuple[str, str]]]:
    from mitra.access.users import member
    from mitra.core.settings import Settings
    from mitra.retrieval.pipeline import build_pipeline
    from mitra.retrieval.search import SearchRequest, run_search

    settings = Settings(_env_file=None, **{k.removeprefix("MITRA_").lower(): v for k, v in env.items()})
    pipeline = build_pipeline(settings, with_reranker=False).for_principal(member(settings, MEMBER))
    asked = _questions({a.id for a in pipeline.kb.analyses()})
    ms = []
    for n in range(calls + 5):
        analysis, question = asked[n % len(asked)]
        start = time.perf_counter()
        run_search(pipeline, SearchRequest(qid="q", query=question, analysis_id=analysis), k=8)
        if n >= 5:
            ms.append((time.perf_counter() - start) * 1000)
    return ms, asked


async def _through(client, asked: list[tuple[str, str]], calls: int, warm: int = 5) -> list[float]:
    ms = []
    for n in range(calls + warm):
        analysis, question = asked[n % len(asked)]
        start = time.perf_counter()
        result = await client.call_tool("search", {"analysis": analysis, "query": question, "k": 8})
        assert not result.is_error, result.content[0].text
        if n >= warm:
            ms.append((time.perf_counter() - start) * 1000)
    return ms


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=100, help="sequential searches per transport")
    parser.add_argument("--clients", type=int, default=20, help="HTTP clients at once")
    parser.add_argument("--per-client", type=int, default=10, help="searches each concurrent client makes")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        env = member_kb(_build(root), root / "served", reranker="none", mcp_calls_per_minute=10**6)
        local, asked = in_process(env, args.calls)

        async def over_stdio() -> list[float]:
            async with stdio(env, MEMBER) as client:
                return await _through(client, asked, args.calls)

        over_stdio_ms = anyio.run(over_stdio)
        with http_server(env, root / "http.log", closed_port()) as url:
            _, token = issue(env, MEMBER)

            async def over_http() -> list[float]:
                async with http(url, token) as client:
                    return await _through(client, asked, args.calls)

            async def concurrent() -> tuple[list[float], float]:
                ms: list[float] = []

                async def one() -> None:
                    async with http(url, token) as client:
                        ms.extend(await _through(client, asked, args.per_client, warm=1))

                start = time.perf_counter()
                async with anyio.create_task_group() as group:
                    for _ in range(args.clients):
                        group.start_soon(one)
                return ms, time.perf_counter() - start

            over_http_ms = anyio.run(over_http)
            crowd_ms, wall_s = anyio.run(concurrent)
    report = {
        "setup": {"analyses_searched": sorted({a for a, _ in asked}), "questions": len(asked), "k": 8,
                  "reranker": "none", "calls": args.calls},
        "in_process": _summary(local),
        "mcp_stdio": _summary(over_stdio_ms),
        "mcp_http": _summary(over_http_ms),
        "mcp_http_concurrent": {**_summary(crowd_ms), "clients": args.clients,
                                "searches_per_s": round(len(crowd_ms) / wall_s, 1)},
    }
    report["overhead_p50_ms"] = {name: round(report[name]["p50_ms"] - report["in_process"]["p50_ms"], 1)
                                 for name in ("mcp_stdio", "mcp_http")}
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
