"""The audit trail: round trip, filters, rotation order, several writers, redaction."""

from __future__ import annotations

import multiprocessing
from datetime import datetime, timedelta, timezone

import pytest

from mitra.audit import REDACTED, AuditLog
from mitra.core.settings import Settings

JWT = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJl"


def log(tmp_path, **overrides) -> AuditLog:
    return AuditLog(Settings(_env_file=None, data_dir=tmp_path, **overrides))


def test_events_come_back_filtered_by_user_analysis_event_and_time(tmp_path):
    trail = log(tmp_path)
    trail.write("route", "alice", question="100% sure?", analyses=["EXO-24-002", "SMP-24-003"])
    trail.write("lock", "alice", analysis="EXO-24-002")
    trail.write("lock", "bob", analysis="SMP-24-003")
    trail.write("answer", "bob", analysis="SMP-24-003", chunks=["c1", "c2"], model="m", backend="ollama",
                latency_ms={"retrieval": 12.5, "llm": 900.0})
    assert trail.path == tmp_path.absolute() / "audit" / "audit.jsonl"
    first = next(trail.read())
    assert first["event"] == "route" and first["user"] == "alice" and first["question"] == "100% sure?"
    assert datetime.fromisoformat(first["ts"]).tzinfo is not None and len(first["ts"].split(".")[1]) == 9  # ms+tz
    assert [r["event"] for r in trail.read(user="alice")] == ["route", "lock"]
    assert [r["user"] for r in trail.read(analysis="SMP-24-003")] == ["alice", "bob", "bob"]  # listed, then locked
    assert [r["user"] for r in trail.read(event="lock")] == ["alice", "bob"]
    assert [r["chunks"] for r in trail.read(event="answer")] == [["c1", "c2"]]
    now = datetime.now(timezone.utc)
    assert len(list(trail.read(since=now - timedelta(minutes=1)))) == 4
    assert len(list(trail.read(since=(now - timedelta(minutes=1)).replace(tzinfo=None)))) == 4  # naive = UTC
    assert list(trail.read(until=now - timedelta(minutes=1))) == []
    assert list(trail.read(user="carol")) == []


def test_unknown_events_are_refused(tmp_path):
    with pytest.raises(ValueError, match="unknown audit event"):
        log(tmp_path).write("logged_in", "alice")


def test_rotation_keeps_every_event_in_order(tmp_path):
    trail = log(tmp_path / "rot", audit_max_bytes=1024, audit_backups=50)
    for n in range(40):
        trail.write("question", "alice", question=f"question number {n} " + "x" * 60)
    assert len(trail.files()) > 2 and trail.files()[-1] == trail.path
    assert [r["question"].split()[2] for r in trail.read()] == [str(n) for n in range(40)]


def _write_many(data_dir, name: str, n: int) -> None:
    trail = log(data_dir, audit_max_bytes=2048, audit_backups=200)
    for i in range(n):
        trail.write("question", name, question=f"{i} " + "y" * 50)


def test_several_processes_share_one_trail_without_losing_or_mixing_lines(tmp_path):
    fork = multiprocessing.get_context("fork")
    workers = [fork.Process(target=_write_many, args=(tmp_path, f"user{w}", 60)) for w in range(3)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(60)
    assert [w.exitcode for w in workers] == [0, 0, 0]
    trail = log(tmp_path, audit_max_bytes=2048, audit_backups=200)
    records = list(trail.read())
    assert trail.skipped == 0 and len(records) == 180 and len(trail.files()) > 3
    for w in range(3):  # each writer's events in the order it wrote them, across the rotated files
        assert [int(r["question"].split()[0]) for r in records if r["user"] == f"user{w}"] == list(range(60))


def test_secrets_never_reach_the_file(tmp_path):
    trail = log(tmp_path)
    trail.write("login", "alice", password="hunter22", method="local",
                nested={"id_token": "abc123", "list": [{"Cookie": "session=s3cr3t"}, {"API-Key": "k9k9k9"}]},
                headers=[f"Authorization-ish Bearer abcdefgh.ijkl and {JWT}"], note="the bearer of bad news")
    text = trail.path.read_text()
    for secret in ("hunter22", "abc123", "s3cr3t", "k9k9k9", "abcdefgh", JWT):
        assert secret not in text
    (record,) = trail.read()
    assert record["password"] == REDACTED and record["nested"]["id_token"] == REDACTED
    assert record["nested"]["list"] == [{"Cookie": REDACTED}, {"API-Key": REDACTED}]
    assert record["headers"] == [f"Authorization-ish {REDACTED} and {REDACTED}"]
    assert record["method"] == "local" and record["note"] == "the bearer of bad news"  # not a header


def test_a_corrupt_line_is_skipped_and_counted(tmp_path):
    trail = log(tmp_path)
    trail.write("lock", "alice", analysis="A")
    with trail.path.open("a") as out:
        out.write('{not json\n["a list"]\n{"event": "lock"}\n\n')
    trail.write("lock", "bob", analysis="B")
    assert [r["user"] for r in trail.read()] == ["alice", "bob"] and trail.skipped == 3
