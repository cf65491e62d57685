"""N simultaneous chat sessions in one process (threads, as Streamlit serves its sessions),
on the embedded Chroma store and on a real ``chroma run`` server on 127.0.0.1.

Each session is a ``mitra.chat.session.Session`` that routes a question (route), locks
on an analysis (lock), then retrieves (retrieve) and reranks (rerank) in the lock.
Session i locks on the i-th analysis of the demo corpus, round-robin, and asks one of
that analysis's demo questions (benchmarks/corpora/demo_questions.py); every passage it
gets must belong to its locked analysis: "bleed" counts those that do not. The reranker
is the configured cross-encoder where its weights are here, else the retriever's
default system without one (hybrid): the output names which. A smaller number of
sessions also answer, on the embedded llama.cpp model (the packaged GGUF, as
benchmarks/answer_latency.py), all sent at once to the one model server.

The knowledge base is the ORION demo corpus (demo/records.py: the latest version of
every document, as Markdown), indexed with the packaged MiniLM once per backend; the
server backend indexes it into the Chroma server (vectors there, catalog and BM25 in
its data dir). JSON on stdout (p50/p95 ms per stage and end to end, errors, bleed),
a Markdown table on stderr.

    python benchmarks/concurrency.py [--sessions 1,10,50] [--answer-sessions 1,4]
        [--backends embedded,server] [--max-tokens 64] [--gguf PATH] [--work-dir DIR]

``--replicas 1,2`` runs the cluster form instead (issue 23): a throwaway PostgreSQL and a
``chroma run`` server (tests/fixtures/servers.py), the corpus indexed into them once by this
process as the one writer, then R replica processes (this script with ``--replica-worker``),
each with its own empty data dir and nothing shared but the two servers and one LLM
endpoint. Each replica serves S members at once (threads, as Streamlit serves its
sessions) for ``--seconds``: every member signs in (a scoped reader, as the app makes one
per tab) and runs session after session: route, lock, then the answer turn (retrieve,
rerank, the LLM, the support check), whose conversation turn and audit rows (route, lock,
question, answer) go to PostgreSQL as the app's do. The LLM is a stand-in Ollama in this
process that quotes passage [1] at once (tests/fixtures/ollama_stub.py): the replicas'
own cost is measured, not a model's. Reported per (R, S): sessions/s (all completed
sessions over the wall from the common start to the last one's end), p50/p95 per stage
and end to end, errors (a replica that fails counts as one), bleed, the turns and audit
rows PostgreSQL gained, each replica's RSS at the end and its peak, and CPU seconds per
session of the replicas, PostgreSQL, the Chroma server and the stand-in LLM. A worker
exits non-zero on any error or bleed; the JSON is printed whatever failed.

    python benchmarks/concurrency.py --replicas 1,2 --sessions 10,50 [--seconds 30]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack, nullcontext
from pathlib import Path

import numpy as np
from sqlalchemy import func, select

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # tests.fixtures: the throwaway servers and the stand-in LLM

from benchmarks.concurrency_load import answer_session, pick, retrieval_session, run_concurrently, warm  # noqa: E402
from demo.records import demo_records  # noqa: E402
from ingest.sources.jsonl import index_records  # noqa: E402
from mitra.access.policy import Principal  # noqa: E402
from mitra.answer.answerer import build_answerer  # noqa: E402
from mitra.audit import open_audit  # noqa: E402
from mitra.chat.session import Session  # noqa: E402
from mitra.chat.wait import PromptSpeed  # noqa: E402
from mitra.core.settings import Settings, get_settings  # noqa: E402
from mitra.models.embedders import load_embedder  # noqa: E402
from mitra.models.llm import resolve_gguf  # noqa: E402
from mitra.retrieval.pipeline import build_pipeline  # noqa: E402
from mitra.store.conversations import ConversationStore  # noqa: E402
from mitra.store.schema import audit, turns  # noqa: E402
from mitra.store.state import open_engine  # noqa: E402
from tests.fixtures.ollama_stub import OllamaStub, running_stub  # noqa: E402
from tests.fixtures.servers import running_chroma, running_postgres  # noqa: E402

BACKENDS = ("embedded", "server")
RETRIEVAL_STAGES = ("route_ms", "lock_ms", "retrieve_ms", "rerank_ms", "end_to_end_ms")
ANSWER_STAGES = ("route_ms", "lock_ms", "retrieve_ms", "rerank_ms", "first_token_ms", "generate_ms", "end_to_end_ms")
CLUSTER_STAGES = ("route_ms", "lock_ms", "retrieve_ms", "rerank_ms", "generate_ms", "save_ms", "end_to_end_ms")
STUB_MODEL = "stand-in:latest"


def percentiles(values: list[float]) -> dict[str, float | None]:
    if not values:
        return {"p50": None, "p95": None}
    return {"p50": round(float(np.percentile(values, 50)), 1), "p95": round(float(np.percentile(values, 95)), 1)}


def summarise(result: dict, stages: tuple[str, ...]) -> dict:
    rows = result.pop("rows")
    result.pop("window", None)
    result["stages_ms"] = {s.removesuffix("_ms"): percentiles([r[s] for r in rows if r.get(s) is not None])
                           for s in stages}
    if rows and "abstained" in rows[0]:
        result["abstained"] = sum(r["abstained"] for r in rows)
        result["withheld"] = sum(r["withheld"] for r in rows)
    return result


def cell(stages: dict, name: str) -> str:
    s = stages.get(name)
    return "–" if not s or s["p50"] is None else f"{s['p50']:.0f} / {s['p95']:.0f}"


def markdown(report: dict) -> str:
    head = ("| backend | sessions | kind | route p50/p95 | lock p50/p95 | retrieve p50/p95 | rerank p50/p95 "
            "| first token p50/p95 | end to end p50/p95 | errors | bleed |")
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for backend, runs in report["backends"].items():
        for kind in ("retrieval", "answer"):
            for n, r in runs.get(kind, {}).items():
                st = r["stages_ms"]
                lines.append(f"| {backend} | {n} | {kind} | {cell(st, 'route')} | {cell(st, 'lock')} | "
                             f"{cell(st, 'retrieve')} | {cell(st, 'rerank')} | {cell(st, 'first_token')} | "
                             f"{cell(st, 'end_to_end')} | {r['errors']} | {r['bleed']} of {r['passages']} |")
    return "\n".join(lines) + "\n\n(ms; bleed: passages from another analysis than the session's lock, of all served)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", default="1,10,50", help="concurrent sessions (per replica), comma-separated")
    parser.add_argument("--answer-sessions", default="1,4", help="concurrent answering sessions ('' for none)")
    parser.add_argument("--backends", default="embedded,server", help="embedded (PersistentClient), server (chroma run)")
    parser.add_argument("--replicas", default="", help="replica processes, comma-separated: the cluster form instead")
    parser.add_argument("--seconds", type=float, default=30, help="how long each replica serves its members")
    parser.add_argument("--max-tokens", type=int, default=64, help="longest answer")
    parser.add_argument("--context", type=int, default=4096)
    parser.add_argument("--gguf", type=Path, help="a GGUF chat model (default: demo model if assembled, else SmolLM2)")
    parser.add_argument("--work-dir", type=Path, help="where the knowledge bases go (default: a temporary directory)")
    parser.add_argument("--replica-worker", type=int, help=argparse.SUPPRESS)  # this replica's number
    parser.add_argument("--run-dir", type=Path, help=argparse.SUPPRESS)  # where a worker meets its parent
    args = parser.parse_args()
    if args.replica_worker is not None:
        sys.exit(replica_worker(args))
    sessions = [int(n) for n in args.sessions.split(",") if n]
    work = args.work_dir or Path(tempfile.mkdtemp(prefix="mitra-concurrency-"))
    work.mkdir(parents=True, exist_ok=True)
    if args.replicas:
        report = cluster([int(r) for r in args.replicas.split(",") if r], sessions, args.seconds, work)
        print(json.dumps(report, indent=2))
        print(cluster_markdown(report), file=sys.stderr)
        return
    answer_sessions = [int(n) for n in args.answer_sessions.split(",") if n]
    backends = [b for b in args.backends.split(",") if b]
    if unknown := set(backends) - set(BACKENDS):
        parser.error(f"unknown backends {sorted(unknown)}: choose from {', '.join(BACKENDS)}")

    base = Settings(llm_backend="embedded", llm_max_tokens=args.max_tokens, llm_context_tokens=args.context,
                    llm_temperature=0.0, gguf_path=args.gguf)
    embedder = load_embedder(base)  # as the app: questions on ONNX Runtime where the graph verifies
    report: dict = {"machine": machine(), "corpus": "ORION demo corpus (demo/records.py)", "backends": {}}
    answerer = None
    for backend in backends:
        with (running_chroma(work / "chroma-server") if backend == "server" else nullcontext()) as chroma:
            server = {"chroma_host": "127.0.0.1", "chroma_port": chroma.port} if chroma else {}
            settings = base.model_copy(update={"data_dir": work / backend, **server})
            pipeline = build_pipeline(settings, embedder=embedder)
            start = time.perf_counter()
            index_records(pipeline.kb, demo_records())
            report.setdefault("index_s", {})[backend] = round(time.perf_counter() - start, 1)
            report["reranker"] = pipeline.reranker_note
            report["retrieval_system"] = pipeline.retriever.default_system
            print(f"{backend}: indexed; {pipeline.reranker_note}; system {pipeline.retriever.default_system}",
                  file=sys.stderr)
            retrieve = lambda _, a, q, p=pipeline: retrieval_session(p, a, q)  # noqa: E731
            warm(retrieve)
            runs: dict = {"retrieval": {}, "answer": {}}
            for n in sessions:
                runs["retrieval"][str(n)] = summarise(run_concurrently(n, retrieve), RETRIEVAL_STAGES)
                print(f"{backend}: {n} retrieval sessions done", file=sys.stderr)
            if answer_sessions:
                answerer = build_answerer(pipeline) if answerer is None else answerer.for_pipeline(pipeline)
                answer = lambda _, a, q, p=pipeline, m=answerer: answer_session(Session(p, m), a, q)  # noqa: E731
                report.setdefault("model", {**answerer.model_info.model_dump(), "gguf": str(resolve_gguf(settings)),
                                            "max_tokens": args.max_tokens, "context_tokens": args.context})
                if "warmup_s" not in report["model"]:
                    # The model server's one-off costs: the first request, and the first time it
                    # serves k requests at once (tens of seconds here), both paid before measuring.
                    answer(0, *pick(0))
                    report["model"]["warmup_s"] = run_concurrently(max(answer_sessions), answer)["wall_s"]
                for n in answer_sessions:
                    runs["answer"][str(n)] = summarise(run_concurrently(n, answer), ANSWER_STAGES)
                    print(f"{backend}: {n} answering sessions done", file=sys.stderr)
            report["backends"][backend] = runs
    print(json.dumps(report, indent=2))
    print(markdown(report), file=sys.stderr)


def machine() -> dict:
    return {"cpu_cores": os.cpu_count(), "platform": platform.platform(), "python": platform.python_version(),
            "gpu": "none used"}


# ---------------------------------------------------------------- the cluster form: replica processes
def quoting_reply(request: dict) -> str:
    """The stand-in LLM's answer: the start of passage [1], cited, as a good model's would be
    (so the support check passes and the turn is an answer, not a refusal)."""
    prompt = request["messages"][-1]["content"]
    found = re.search(r'<passage n="1"[^>]*>\n(.*?)\n</passage>', prompt, re.S)
    return " ".join(found.group(1).split()[:30]) + " [1]." if found else "No passage was given."


def process_tree(root: int) -> list[int]:
    """``root`` and every process below it (PostgreSQL's backends below the postmaster)."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue  # gone meanwhile
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    tree, todo = [], [root]
    while todo:
        pid = todo.pop()
        tree.append(pid)
        todo.extend(children.get(pid, []))
    return tree


def cpu_s(root: int) -> float:
    """CPU seconds (user + system) the process tree at ``root`` has used, its reaped children's included."""
    total = 0
    for pid in process_tree(root):
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += sum(int(f) for f in fields[11:15])  # utime stime cutime cstime
    return total / os.sysconf("SC_CLK_TCK")


def rss_mb(pid: int | str = "self") -> dict[str, float]:
    """Resident memory now and at its peak, MB (``/proc/PID/status``)."""
    status = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line)
    kb = {name: int(status[field].split()[0]) for name, field in (("rss_mb", "VmRSS"), ("peak_rss_mb", "VmHWM"))}
    return {name: round(value / 1024) for name, value in kb.items()}


