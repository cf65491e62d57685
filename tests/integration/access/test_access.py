"""Members only, enforced where the data is read: a member of group "exo" can lock on and
retrieve the analyses of their groups, and is never offered, and cannot retrieve, the
Higgs analysis of group "higgs", through the Python API, the session and the CLI. Real
Chroma, BM25 and MiniLM over the three sample analyses."""

from __future__ import annotations

import json

import pytest

from mitra.access.policy import AccessPolicy, Principal, PolicyError
from mitra.access.users import LocalUsers
from mitra.chat.session import Candidates, RetrievalOnly, Session, SessionError
from mitra.core.errors import MitraError
from mitra.core.settings import Settings
from mitra.retrieval.pipeline import build_pipeline
from mitra.store.knowledge_base import UnknownAnalysis
from tests.fixtures.samples import GROUPS_POLICY

HIGGS = "What is the dominant background in the dimuon Higgs search?"
POLICY = "admins: [mitra-admins]" + GROUPS_POLICY
ALICE = Principal("alice", frozenset({"exo"}))
PASSWORD = "correct horse battery"


@pytest.fixture(scope="module")
def policy_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("policy") / "access.yaml"
    path.write_text(POLICY)
    return path


@pytest.fixture(scope="module")
def unscoped(app_data_dir, embedder, policy_file):
    settings = Settings(_env_file=None, data_dir=app_data_dir, reranker="none", access_policy=policy_file)
    return build_pipeline(settings, embedder=embedder, with_reranker=False)


def test_a_member_sees_routes_to_and_retrieves_only_their_groups_analyses(unscoped):
    alice = unscoped.for_principal(ALICE)
    assert {a.id for a in alice.kb.analyses()} == {"EXO-24-002", "SMP-24-003"}
    assert alice.kb.stats()["analyses"] == 2
    assert "HIG-24-001" in [c.analysis.id for c in unscoped.router.route(HIGGS, top_n=3).candidates]
    routed = alice.router.route(HIGGS, top_n=3).candidates
    assert [c.analysis.id for c in routed] and "HIG-24-001" not in [c.analysis.id for c in routed]
    assert alice.retriever.search("EXO-24-002", "monojet background").hits


def test_a_forbidden_analysis_reads_exactly_like_a_missing_one(unscoped):
    alice = unscoped.for_principal(ALICE)
    for read in (lambda a: alice.retriever.search(a, HIGGS), lambda a: alice.kb.documents(a),
                 lambda a: alice.kb.get_chunks(a, ["x"]), lambda a: alice.kb.chunks(a)):
        with pytest.raises(UnknownAnalysis) as forbidden:
            read("HIG-24-001")
        with pytest.raises(UnknownAnalysis) as missing:
            read("HIG-99-999")
        assert str(forbidden.value) == str(missing.value).replace("HIG-99-999", "HIG-24-001")
    assert alice.kb.get_analysis("HIG-24-001") is None


def test_a_scoped_search_checks_the_right_to_read_once_and_only_for_its_analysis(unscoped, monkeypatch):
    alice = unscoped.for_principal(ALICE)
    with pytest.raises(UnknownAnalysis), alice.kb.reading("HIG-24-001"):
        pass
    asked = []
    lookup = unscoped.kb.catalog.analysis
    monkeypatch.setattr(unscoped.kb.catalog, "analysis", lambda a: asked.append(a) or lookup(a))
    with alice.kb.reading("EXO-24-002"):
        assert alice.retriever.search("EXO-24-002", "monojet background").hits
        with pytest.raises(UnknownAnalysis):
            alice.kb.bm25_index("HIG-24-001")
    assert asked.count("EXO-24-002") == 2  # the right checked once, the generation looked up once
    with pytest.raises(UnknownAnalysis):
        alice.kb.get_chunks("HIG-24-001", ["x"])


def test_the_session_never_offers_or_locks_a_forbidden_analysis(unscoped):
    alice = unscoped.for_principal(ALICE)
    session = Session(alice, RetrievalOnly(unscoped, MitraError("no model")).for_pipeline(alice))
    (offer,) = [e for e in session.submit(HIGGS) if isinstance(e, Candidates)]
    assert "HIG-24-001" not in [c.analysis.id for c in offer.options]
    with pytest.raises(SessionError, match="No analysis 'HIG-24-001'"):
        session.confirm("HIG-24-001")
    with pytest.raises(SessionError, match="No analysis 'HIG-24-001'"):
        session.lock("HIG-24-001")


