"""MCP in the cluster form (``pytest -k replica``): two ``mitra mcp --http`` replicas with
empty data dirs of their own on one real PostgreSQL and one ``chroma run`` server, as the
compose file runs them behind its front. A token issued once reads on both, answers the
same, is refused by both once revoked, and both write one audit trail."""

from __future__ import annotations

import json

import anyio
import httpx

from ingest.sources.jsonl import index_jsonl
from mitra.core.settings import Settings
from mitra.retrieval.pipeline import build_pipeline
from tests.conftest import closed_port
from tests.fixtures.mcp import PASSWORD, http, http_server, issue, mitra
from tests.fixtures.samples import ANALYSES, write_jsonl

QUERY = "What is the dominant background?"


def test_mcp_replicas_share_tokens_the_knowledge_base_and_the_audit_trail(postgres_url, chroma_server, tmp_path,
                                                                          embedder):
    cluster = {"MITRA_DATABASE_URL": postgres_url, "MITRA_CHROMA_HOST": "127.0.0.1",
               "MITRA_CHROMA_PORT": str(chroma_server), "MITRA_RERANKER": "none", "OMP_NUM_THREADS": "1"}
    writer = build_pipeline(Settings(_env_file=None, data_dir=tmp_path / "writer", database_url=postgres_url,
                                     chroma_host="127.0.0.1", chroma_port=chroma_server, reranker="none"),
                            embedder=embedder, with_reranker=False)
    index_jsonl(writer.kb, write_jsonl(tmp_path / "analyses.jsonl", ANALYSES))
    admin = {**cluster, "MITRA_DATA_DIR": str(tmp_path / "admin")}
    mitra(admin, "users", "add", "alice", "--groups", "exo", "--password-stdin", input=PASSWORD + "\n")
    token_id, token = issue(admin, "alice")

    async def searched(url: str) -> list[dict]:
        async with http(url, token) as client:
            result = await client.call_tool("search", {"analysis": "EXO-24-002", "query": QUERY, "k": 3})
            assert not result.is_error, result.content[0].text
            return result.structured_content["hits"]

    replicas = [{**cluster, "MITRA_DATA_DIR": str(tmp_path / name)} for name in ("mcp1", "mcp2")]
    with http_server(replicas[0], tmp_path / "mcp1.log", closed_port()) as first, \
            http_server(replicas[1], tmp_path / "mcp2.log", closed_port()) as second:
        hits = [anyio.run(searched, url) for url in (first, second)]
        assert hits[0] == hits[1] and "Z(nunu)+jets" in hits[0][0]["text"]
        mitra(admin, "users", "token", "revoke", token_id)
        for url in (first, second):
            refused = httpx.post(f"{url}/mcp", timeout=30, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                                 headers={"Authorization": f"Bearer {token}",
                                          "Accept": "application/json, text/event-stream"})
            assert refused.status_code == 401
    rows = [json.loads(line) for line in mitra(admin, "audit", "--event", "tool", "--json").splitlines()]
    assert [(r["user"], r["tool"], r["via"], r["chunks"]) for r in rows] == \
        [("alice", "search", "token", [h["chunk_id"] for h in hits[0]])] * 2