def replica_worker(args: argparse.Namespace) -> int:
    """One replica, configured by its MITRA_* environment as the app is: S members each in a
    session loop for ``--seconds`` from the parent's go; its result in ``run-dir``. Exit
    status 1 on any error or bleed."""
    k, members, run = args.replica_worker, int(args.sessions), args.run_dir
    settings = get_settings()
    pipeline = build_pipeline(settings)
    answerer = build_answerer(pipeline)
    trail, conversations, speed = open_audit(settings), ConversationStore.open(settings), PromptSpeed()
    readers = [pipeline.for_principal(Principal(user=f"replica{k}-member{j}")) for j in range(members)]
    answerers = [answerer.for_pipeline(reader) for reader in readers]

    def session(t: int, analysis_id: str, question: str) -> dict:
        """Member ``t``'s next conversation, as the app opens one in a signed-in tab."""
        fresh = Session(readers[t], answerers[t], trail, speed, conversations=conversations)
        return {"replica": k, **answer_session(fresh, analysis_id, question)}

    warm(session)
    (run / f"ready-{k}").touch()
    deadline = time.monotonic() + 600
    while not (run / "go").exists():
        if time.monotonic() > deadline:
            raise TimeoutError("the parent never said go")
        time.sleep(0.01)
    cpu = os.times()
    result = run_concurrently(members, session, args.seconds, first=k, step=int(args.replicas))
    used = os.times()
    result.update(replica=k, cpu_s=round(used.user + used.system - cpu.user - cpu.system, 1),
                  retrieval_system=pipeline.retriever.default_system, reranker=pipeline.reranker_note, **rss_mb())
    (run / f"result-{k}.json").write_text(json.dumps(result))
    return 1 if result["errors"] or result["bleed"] else 0


