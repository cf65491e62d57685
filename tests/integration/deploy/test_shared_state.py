"""The shared state on both back ends: every test runs on the embedded SQLite and files
([sqlite]) and on a real PostgreSQL server ([postgres], ``pytest -k postgres``)."""

from __future__ import annotations

import json
import sqlite3

import pytest

from mitra.access.policy import AccessPolicy, Rule
from mitra.access.users import UsersError, open_users
from mitra.audit import open_audit
from mitra.core.settings import Settings
from mitra.core.types import Analysis, Document
from mitra.evaluation.feedback import Feedback, FeedbackStore
from mitra.store.catalog import Catalog
from mitra.store.conversations import Citation, ConversationStore, SavedTurn, UnknownConversation
from mitra.store.state import DatabaseError, database


@pytest.fixture
def state(tmp_path, database_url) -> Settings:
    return Settings(_env_file=None, data_dir=tmp_path / "kb", database_url=database_url)


def _document(version: str) -> Document:
    return Document(analysis_id="HIG-24-001", doc_id="AN-1", version=version, title="note", source="s.pdf",
                    sha256=version, pages=3, format="pdf", coverage=0.95, dropped={"references": 12}, kept="/k.pdf")


def test_catalog_round_trip(state):
    catalog = Catalog.open(state)
    analysis = Analysis(id="HIG-24-001", title="Higgs", abstract="H to gamma gamma", metadata={"groups": "cms-hig"})
    with catalog.transaction() as db:
        catalog.put_analysis(db, analysis, "hig-g1")
        catalog.put_document(db, _document("v1"), 5, False)
    with catalog.transaction() as db:
        catalog.put_analysis(db, analysis, "hig-g2")
        catalog.put_document(db, _document("v2"), 7, False)
        catalog.set_superseded(db, "HIG-24-001", "AN-1", "v2")
    catalog.set_meta("embedder", "all-MiniLM-L6-v2")
    catalog.set_meta("embedder", "dpr")

    assert [r.analysis for r in catalog.analyses()] == [analysis]
    assert catalog.analysis("HIG-24-001").collection == "hig-g2" and catalog.analysis("nope") is None
    assert catalog.get_meta("routing_version") == "2" and catalog.get_meta("embedder") == "dpr"
    records = catalog.documents("HIG-24-001")
    assert [(r.document.version, r.superseded, r.n_chunks) for r in records] == [("v1", True, 5), ("v2", False, 7)]
    assert records[1].document == _document("v2")


def test_a_failed_transaction_leaves_the_catalog_as_it_was(state):
    catalog = Catalog.open(state)
    with pytest.raises(RuntimeError), catalog.transaction() as db:
        catalog.put_analysis(db, Analysis(id="A", title="t", abstract="a"), "a-g1")
        raise RuntimeError("the writer died before its commit")
    assert catalog.analyses() == [] and catalog.get_meta("routing_version") is None


def test_feedback_round_trip(state):
    store = FeedbackStore.open(state)
    first = store.add(Feedback(analysis_id="A", question="q?", answer="x [1]", cited_chunk_ids=["c1"], rating=1))
    second = store.add(Feedback(analysis_id="B", question="r?", answer="y", rating=-1))
    store.set_reason(second, "  wrong analysis ")
    rows = store.all()
    assert [r.id for r in rows] == [first, second] and second > first
    assert rows[0].cited_chunk_ids == ["c1"] and rows[0].standalone == "q?" and rows[1].reason == "wrong analysis"
    assert [q.analysis_id for q in store.gold_queries({"A"})] == ["A"]


def test_users_round_trip(state):
    users = open_users(state)
    users.add("alice", "correct horse", ["cms-exo", "cms-exo", "cms-hig"])
    users.add("bob", "battery staple", [])
    users.set_admin("bob", True)
    assert users.verify("alice", "correct horse").groups == ["cms-exo", "cms-hig"]
    assert users.verify("alice", "wrong password") is None and users.verify("carol", "correct horse") is None
    assert users.load()["bob"].admin
    users.remove("alice")
    assert set(open_users(state).load()) == {"bob"}
    with pytest.raises(UsersError, match="no user 'alice'"):
        users.set_admin("alice", True)


