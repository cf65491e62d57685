"""``mitra mcp`` driven by the official SDK's client, over stdio (the server started by the
client, as an editor starts it) and over streamable HTTP (a server process on 127.0.0.1):
every tool and resource; a member with one group never receives another analysis's
passage, guessed ids included; no anonymous call, a revoked or forged token refused, OIDC
tokens of a real provider (``oidc-provider-mock``) accepted; limits and bad input as one
line of MCP error; the audit trail has a row for every call; ``ask`` returns exactly what
``mitra ask --json`` prints. The sample analyses, the Ollama stub answering."""

from __future__ import annotations

import json

import anyio
import httpx
import pytest
from mcp.shared.exceptions import MCPError

from mitra.core.settings import Settings
from mitra.store.knowledge_base import KnowledgeBase
from tests.conftest import OLLAMA_MODEL, closed_port
from tests.fixtures.mcp import http, http_server, issue, member_kb, mitra, stdio
from tests.fixtures.ollama_stub import OllamaStub, running_stub
from tests.fixtures.servers import running_oidc_provider

QUESTION = "What is the dominant background?"
HIGGS = "What is the dominant background in the dimuon Higgs search?"
ANSWER = "Z(nunu)+jets is the dominant background [1]."
RATE = 40  # calls a minute per token: more than one member's whole round of calls below


@pytest.fixture(scope="module")
def stub():
    with running_stub(OllamaStub(pulled=[OLLAMA_MODEL], reply=lambda request: ANSWER)) as running:
        yield running


@pytest.fixture(scope="module")
def oidc_provider(tmp_path_factory):
    """A real OIDC provider process with alice (group exo) predefined."""
    alice = {"sub": "alice", "email": "alice@orion.example", "groups": ["exo"]}
    with running_oidc_provider(tmp_path_factory.mktemp("oidc") / "oidc.log", alice) as url:
        yield url


@pytest.fixture(scope="module")
def env(app_data_dir, tmp_path_factory, stub, oidc_provider):
    return member_kb(app_data_dir, tmp_path_factory.mktemp("mcp"), llm_backend="ollama", ollama_host=stub.url,
                     relevance_floor_dense=0.4, mcp_calls_per_minute=RATE, mcp_max_k=20,
                     mcp_oidc_metadata_url=f"{oidc_provider}/.well-known/openid-configuration",
                     mcp_oidc_audience="mitra-tests")


@pytest.fixture(scope="module")
def server(env, tmp_path_factory):
    with http_server(env, tmp_path_factory.mktemp("mcp-http") / "server.log", closed_port()) as url:
        yield url


@pytest.fixture(scope="module")
def higgs_passages(env) -> list[str]:
    """The Higgs analysis's real passage ids, read past the policy: what a guesser would need."""
    kb = KnowledgeBase(Settings(_env_file=None, data_dir=env["MITRA_DATA_DIR"], reranker="none"))
    return [c.id for c in kb.chunks("HIG-24-001")]


@pytest.fixture(scope="module")
def asked_by_cli(env) -> dict:
    """``mitra ask --json`` as alice, without its timings: what the ask tool must return."""
    asked = json.loads(mitra(env, "--as", "alice", "ask", "--analysis", "EXO-24-002", QUESTION, "--json"))
    return {k: v for k, v in asked.items() if k != "timings_ms"}


def _audit(env) -> list[dict]:
    return [json.loads(line) for line in mitra(env, "audit", "--event", "tool", "--json").splitlines()]


def _data(result) -> dict:
    assert not result.is_error, result.content[0].text
    assert json.loads(result.content[0].text) == result.structured_content
    return result.structured_content


def _refused(result, *words: str) -> str:
    """A refusal: one line of tool error naming ``words``, no traceback."""
    text = result.content[0].text
    assert result.is_error and "Traceback" not in text and "\n" not in text and all(w in text for w in words), text
    return text


def _served_ids(value) -> set[str]:
    """Every passage id anywhere in a result."""
    if isinstance(value, dict):
        return {v for k, v in value.items() if k == "chunk_id"} | {i for v in value.values() for i in _served_ids(v)}
    if isinstance(value, list):
        return {i for v in value for i in _served_ids(v)}
    return set()