def state_rows(url: str) -> dict[str, int]:
    """Turns and audit rows in the shared database: what the sessions wrote."""
    with open_engine(url, "heads").connect() as db:
        return {"turns": db.scalar(select(func.count()).select_from(turns)),
                "audit_rows": db.scalar(select(func.count()).select_from(audit))}


def cluster(replicas: list[int], sessions: list[int], seconds: float, work: Path) -> dict:
    """Every (R replicas, S members each) run against one PostgreSQL, one Chroma server and
    one stand-in LLM, after one writer indexed the corpus into them."""
    report: dict = {"machine": machine(), "corpus": "ORION demo corpus (demo/records.py)", "seconds": seconds,
                    "llm": "stand-in Ollama quoting passage [1] (tests/fixtures/ollama_stub.py)", "runs": {}}
    with ExitStack() as stack:
        pg = stack.enter_context(running_postgres())
        chroma = stack.enter_context(running_chroma(work / "chroma-server"))
        llm = stack.enter_context(running_stub(OllamaStub(pulled=[STUB_MODEL], reply=quoting_reply)))
        env = {**os.environ, "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "1"),
               "MITRA_DATABASE_URL": pg.url(), "MITRA_CHROMA_HOST": "127.0.0.1", "MITRA_CHROMA_PORT": str(chroma.port),
               "MITRA_LLM_BACKEND": "ollama", "MITRA_OLLAMA_HOST": llm.url, "MITRA_OLLAMA_MODEL": STUB_MODEL}
        writer = Settings(data_dir=work / "writer", database_url=pg.url(), chroma_host="127.0.0.1",
                          chroma_port=chroma.port)
        start = time.perf_counter()
        index_records(build_pipeline(writer, with_reranker=False).kb, demo_records())
        report["index_s"] = round(time.perf_counter() - start, 1)
        print(f"cluster: indexed in {report['index_s']} s", file=sys.stderr)
        servers = {"postgres": pg.pid, "chroma": chroma.process.pid}
        for r in replicas:
            for s in sessions:
                report["runs"][f"{r}x{s}"] = replica_run(r, s, seconds, work / f"run-{r}x{s}", env, servers, pg.url())
                print(f"cluster: {r} replicas x {s} sessions done", file=sys.stderr)
        report["chroma_rss_mb"] = rss_mb(chroma.process.pid)
    return report