def test_a_users_file_is_imported_with_its_password_hashes(cli, monkeypatch, database_url, tmp_path):
    from mitra.access.users import LocalUsers

    if database_url is not None:
        monkeypatch.setenv("MITRA_DATABASE_URL", database_url)
    LocalUsers(tmp_path / "old-users.yaml").add("carol", "correct horse", ["cms-top"], admin=True)
    imported = cli("users", "import", str(tmp_path / "old-users.yaml"))
    assert imported.exit_code == 0 and "1 users" in imported.output, imported.output
    assert json.loads(cli("users", "list", "--json").stdout) == [{"user": "carol", "groups": ["cms-top"], "admin": True}]
    state = Settings(_env_file=None, data_dir=tmp_path / "kb", database_url=database_url)
    assert open_users(state).verify("carol", "correct horse") is not None
    assert cli("users", "import", str(tmp_path / "missing.yaml")).exit_code == 2


def test_policy_round_trip(state):
    assert AccessPolicy.in_force(state).unlisted == "members"  # none imported: every member reads everything
    policy = AccessPolicy(admins=["mitra-admins"], analyses=[Rule(match="EXO-*", groups=["cms-exo"])])
    policy.save(state)
    assert AccessPolicy.in_force(state) == policy


def test_audit_round_trip(state):
    trail = open_audit(state)
    trail.write("login", "alice", method="local", password="hunter22")
    trail.write("route", "alice", question="which background?", analyses=["EXO-1", "HIG-2"])
    trail.write("answer", "bob", analysis="HIG-2", chunks=["c1"], cited=[1])
    records = list(open_audit(state).read())
    assert [r["event"] for r in records] == ["login", "route", "answer"]
    assert records[0]["password"] == "[redacted]"
    assert [r["event"] for r in trail.read(user="alice")] == ["login", "route"]
    assert [r["user"] for r in trail.read(analysis="HIG-2")] == ["alice", "bob"]  # "analyses" lists match too
    assert [r["event"] for r in trail.read(event="answer")] == ["answer"]
    since = records[1]["ts"]
    from datetime import datetime

    # Times are kept to the second: the login may share the route's second (on a busy machine, not)
    expected = [r["event"] for r in records if r["ts"] >= since]
    assert [r["event"] for r in trail.read(since=datetime.fromisoformat(since))] == expected
    assert expected[-2:] == ["route", "answer"]


def test_conversations_round_trip(state):
    store = ConversationStore.open(state)
    older = store.start("alice", "What is the dominant background?")
    newer = store.start("alice", "Muon efficiency")
    turn = SavedTurn(analysis_id="EXO-24-001", analysis_title="Dark photons", question="What is the dominant background?",
                     answer="Drell-Yan [1].", citations=[Citation(n=1, label="AN-1 v2 · Backgrounds · p. 3", chunk_id="c1")])
    store.add_turn(older, "alice", turn)
    store.add_turn(older, "alice", SavedTurn(analysis_id="EXO-24-001", question="And the second?", error="model down"))
    store.start("bob", "bob's own")

    reopened = ConversationStore.open(state)  # as after a restart
    assert [c.id for c in reopened.list("alice")] == [older, newer]  # the one continued last first
    saved = reopened.turns(older, "alice")
    assert saved[0].model_copy(update={"created_at": ""}) == turn and saved[1].error == "model down"
    assert [c.title for c in reopened.list("bob")] == ["bob's own"]
    with pytest.raises(UnknownConversation):
        reopened.turns(older, "bob")  # only its owner sees it
    with pytest.raises(UnknownConversation):
        reopened.add_turn(older, "bob", turn)


