"""Replicas that share no disk (the cluster form): a real PostgreSQL and a real ``chroma run``
server; one writer indexes with its own data dir, and ``mitra`` processes with other, empty
data dirs serve the same knowledge base (``pytest -k replica``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from ingest.sources.jsonl import index_jsonl
from mitra.core.settings import Settings
from mitra.retrieval.pipeline import build_pipeline
from mitra.retrieval.search import SearchRequest, run_search
from mitra.store.bm25 import BM25Index
from mitra.store.evidence_files import EvidenceFiles
from mitra.store.index_files import BlobIndexFiles
from mitra.store.lock import WriterBusy, writer_lock
from tests.conftest import OLLAMA_MODEL, REPO
from tests.fixtures.samples import ANALYSES, write_jsonl
from tests.unit.store.test_evidence_index import CURRENT, SMALL, _source

MITRA = [str(REPO / ".venv" / "bin" / "mitra")]
QUESTION = "What is the dominant background in the dimuon Higgs search?"

@pytest.fixture
def cluster(postgres_url, chroma_server, ollama_stub) -> dict[str, str]:
    """The environment of the cluster form, less the data dir; the LLM is the Ollama stand-in."""
    return {**os.environ, "MITRA_DATABASE_URL": postgres_url, "MITRA_CHROMA_HOST": "127.0.0.1",
            "MITRA_CHROMA_PORT": str(chroma_server), "MITRA_RERANKER": "none", "OMP_NUM_THREADS": "1",
            "MITRA_LLM_BACKEND": "ollama", "MITRA_OLLAMA_HOST": ollama_stub.url, "MITRA_OLLAMA_MODEL": OLLAMA_MODEL}


def _settings(cluster: dict[str, str], data_dir: Path, **overrides) -> Settings:
    return Settings(_env_file=None, data_dir=data_dir, database_url=cluster["MITRA_DATABASE_URL"],
                    chroma_host="127.0.0.1", chroma_port=int(cluster["MITRA_CHROMA_PORT"]), reranker="none",
                    **overrides)


def _mitra(env: dict[str, str], data_dir: Path, *args: str) -> subprocess.Popen:
    return subprocess.Popen([*MITRA, *args], env={**env, "MITRA_DATA_DIR": str(data_dir)}, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _output(run: subprocess.Popen) -> str:
    out, err = run.communicate(timeout=300)
    assert run.returncode == 0, err
    return out


def _hybrid(pipeline, query: str) -> list[str]:
    row = run_search(pipeline, SearchRequest(qid="q", query=query, analysis_id="HIG-24-001"), system="hybrid", k=3)
    return [hit["text"] for hit in row["hits"]]


def test_replicas_with_empty_data_dirs_serve_what_one_writer_indexed(cluster, tmp_path, embedder, ollama_stub):
    # The writer (this process, data dir A) indexes; it keeps no index files of its own.
    writer = build_pipeline(_settings(cluster, tmp_path / "A"), embedder=embedder, with_reranker=False)
    index_jsonl(writer.kb, write_jsonl(tmp_path / "analyses.jsonl", ANALYSES))
    assert not list((tmp_path / "A").glob("bm25/*")) and not list((tmp_path / "A").glob("dense/*"))

    commands = [("route", QUESTION, "--json"),
                ("search", QUESTION, "--analysis", "HIG-24-001", "--system", "hybrid", "--json"),
                ("stats", "--json"),
                ("ask", QUESTION, "--analysis", "HIG-24-001", "--json")]
    runs = {replica: [_mitra(cluster, tmp_path / replica, *c) for c in commands] for replica in ("B", "C")}
    seen = {replica: [json.loads(_output(run)) for run in replica_runs] for replica, replica_runs in runs.items()}
    for answers in seen.values():
        answers[1].pop("timings_ms")  # how long this process took
        answers[3].pop("timings_ms")
    assert seen["B"] == seen["C"]
    route, search, stats, answer = seen["B"]
    assert route["candidates"][0]["analysis_id"] == "HIG-24-001"
    assert any("Drell-Yan" in hit["text"] for hit in search["hits"])
    assert stats["analyses"] == len(ANALYSES) and "data_dir" not in stats
    assert len(ollama_stub.chats) == 2 and ollama_stub.chats[0] == ollama_stub.chats[1]  # the same prompt
    assert "Drell-Yan" in json.dumps(ollama_stub.chats[0])

    # A reader that stays up (data dir D) serves the writer's next generation within seconds.
    reader = build_pipeline(_settings(cluster, tmp_path / "D"), embedder=embedder, with_reranker=False)
    assert not any("quasar" in text for text in _hybrid(reader, "quasar background"))
    changed = json.loads(json.dumps(ANALYSES))
    changed[0]["documents"][0]["text"] += "\n\n# Cross-checks\nA quasar background was ruled out by timing."
    changed[0]["documents"][0]["version"] = "2"
    index_jsonl(writer.kb, write_jsonl(tmp_path / "changed.jsonl", changed))
    published = time.monotonic()
    while not any("quasar" in text for text in _hybrid(reader, "quasar background")):
        assert time.monotonic() - published < 5, "the reader still serves the old generation"
        time.sleep(0.2)


def test_replica_cache_follows_the_blobs(postgres_url, tmp_path):
    writer = BlobIndexFiles(Settings(_env_file=None, data_dir=tmp_path / "A", database_url=postgres_url))
    reader = BlobIndexFiles(Settings(_env_file=None, data_dir=tmp_path / "B", database_url=postgres_url))

    def save(name: str, text: str) -> None:
        writer.save("bm25", name, BM25Index.build(["c1"], [text]).write)

    save("ft-x-g1", "muon")
    first = reader.directory("bm25", "ft-x-g1")
    assert BM25Index.load(first).search("muon", 1)[0][0] == "c1"
    assert reader.directory("bm25", "ft-x-g1") == first  # cached: unpacked once per stamp
    save("ft-x-g1", "photon")  # saved again: a new stamp
    assert BM25Index.load(reader.directory("bm25", "ft-x-g1")).search("photon", 1) and not first.exists()
    writer.delete("bm25", "ft-x-g1")  # the writer collected the generation
    save("ft-x-g2", "tau")
    reader.directory("bm25", "ft-x-g2")
    assert [p.name for p in (tmp_path / "B" / "index-cache" / "bm25").iterdir()] == ["ft-x-g2"]

    # The app's sessions (threads) meeting a new generation together each get it whole.
    save("ft-x-g2", "kaon")
    with ThreadPoolExecutor(8) as pool:
        places = list(pool.map(lambda _: reader.directory("bm25", "ft-x-g2"), range(8)))
    assert len(set(places)) == 1 and BM25Index.load(places[0]).search("kaon", 1)


def test_a_writer_reads_back_what_it_saved_without_fetching_it(postgres_url, tmp_path, monkeypatch):
    """A writer reads back the BM25 term counts and evidence segments it has just saved: kept
    in its cache as written, they are not fetched again (862 MB of segments at 5,000
    analyses). Other kinds are not kept, and other data dirs fetch everything."""
    from mitra.store import index_files

    writer = BlobIndexFiles(Settings(_env_file=None, data_dir=tmp_path / "A", database_url=postgres_url))
    reader = BlobIndexFiles(Settings(_env_file=None, data_dir=tmp_path / "B", database_url=postgres_url))
    unpacked: list[Path] = []
    unpack = index_files._unpack
    monkeypatch.setattr(index_files, "_unpack", lambda data, directory: (unpacked.append(directory),
                                                                         unpack(data, directory)))

    def dense(directory: Path) -> None:
        directory.mkdir()
        (directory / "ids.json").write_text("[]")

    for text in ("muon", "photon"):  # saved, then saved again under a new stamp
        writer.save("bm25", "ft-x-g1", BM25Index.build(["c1"], [text]).write)
        assert BM25Index.load(writer.directory("bm25", "ft-x-g1")).search(text, 1)[0][0] == "c1"
    assert unpacked == [] and len(list((tmp_path / "A" / "index-cache" / "bm25" / "ft-x-g1").iterdir())) == 1
    writer.save("dense", "ft-x-g1", dense)
    assert (writer.directory("dense", "ft-x-g1") / "ids.json").exists() and len(unpacked) == 1
    assert BM25Index.load(reader.directory("bm25", "ft-x-g1")).search("photon", 1)[0][0] == "c1"
    assert len(unpacked) == 2


def test_replicas_read_the_evidence_segments_the_writer_stores_in_postgres(postgres_url, tmp_path):
    """The evidence index's state and segments as blobs: a replica with its own data dir
    routes as the writer does, and follows a re-indexed analysis by the state's stamp."""
    writer = EvidenceFiles(BlobIndexFiles(Settings(_env_file=None, data_dir=tmp_path / "A", database_url=postgres_url)))
    reader = EvidenceFiles(BlobIndexFiles(Settings(_env_file=None, data_dir=tmp_path / "B", database_url=postgres_url)))
    generations = dict(SMALL)
    writer.update(CURRENT, _source(generations), "section")
    question = ["dscr", "filter", "set"]
    assert reader.index().view(CURRENT).search(question, 3, 100) == writer.index().view(CURRENT).search(question, 3, 100)
    generations["ft-z-g2"] = [("d@2#Intro", ["kaon", "mass"])]  # X-3 re-indexed without the filter section
    current = {**CURRENT, "X-3": "ft-z-g2"}
    writer.update(current, _source(generations), "section")
    assert "X-3" not in [a for a, _ in reader.index().view(current).search(question, 3, 100)]
    assert reader.index().view(current).search(["kaon"], 3, 100)[0][0] == "X-3"