def test_admins_read_everything_and_a_scoped_pipeline_is_not_scoped_twice(unscoped, policy_file):
    admin = AccessPolicy.load(policy_file).principal("root", ["mitra-admins"])
    assert admin.admin
    scoped = unscoped.for_principal(admin)
    assert len(scoped.kb.analyses()) == 3
    with pytest.raises(ValueError, match="already reads as root"):
        scoped.for_principal(ALICE)


def test_groups_attached_at_ingestion_restrict_an_analysis_without_a_policy(tmp_path, embedder):
    from ingest.sources.jsonl import index_records
    from tests.fixtures.samples import ANALYSES
    from ingest.sources.jsonl import JsonlAnalysis

    settings = Settings(_env_file=None, data_dir=tmp_path / "kb", reranker="none")
    pipeline = build_pipeline(settings, embedder=embedder, with_reranker=False)
    records = [JsonlAnalysis.model_validate(a) for a in ANALYSES]
    records[0] = records[0].model_copy(update={"groups": ["higgs"]})
    index_records(pipeline.kb, records)
    outsider = pipeline.for_principal(Principal("bob", frozenset({"exo"})))
    assert {a.id for a in outsider.kb.analyses()} == {"EXO-24-002", "SMP-24-003"}  # unlisted: members
    insider = pipeline.for_principal(Principal("carol", frozenset({"higgs"})))
    assert len(insider.kb.analyses()) == 3


def test_a_members_view_reads_the_catalog_once_per_change_and_sees_each_change_at_once(tmp_path, embedder, monkeypatch):
    from ingest.sources.jsonl import JsonlAnalysis, index_records
    from tests.fixtures.samples import ANALYSES

    settings = Settings(_env_file=None, data_dir=tmp_path / "kb", reranker="none")
    pipeline = build_pipeline(settings, embedder=embedder, with_reranker=False)
    records = [JsonlAnalysis.model_validate(a) for a in ANALYSES]
    index_records(pipeline.kb, [records[1].model_copy(update={"groups": ["exo"]})])
    bob = pipeline.for_principal(Principal("bob", frozenset({"exo"})))
    reads = []
    every = pipeline.kb.catalog.analyses
    monkeypatch.setattr(pipeline.kb.catalog, "analyses", lambda: reads.append(1) or every())
    for _ in range(2):
        assert [c.analysis.id for c in bob.router.route(HIGGS, top_n=3).candidates] == ["EXO-24-002"]
    assert len(reads) <= 1  # once for this catalog version at most, not three times a question
    index_records(pipeline.kb, [records[0].model_copy(update={"groups": ["higgs"]}), records[2]])
    assert {c.analysis.id for c in bob.router.route(HIGGS, top_n=3).candidates} == {"EXO-24-002", "SMP-24-003"}
    assert {a.id for a in bob.kb.analyses()} == {"EXO-24-002", "SMP-24-003"}


def test_a_broken_policy_file_is_one_clear_error(tmp_path):
    path = tmp_path / "access.yaml"
    path.write_text("analyses: [{groups: [exo]}]")  # no "match"
    with pytest.raises(PolicyError, match="access.yaml is not valid"):
        AccessPolicy.load(path)


def test_local_passwords_are_argon2_hashes_and_verify(tmp_path):
    users = LocalUsers(tmp_path / "users.yaml")
    users.add("alice", "correct horse battery", ["exo"])
    stored = (tmp_path / "users.yaml").read_text()
    assert "correct horse" not in stored and "$argon2id$" in stored
    assert users.verify("alice", "correct horse battery").groups == ["exo"]
    assert users.verify("alice", "wrong password") is None
    assert users.verify("mallory", "correct horse battery") is None