def test_an_old_sqlite_catalog_is_adopted_with_its_rows(tmp_path):
    """A catalog of the first release (no format/coverage/dropped/kept columns) opens, keeps
    its rows, gains the columns and is stamped with the baseline revision."""
    path = tmp_path / "kb" / "catalog.sqlite"
    path.parent.mkdir()
    with sqlite3.connect(path) as db:
        db.executescript("""
            CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
            CREATE TABLE analyses (id TEXT PRIMARY KEY, title TEXT NOT NULL, abstract TEXT NOT NULL, experiment TEXT,
                metadata TEXT NOT NULL, collection TEXT NOT NULL, updated_at TEXT NOT NULL);
            CREATE TABLE documents (analysis_id TEXT NOT NULL, doc_id TEXT NOT NULL, version TEXT NOT NULL,
                title TEXT NOT NULL, source TEXT NOT NULL, sha256 TEXT NOT NULL, pages INTEGER,
                n_chunks INTEGER NOT NULL, superseded INTEGER NOT NULL, indexed_at TEXT NOT NULL,
                PRIMARY KEY (analysis_id, doc_id, version));
            INSERT INTO meta VALUES ('routing_version', '7');
            INSERT INTO analyses VALUES ('A-1', 'Old', 'abstract', 'CMS', '{}', 'a-1-g3', '2025-01-01');
            INSERT INTO documents VALUES ('A-1', 'AN-1', 'v1', 'note', 'a.pdf', 'h', 2, 9, 0, '2025-01-01');
        """)
    catalog = Catalog.open(Settings(_env_file=None, data_dir=tmp_path / "kb"))
    assert catalog.analysis("A-1").collection == "a-1-g3" and catalog.get_meta("routing_version") == "7"
    (record,) = catalog.documents("A-1")
    assert (record.document.format, record.document.kept, record.document.dropped, record.n_chunks) == ("", "", {}, 9)
    assert record.document.coverage_by_kind == {}
    with catalog.transaction() as db:
        catalog.put_document(db, _document("v2").model_copy(update={"analysis_id": "A-1"}), 3, False)
    assert len(catalog.documents("A-1")) == 2
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT version_num FROM alembic_version").fetchall() == [("catalog_0002",)]


def test_a_postgres_restart_leaves_no_error_behind(postgres_server, postgres_url, tmp_path):
    state = Settings(_env_file=None, data_dir=tmp_path / "kb", database_url=postgres_url)
    store = ConversationStore.open(state)
    conversation = store.start("alice", "before the restart")  # the pool now holds a connection
    postgres_server.stop()
    postgres_server.start()
    assert [c.id for c in ConversationStore.open(state).list("alice")] == [conversation]
    assert open_users(state).load() == {}


def test_a_database_url_that_is_not_postgresql_is_one_clear_error(tmp_path):
    state = Settings(_env_file=None, data_dir=tmp_path, database_url="mysql://u@127.0.0.1/db")
    with pytest.raises(DatabaseError, match="must be a postgresql:// URL"):
        database(state, "catalog")


def test_an_unreachable_postgres_is_one_clear_error(tmp_path):
    state = Settings(_env_file=None, data_dir=tmp_path, database_url="postgresql://u:secret@127.0.0.1:1/db")
    with pytest.raises(DatabaseError, match="cannot open the database postgresql") as error:
        database(state, "catalog")
    assert "secret" not in str(error.value) and "\n" not in str(error.value)