def replica_run(replicas: int, members: int, seconds: float, run: Path, env: dict, servers: dict[str, int],
                url: str) -> dict:
    """R worker processes with empty data dirs, released together; their results combined."""
    run.mkdir(parents=True)
    workers = []
    for k in range(replicas):
        command = [sys.executable, str(Path(__file__).resolve()), "--replica-worker", str(k), "--replicas",
                   str(replicas), "--sessions", str(members), "--seconds", str(seconds), "--run-dir", str(run)]
        with (run / f"replica-{k}.log").open("w") as log:
            workers.append((subprocess.Popen(command, env={**env, "MITRA_DATA_DIR": str(run / f"data-{k}")},
                                             stdout=log, stderr=subprocess.STDOUT), time.perf_counter()))
    startup_s: dict[int, float] = {}
    deadline = time.monotonic() + 600
    while len(startup_s) < replicas and time.monotonic() < deadline:
        for k, (worker, spawned) in enumerate(workers):
            if k not in startup_s and ((run / f"ready-{k}").exists() or worker.poll() is not None):
                startup_s[k] = round(time.perf_counter() - spawned, 1)
        time.sleep(0.1)
    load_before = os.getloadavg()
    before = {name: cpu_s(pid) for name, pid in servers.items()}
    before["llm_stub"] = sum(os.times()[:2])
    rows_before = state_rows(url)
    (run / "go").touch()
    for worker, _ in workers:
        try:
            worker.wait(timeout=seconds + 600)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait()
    cpu = {name: cpu_s(pid) - before[name] for name, pid in servers.items()}
    cpu["llm_stub"] = sum(os.times()[:2]) - before["llm_stub"]
    rows_after = state_rows(url)

    results, failures = [], []
    for k, (worker, _) in enumerate(workers):
        found = run / f"result-{k}.json"
        if found.exists():
            results.append(json.loads(found.read_text()))
        if worker.returncode != 0:
            tail = (run / f"replica-{k}.log").read_text()[-1500:]
            failures.append({"replica": k, "exit_status": worker.returncode, "log_tail": tail})
    rows = [row for result in results for row in result["rows"]]
    windows = [result["window"] for result in results]
    wall_s = max(w[1] for w in windows) - min(w[0] for w in windows) if windows else None
    errors = sum(result["errors"] for result in results) + replicas - len(results)  # a failed replica: one
    saved = {name: rows_after[name] - rows_before[name] for name in rows_after}
    samples = [sample for result in results for sample in result["error_samples"]]
    if saved["turns"] != len(rows):  # every completed session saved exactly one turn
        errors += 1
        samples.append(f"{len(rows)} sessions completed but PostgreSQL gained {saved['turns']} turns")
    cpu["replicas"] = sum(result["cpu_s"] for result in results)
    return summarise({
        "replicas": replicas, "sessions_per_replica": members, "completed": len(rows),
        "wall_s": round(wall_s, 2) if wall_s else None,
        "sessions_per_s": round(len(rows) / wall_s, 2) if wall_s else 0.0,
        "errors": errors, "error_samples": sorted(set(samples))[:5], "failed_replicas": failures,
        "passages": sum(r["passages"] for r in rows), "bleed": sum(r["bleed"] for r in rows), "rows": rows,
        "saved": saved,
        "cpu_ms_per_session": {name: round(1000 * used / len(rows), 1) if rows else None for name, used in cpu.items()},
        "load_average_before": [round(x, 2) for x in load_before],
        "per_replica": [{"replica": result["replica"], "completed": result["completed"],
                         "sessions_per_s": result["sessions_per_s"], "errors": result["errors"],
                         "startup_s": startup_s.get(result["replica"]), "cpu_s": result["cpu_s"],
                         "rss_mb": result["rss_mb"], "peak_rss_mb": result["peak_rss_mb"]} for result in results],
        "retrieval_system": results[0]["retrieval_system"] if results else None,
        "reranker": results[0]["reranker"] if results else None,
    }, CLUSTER_STAGES)


def cluster_markdown(report: dict) -> str:
    head = ("| replicas | sessions each | sessions/s | route p50/p95 | retrieve p50/p95 | save p50/p95 "
            "| end to end p50/p95 | errors | bleed | RSS per replica (MB) "
            "| CPU ms/session: replicas, PostgreSQL, Chroma |")
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for r in report["runs"].values():
        st, cpu = r["stages_ms"], r["cpu_ms_per_session"]
        rss = ", ".join(str(p["rss_mb"]) for p in r["per_replica"])
        lines.append(f"| {r['replicas']} | {r['sessions_per_replica']} | {r['sessions_per_s']} | "
                     f"{cell(st, 'route')} | {cell(st, 'retrieve')} | {cell(st, 'save')} | {cell(st, 'end_to_end')} | "
                     f"{r['errors']} | {r['bleed']} of {r['passages']} | {rss} | "
                     f"{cpu['replicas']}, {cpu['postgres']}, {cpu['chroma']} |")
    return "\n".join(lines) + "\n\n(ms; bleed: passages from another analysis than the session's lock, of all served)"


if __name__ == "__main__":
    main()