def test_the_cli_reads_as_a_local_user(cli, corpus_jsonl, tmp_path):
    assert cli("index-jsonl", str(corpus_jsonl)).exit_code == 0
    (tmp_path / "kb" / "access.yaml").write_text(POLICY)
    added = cli("users", "add", "alice", "--groups", "exo", "--password-stdin", input="correct horse battery\n")
    assert added.exit_code == 0, added.output
    listed = cli("users", "list", "--json")
    assert json.loads(listed.stdout) == [{"user": "alice", "groups": ["exo"], "admin": False}]

    routed = cli("--as", "alice", "route", HIGGS, "--json")
    assert routed.exit_code == 0, routed.output
    assert "HIG-24-001" not in [c["analysis_id"] for c in json.loads(routed.stdout)["candidates"]]
    assert "HIG-24-001" in cli("route", HIGGS, "--json").stdout  # the operator reads everything

    forbidden = cli("--as", "alice", "search", HIGGS, "--analysis", "HIG-24-001")
    missing = cli("--as", "alice", "search", HIGGS, "--analysis", "HIG-99-999")
    assert forbidden.exit_code == missing.exit_code == 2
    error = forbidden.output.splitlines()[-1]  # after the model-loading progress
    assert error == missing.output.splitlines()[-1].replace("HIG-99-999", "HIG-24-001")
    assert error.startswith("error: no analysis 'HIG-24-001'")

    stats = json.loads(cli("--as", "alice", "stats", "--json").stdout)
    assert [a["analysis_id"] for a in stats["per_analysis"]] == ["EXO-24-002", "SMP-24-003"]
    refused = cli("--as", "alice", "index-jsonl", str(corpus_jsonl))
    assert refused.exit_code == 2 and "only admins index" in refused.output
    unknown = cli("--as", "mallory", "stats")
    assert unknown.exit_code == 2 and "no such user" in unknown.output



def test_ingestion_groups_and_the_feedback_export_follow_the_member(cli, corpus_jsonl, tmp_path):
    from mitra.evaluation.feedback import Feedback, FeedbackStore

    assert cli("index-jsonl", str(corpus_jsonl), "--groups", "exo").exit_code == 0
    for name, groups in (("alice", "exo"), ("bob", "smp")):
        assert cli("users", "add", name, "--groups", groups, "--password-stdin", input=PASSWORD + "\n").exit_code == 0
    assert json.loads(cli("--as", "bob", "stats", "--json").stdout)["analyses"] == 0  # unlisted, but restricted
    assert json.loads(cli("--as", "alice", "stats", "--json").stdout)["analyses"] == 3

    store = FeedbackStore(tmp_path / "kb" / "feedback.sqlite")
    for analysis in ("HIG-24-001", "GONE-24-001"):
        store.add(Feedback(analysis_id=analysis, question="q", answer="a [1].", cited_chunk_ids=["c1"], rating=1))
    for name, expected in (("alice", ["HIG-24-001"]), ("bob", [])):
        out = tmp_path / f"{name}.jsonl"
        assert cli("--as", name, "feedback-export", str(out)).exit_code == 0
        assert [json.loads(line)["analysis_id"] for line in out.read_text().splitlines()] == expected


def test_pdf_ingestion_attaches_groups_and_keeps_them_on_the_next_version(cli, note_pdf, tmp_path):
    from mitra.access.policy import attached_groups
    from mitra.store.knowledge_base import KnowledgeBase

    first = cli("ingest", "pdf", str(note_pdf), "--analysis", "TEST-01", "--groups", "exo,smp")
    assert first.exit_code == 0, first.output
    assert cli("ingest", "pdf", str(note_pdf), "--analysis", "TEST-01", "--version", "2").exit_code == 0
    kb = KnowledgeBase(Settings(_env_file=None, data_dir=tmp_path / "kb"))
    assert attached_groups(kb.get_analysis("TEST-01")) == ["exo", "smp"]


def test_a_scoped_answerer_cannot_answer_from_a_forbidden_analysis(unscoped, ollama_stub):
    from mitra.answer.answerer import build_answerer
    from tests.conftest import OLLAMA_MODEL

    ollama = {"llm_backend": "ollama", "ollama_host": ollama_stub.url, "ollama_model": OLLAMA_MODEL}
    answerer = build_answerer(unscoped, unscoped.settings.model_copy(update=ollama))
    higgs = unscoped.kb.get_analysis("HIG-24-001")
    with pytest.raises(UnknownAnalysis):
        list(answerer.for_pipeline(unscoped.for_principal(ALICE)).stream(higgs, HIGGS, []))
    assert ollama_stub.chats == []  # nothing of it reached the model


def test_full_text_evidence_never_routes_to_an_analysis_the_member_may_not_read(unscoped):
    """"Drell-Yan" is only in the Higgs analysis's note, not in any abstract: evidence routes
    the operator there, and gives alice, who may not read it, nothing from it."""
    question = "How is the Drell-Yan background modelled?"
    assert unscoped.kb.route_evidence(["drell", "yan"], 3)[0][0] == "HIG-24-001"
    assert unscoped.router.route(question, top_n=1).top.analysis.id == "HIG-24-001"
    alice = unscoped.for_principal(ALICE)
    assert "HIG-24-001" not in [a for a, _ in alice.kb.route_evidence(["drell", "yan"], 3)]
    assert "HIG-24-001" not in [c.analysis.id for c in alice.router.route(question, top_n=3).candidates]
