"""The brief in the cluster form: a replica with an empty data dir reads the brief the writer
kept in PostgreSQL, and a member it may not show an analysis to gets the missing-analysis error."""

from __future__ import annotations

import json
import os
import subprocess

from ingest.sources.jsonl import index_jsonl
from mitra.core.settings import Settings
from mitra.retrieval.pipeline import build_pipeline
from tests.conftest import REPO
from tests.fixtures.samples import ANALYSES, GROUPS_POLICY, write_jsonl

MITRA = str(REPO / ".venv" / "bin" / "mitra")


def test_a_replica_reads_the_brief_from_postgres_and_never_a_forbidden_one(postgres_url, chroma_server, tmp_path,
                                                                            embedder):
    writer = build_pipeline(Settings(_env_file=None, data_dir=tmp_path / "A", database_url=postgres_url,
                                     chroma_host="127.0.0.1", chroma_port=chroma_server, reranker="none"),
                            embedder=embedder, with_reranker=False)
    index_jsonl(writer.kb, write_jsonl(tmp_path / "analyses.jsonl", ANALYSES))
    assert not (tmp_path / "A" / "briefs").exists()  # kept in the database, not on the writer's disk
    (tmp_path / "access.yaml").write_text("admins: [mitra-admins]" + GROUPS_POLICY)
    env = {**os.environ, "MITRA_DATABASE_URL": postgres_url, "MITRA_CHROMA_HOST": "127.0.0.1",
           "MITRA_CHROMA_PORT": str(chroma_server), "MITRA_RERANKER": "none", "MITRA_DATA_DIR": str(tmp_path / "B")}

    def mitra(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
        return subprocess.run([MITRA, *args], env=env, input=stdin, capture_output=True, text=True, timeout=300)

    served = mitra("brief", "HIG-24-001", "--json")
    assert served.returncode == 0, served.stderr
    assert json.loads(served.stdout)["analysis_id"] == "HIG-24-001"
    assert mitra("policy", "import", str(tmp_path / "access.yaml")).returncode == 0  # the cluster's, in PostgreSQL
    assert mitra("users", "add", "alice", "--groups", "exo", "--password-stdin", stdin="correct horse battery\n"
                 ).returncode == 0
    forbidden, missing = mitra("--as", "alice", "brief", "HIG-24-001"), mitra("--as", "alice", "brief", "HIG-99-999")
    assert forbidden.returncode == missing.returncode == 2
    assert forbidden.stderr.replace("HIG-24-001", "X") == missing.stderr.replace("HIG-99-999", "X")
    assert mitra("--as", "alice", "brief", "EXO-24-002", "--json").returncode == 0