def test_reads_run_as_a_member_are_audited(cli, monkeypatch, database_url, corpus_jsonl, tmp_path):
    """``mitra --as NAME ask/search`` leaves a trail (it left none before); the operator's own
    commands do not. Users and the policy come from ``mitra users``/``mitra policy import``,
    on either back end."""
    from mitra.core.settings import get_settings

    if database_url is not None:
        monkeypatch.setenv("MITRA_DATABASE_URL", database_url)
    assert cli("index-jsonl", str(corpus_jsonl)).exit_code == 0
    added = cli("users", "add", "alice", "--groups", "exo", "--password-stdin", input="correct horse battery\n")
    assert added.exit_code == 0, added.output
    policy = tmp_path / "policy.yaml"
    policy.write_text('unlisted: members\nanalyses:\n  - match: "HIG-*"\n    groups: [higgs]\n')
    imported = cli("policy", "import", str(policy))
    assert imported.exit_code == 0, imported.output
    assert json.loads(cli("policy", "show", "--json").stdout)["analyses"] == [{"match": "HIG-*", "groups": ["higgs"]}]
    stats = json.loads(cli("--as", "alice", "stats", "--json").stdout)
    assert [a["analysis_id"] for a in stats["per_analysis"]] == ["EXO-24-002", "SMP-24-003"]  # the policy holds
    searched = cli("--as", "alice", "search", "dark photon mass", "--analysis", "EXO-24-002", "--json")
    assert searched.exit_code == 0, searched.output
    assert cli("--as", "alice", "ask", "What is the background?", "--analysis", "NOPE-00-000").exit_code == 2
    assert cli("search", "muons", "--analysis", "EXO-24-002").exit_code == 0
    assert cli("--as", "mallory", "search", "muons").exit_code == 2  # no such user: refused, before any read

    records = [r for r in open_audit(get_settings()).read(event="command") if r["command"] != "stats"]
    assert [(r["user"], r["command"], r["analysis"], r["question"]) for r in records] == [
        ("alice", "search", "EXO-24-002", "dark photon mass"),
        ("alice", "ask", "NOPE-00-000", "What is the background?"),  # asked, though there is no such analysis
    ]
    assert [r["command"] for r in open_audit(get_settings()).read(user="alice", analysis="EXO-24-002")] == ["search"]


def test_a_data_dirs_state_is_copied_into_postgres_once(cli, monkeypatch, postgres_url, tmp_path):
    """The move from one machine to the cluster form: users, policy, audit trail, feedback
    and conversations of a data dir copied into PostgreSQL; a second copy adds nothing."""
    from mitra.access.users import LocalUsers

    old = Settings(_env_file=None, data_dir=tmp_path / "old")
    LocalUsers(old.users_path).add("carol", "correct horse", ["cms-top"])
    AccessPolicy(unlisted="members", analyses=[Rule(match="HIG-*", groups=["higgs"])]).save(old)
    open_audit(old).write("login", "carol")
    FeedbackStore.open(old).add(Feedback(analysis_id="HIG-24-001", question="q?", answer="a", cited_chunk_ids=["c1"],
                                         rating=1))
    conversation = ConversationStore.open(old).start("carol", "first")
    ConversationStore.open(old).add_turn(conversation, "carol", SavedTurn(
        analysis_id="HIG-24-001", analysis_title="H", question="q?", standalone="q?", answer="a",
        citations=[Citation(n=1, label="AN-1 v1", chunk_id="c1")]))

    monkeypatch.setenv("MITRA_DATABASE_URL", postgres_url)
    first = cli("state", "copy", str(old.data_dir), "--json")
    assert first.exit_code == 0, first.output
    assert {name: counts["copied"] for name, counts in json.loads(first.stdout).items()} == {
        "users": 1, "policy": 1, "audit": 1, "feedback": 1, "conversations": 1, "turns": 1}
    new = Settings(_env_file=None, data_dir=tmp_path / "replica", database_url=postgres_url)
    assert open_users(new).verify("carol", "correct horse") is not None
    assert AccessPolicy.in_force(new).analyses == [Rule(match="HIG-*", groups=["higgs"])]
    assert [r["user"] for r in open_audit(new).read(event="login")] == ["carol"]
    assert [f.question for f in FeedbackStore.open(new).all()] == ["q?"]
    assert [t.answer for t in ConversationStore.open(new).turns(conversation, "carol")] == ["a"]

    again = json.loads(cli("state", "copy", str(old.data_dir), "--json").stdout)
    assert {name: counts["copied"] for name, counts in again.items() if name not in ("users", "policy")} == {
        "audit": 0, "feedback": 0, "conversations": 0, "turns": 0}
    monkeypatch.delenv("MITRA_DATABASE_URL")
    assert cli("state", "copy", str(old.data_dir)).exit_code == 2  # nowhere to copy to