async def _every_tool(client, higgs_passages: list[str]) -> dict:
    """Every tool and resource as alice (group exo), her refusals included; the results by name."""
    got = {}
    listed = _data(await client.call_tool("list_analyses", {}))
    assert [a["analysis_id"] for a in listed["analyses"]] == ["EXO-24-002", "SMP-24-003"]
    assert listed["analyses"][0]["documents"][0] | {"doc_id": "AN-2024-002", "version": "1"} == \
        listed["analyses"][0]["documents"][0]
    routed = _data(await client.call_tool("find_analysis", {"question": HIGGS}))
    assert routed["candidates"] and "HIG-24-001" not in [c["analysis_id"] for c in routed["candidates"]]
    assert all(c["reason"].startswith(("strong match", "weak match")) for c in routed["candidates"])
    found = _data(await client.call_tool("search", {"analysis": "EXO-24-002", "query": QUESTION, "k": 3}))
    assert len(found["hits"]) == 3 and "Z(nunu)+jets" in found["hits"][0]["text"]
    got["search"] = found
    first = found["hits"][0]["chunk_id"]
    read = _data(await client.call_tool("read_passage", {"id": first, "neighbours": 1}))
    assert read["passage"]["chunk_id"] == first and read["analysis_id"] == "EXO-24-002"
    assert read["place"]["document"]["doc_id"] == "AN-2024-002" and read["place"]["of"] >= read["place"]["paragraph"]
    assert len(read["before"]) + len(read["after"]) >= 1
    got["ask"] = _data(await client.call_tool("ask", {"analysis": "EXO-24-002", "question": QUESTION}))
    assert got["ask"]["answer"] == ANSWER and got["ask"]["citations"]
    got["brief"] = _data(await client.call_tool("brief", {"analysis": "EXO-24-002"}))
    assert got["brief"]["analysis_id"] == "EXO-24-002" and got["brief"]["values"]

    # scoping: the Higgs analysis reads exactly like one that does not exist, its ids guessed or not
    for tool, args in (("search", {"analysis": "{}", "query": QUESTION}), ("ask", {"analysis": "{}", "question": HIGGS}),
                       ("brief", {"analysis": "{}"})):
        forbidden = _refused(await client.call_tool(tool, {k: v.format("HIG-24-001") for k, v in args.items()}))
        missing = _refused(await client.call_tool(tool, {k: v.format("HIG-99-999") for k, v in args.items()}))
        assert forbidden == missing.replace("HIG-99-999", "HIG-24-001")
    for guessed in [*higgs_passages, higgs_passages[0] + "x"]:
        _refused(await client.call_tool("read_passage", {"id": guessed}), "no passage")
        _refused(await client.call_tool("read_passage", {"id": guessed, "analysis": "HIG-24-001"}), "no passage")
    routed_away = _data(await client.call_tool("search", {"query": HIGGS}))  # routed among hers only
    assert routed_away["analysis_id"] != "HIG-24-001"
    resources = await client.list_resources()
    assert {str(r.uri) for r in resources.resources} == {
        "mitra://analyses", "mitra://analyses/EXO-24-002", "mitra://analyses/SMP-24-003"}
    document = await client.read_resource("mitra://analyses/EXO-24-002/documents/AN-2024-002")
    assert "> The dominant background is Z boson production" in document.contents[0].text
    for uri in ("mitra://analyses/HIG-24-001", "mitra://analyses/HIG-24-001/documents/AN-2024-001"):
        with pytest.raises(MCPError) as refused:
            await client.read_resource(uri)
        assert "HIG-24-001" in str(refused.value) and "Traceback" not in str(refused.value)
    got["results"] = [listed, routed, found, read, got["ask"], got["brief"], routed_away]

    # hostile input: one line each, nothing read
    _refused(await client.call_tool("search", {"analysis": "EXO-24-002", "query": QUESTION, "k": 10**9}), "mcp_max_k")
    _refused(await client.call_tool("search", {"analysis": "EXO-24-002", "query": QUESTION, "k": 0}), "k=0")
    _refused(await client.call_tool("ask", {"analysis": "EXO-24-002", "question": "why? " * 5000}),
             "mcp_max_question_chars")
    _refused(await client.call_tool("find_analysis", {"question": "   "}), "empty")
    _refused(await client.call_tool("read_passage", {"id": first, "neighbours": 99}), "neighbours=99")
    _refused(await client.call_tool("search", {"analysis": "EXO-24-002", "query": QUESTION, "k": "many"}), "k")
    _refused(await client.call_tool("no_such_tool", {}), "no_such_tool")
    return got