_HOLDER = """
import sys
from mitra.core.settings import get_settings
from mitra.store.lock import writer_lock
with writer_lock(get_settings(), "replica-holder"):
    print("held", flush=True)
    sys.stdin.readline()
"""


def test_replica_writers_exclude_each_other_through_the_database(cluster, tmp_path):
    holder = subprocess.Popen([sys.executable, "-c", _HOLDER], env={**cluster, "MITRA_DATA_DIR": str(tmp_path / "A")},
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        settings = _settings(cluster, tmp_path / "B", lock_timeout_s=1)
        told = []
        with pytest.raises(WriterBusy, match=rf"replica-holder run started at .* by PID {holder.pid} on "):
            with writer_lock(settings, "index-jsonl", told.append):
                pass
        assert told and "waiting for the replica-holder run started at" in told[0]
    finally:
        holder.stdin.close()
        holder.wait(timeout=30)
    with writer_lock(settings, "index-jsonl"):  # released with its holder
        pass


def test_an_indexer_killed_mid_run_leaves_the_replicas_on_the_previous_generation(cluster, tmp_path, embedder):
    writer = build_pipeline(_settings(cluster, tmp_path / "A"), embedder=embedder, with_reranker=False)
    index_jsonl(writer.kb, write_jsonl(tmp_path / "analyses.jsonl", ANALYSES))
    reader = build_pipeline(_settings(cluster, tmp_path / "D"), embedder=embedder, with_reranker=False)
    served = _hybrid(reader, "quasar background")
    changed = json.loads(json.dumps(ANALYSES))
    changed[0]["documents"][0]["text"] += "\n\n# Cross-checks\nA quasar background was ruled out by timing."
    changed[0]["documents"][0]["version"] = "2"
    update = write_jsonl(tmp_path / "changed.jsonl", changed)

    # Killed once the new generation's passages and index blobs are written, before the commit.
    killed = _mitra({**cluster, "MITRA_KILL_AT": "index.written"}, tmp_path / "A", "index-jsonl", str(update))
    assert killed.wait(timeout=300) == -9
    assert _hybrid(reader, "quasar background") == served  # the reader that stayed up
    fresh = json.loads(_output(_mitra(cluster, tmp_path / "E", "search", "quasar background", "--analysis",
                                      "HIG-24-001", "--system", "hybrid", "--json")))
    assert [hit["text"] for hit in fresh["hits"]][:3] == served  # a replica started since

    # The killed run's advisory lock went with its connection: the next run publishes.
    _output(_mitra(cluster, tmp_path / "A", "index-jsonl", str(update)))
    published = time.monotonic()
    while not any("quasar" in text for text in _hybrid(reader, "quasar background")):
        assert time.monotonic() - published < 5, "the reader still serves the old generation"
        time.sleep(0.2)


def test_a_writer_killed_mid_save_leaves_nothing_behind_after_the_next_run(cluster, tmp_path, embedder):
    corpus = write_jsonl(tmp_path / "analyses.jsonl", ANALYSES)
    killed = _mitra({**cluster, "MITRA_KILL_AT": "index.saving"}, tmp_path / "A", "index-jsonl", str(corpus))
    assert killed.wait(timeout=300) == -9
    cache = tmp_path / "A" / "index-cache"
    assert list(cache.glob("mitra-index-*"))  # the save in progress: a fresh name that no retry reuses

    writer = build_pipeline(_settings(cluster, tmp_path / "A"), embedder=embedder, with_reranker=False)
    index_jsonl(writer.kb, corpus)
    assert not list(cache.glob("mitra-index-*"))


def test_the_adapted_reranker_published_by_the_writer_is_the_one_every_replica_reads(cluster, tmp_path, embedder):
    """`mitra adapt` runs once, where the writer runs; replicas with empty data dirs load its
    model from PostgreSQL (a checkpoint of the packaged encoder stands in for a trained one)."""
    import shutil

    import numpy as np

    from mitra.models.adapted import AdaptManifest, HeldoutScores, publish
    from mitra.models.embedders import resolve_model_path
    from mitra.store.index_files import share_model

    writer = _settings(cluster, tmp_path / "A")
    model = writer.models_dir / "adapted-test"
    shutil.copytree(resolve_model_path("all-MiniLM-L6-v2"), model)
    np.save(model / "passages.npy", np.zeros((0, 384), np.float16))
    (model / "passages.json").write_text("[]")
    manifest = AdaptManifest(
        model_dir=model.name, base_model="all-MiniLM-L6-v2", max_length=256, created_at="2026-11-25T00:00:00",
        corpus={"analyses": 3, "passages": 12, "snapshot": "s"}, pseudo_queries={}, llm="none", steps=1,
        heldout=HeldoutScores(queries=20, fusion_mrr=0.5, adapted_mrr=0.6, gain_ci95=(0.01, 0.2), weight=0.5,
                              checkpoint="c"),
        enabled=True, reason="beats fusion", seconds={})
    publish(writer, manifest)
    share_model(writer, model)

    replica = build_pipeline(_settings(cluster, tmp_path / "B"), embedder=embedder, with_reranker=True)
    assert replica.adapted_note == manifest.summary()
    assert replica.retriever.adapted is not None and replica.retriever.adapted.name == f"adapted:{model.name}"
    stats = json.loads(_output(_mitra(cluster, tmp_path / "C", "stats", "--json")))
    assert stats["adapted"]["model_dir"] == model.name