def test_a_member_over_stdio_reads_and_asks_only_her_analyses_and_every_call_is_audited(env, stub, higgs_passages,
                                                                                         asked_by_cli):
    before = len(stub.chats)

    async def session():
        async with stdio(env, "alice") as client:
            tools = await client.list_tools()
            assert {t.name for t in tools.tools} == {"list_analyses", "find_analysis", "search", "ask", "read_passage",
                                                     "brief"}
            assert all(len(t.description) > 80 for t in tools.tools)  # each says when to use it
            return await _every_tool(client, higgs_passages)

    got = anyio.run(session)
    assert len(stub.chats) == before + 1  # only her own question reached the model: refusals ask nothing
    assert not any(i in higgs_passages for r in got["results"] for i in _served_ids(r))
    assert got["search"]["hits"] == json.loads(mitra(env, "--as", "alice", "search", "--analysis", "EXO-24-002", QUESTION,
                                                     "--k", "3", "--json"))["hits"]
    assert {k: v for k, v in got["ask"].items() if k != "timings_ms"} == asked_by_cli
    assert got["brief"] == json.loads(mitra(env, "--as", "alice", "brief", "EXO-24-002", "--json"))

    rows = [r for r in _audit(env) if r["via"] == "stdio"]
    tools = [r["tool"] for r in rows]
    # every call: 6 reads + 6 refused + 2 per guessed id + the routed search + 4 resources + 7 hostile (two of
    # which the SDK refuses before any tool runs: a wrong argument type, an unknown tool)
    assert len(rows) == 6 + 6 + 2 * (len(higgs_passages) + 1) + 1 + 4 + 7, tools
    assert [r["args"] for r in rows if r["tool"] == "no_such_tool"] == [{}]
    long = [r for r in rows if "mcp_max_question_chars" in r.get("error", "")]
    assert len(long) == 1 and len(long[0]["args"]["question"]) == 2001  # cut at the limit in the trail too
    assert all(r["user"] == "alice" for r in rows)
    served = [r for r in rows if r["tool"] == "search" and r.get("chunks")][0]
    assert served["chunks"] == [h["chunk_id"] for h in got["search"]["hits"]] and served["analysis"] == "EXO-24-002"
    assert served["question"] == QUESTION and served["args"]["k"] == 3
    assert [r["error"] for r in rows if r["tool"] == "ask" and r.get("error")][0].startswith("No analysis 'HIG-24-001'")
    shown = mitra(env, "audit", "--user", "alice", "--event", "tool")
    assert "tool" in shown and "alice" in shown


def test_http_needs_a_live_token_and_reads_as_its_member(env, server, higgs_passages, asked_by_cli):
    alice_id, alice = issue(env, "alice")
    _, bob = issue(env, "bob")
    revoked_id, revoked = issue(env, "alice")
    mitra(env, "users", "token", "revoke", revoked_id)
    hello = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "curl", "version": "1"}}}
    headers = {"Accept": "application/json, text/event-stream"}
    for token in (None, revoked, "mitra_0000_forged", "eyJhbGciOiJub25lIn0.eyJzdWIiOiJhbGljZSJ9."):
        sent = {**headers, **({"Authorization": f"Bearer {token}"} if token else {})}
        assert httpx.post(f"{server}/mcp", json=hello, headers=sent, timeout=30).status_code == 401

    async def calls():
        async with http(server, alice) as client:
            got = await _every_tool(client, higgs_passages)
        async with http(server, bob) as client:
            bobs = _data(await client.call_tool("list_analyses", {}))
            _refused(await client.call_tool("search", {"analysis": "EXO-24-002", "query": QUESTION}), "EXO-24-002")
        with pytest.raises(Exception):
            async with http(server, revoked) as client:
                await client.call_tool("list_analyses", {})
        return got, bobs

    got, bobs = anyio.run(calls)
    assert not any(i in higgs_passages for r in got["results"] for i in _served_ids(r))
    assert {k: v for k, v in got["ask"].items() if k != "timings_ms"} == asked_by_cli
    assert [a["analysis_id"] for a in bobs["analyses"]] == ["HIG-24-001"]
    listed = json.loads(mitra(env, "users", "token", "list", "--user", "alice", "--json"))
    revoked_ones = {t["id"]: t["revoked_at"] is not None for t in listed}
    assert (revoked_ones[alice_id], revoked_ones[revoked_id]) == (False, True)
    assert alice not in json.dumps(listed)  # the token itself is never shown again
    rows = [r for r in _audit(env) if r["via"] == "token"]
    assert {r["user"] for r in rows} == {"alice", "bob"} and alice not in json.dumps(rows)
    mitra(env, "users", "token", "revoke", alice_id)  # the token she just used: refused from the next request on
    assert httpx.post(f"{server}/mcp", json=hello, timeout=30,
                      headers={**headers, "Authorization": f"Bearer {alice}"}).status_code == 401


def test_http_limits_the_rate_of_calls_per_token(env, server):
    _, token = issue(env, "alice")

    async def flood():
        async with http(server, token) as client:
            return [await client.call_tool("list_analyses", {}) for _ in range(RATE + 2)]

    results = anyio.run(flood)
    assert not any(r.is_error for r in results[:RATE])
    for refused in results[RATE:]:
        _refused(refused, "rate limit", "mcp_calls_per_minute")
    _, other = issue(env, "alice")  # the limit is per token: another token still reads

    async def one():
        async with http(server, other) as client:
            return await client.call_tool("list_analyses", {})

    assert not anyio.run(one).is_error


def _oidc_tokens(provider: str, client: str = "mitra-tests") -> dict:
    """An access token and an ID token for alice, issued to ``client`` in the provider's authorization-code flow."""
    authorize = {"client_id": client, "redirect_uri": "http://127.0.0.1/callback", "response_type": "code",
                 "scope": "openid email", "state": "s"}
    redirect = httpx.post(f"{provider}/oauth2/authorize", params=authorize, data={"sub": "alice"}, timeout=30)
    code = httpx.URL(redirect.headers["location"]).params["code"]
    return httpx.post(f"{provider}/oauth2/token", auth=(client, "secret"), timeout=30,
                      data={"grant_type": "authorization_code", "code": code,
                            "redirect_uri": authorize["redirect_uri"]}).raise_for_status().json()


def test_http_accepts_the_oidc_tokens_of_the_apps_provider(env, server, oidc_provider):
    issued = _oidc_tokens(oidc_provider)

    async def listed(token: str):
        async with http(server, token) as client:
            return _data(await client.call_tool("list_analyses", {}))

    for token in (issued["id_token"], issued["access_token"]):  # a JWT checked here; an opaque one at userinfo
        assert [a["analysis_id"] for a in anyio.run(listed, token)["analyses"]] == ["EXO-24-002", "SMP-24-003"]
    head, payload, _ = issued["id_token"].split(".")
    forged = f"{head}.{payload}.{'A' * 43}"
    elsewhere = _oidc_tokens(oidc_provider, client="another-app")["id_token"]  # signed, but for another audience
    hello = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "curl", "version": "1"}}}
    for refused in (forged, elsewhere):
        assert httpx.post(f"{server}/mcp", json=hello, timeout=30, headers={
            "Authorization": f"Bearer {refused}", "Accept": "application/json, text/event-stream"}).status_code == 401
    rows = [r for r in _audit(env) if r["via"] == "oidc"]
    assert len(rows) == 2 and {r["user"] for r in rows} == {"alice@orion.example"}


def test_mitra_mcp_refuses_in_one_line_what_it_cannot_serve(cli):
    for args, said in ((["mcp"], "exactly one of --stdio or --http"), (["mcp", "--stdio", "--http"], "exactly one of"),
                       (["mcp", "--stdio"], "--user NAME"), (["mcp", "--stdio", "--user", "nobody"], "no such user"),
                       (["mcp", "--http", "--user", "alice"], "--user goes with --stdio"),
                       (["users", "token", "issue", "nobody"], "no user 'nobody'"),
                       (["users", "token", "revoke", "0000"], "no live token")):
        result = cli(*args)
        assert result.exit_code == 2 and said in " ".join(result.output.split()) and "Traceback" not in result.output
