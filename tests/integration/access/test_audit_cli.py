"""``mitra audit``: filters, JSON lines, the table, and one-line errors."""

from __future__ import annotations

import json

from mitra.audit import AuditLog
from mitra.core.settings import Settings


def _trail(tmp_path) -> None:
    trail = AuditLog(Settings(_env_file=None, data_dir=tmp_path / "kb"))
    trail.write("login", "alice", method="local", password="hunter22")
    trail.write("lock", "bob", analysis="SMP-24-003")
    trail.write("question", "alice", analysis="EXO-24-002", question="what is [the] background?")


def test_audit_prints_only_the_users_records_as_json_lines(tmp_path, cli, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")  # the table on one line per event
    _trail(tmp_path)
    result = cli("audit", "--user", "alice", "--json")
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in result.stdout.splitlines()]
    assert [(r["user"], r["event"]) for r in records] == [("alice", "login"), ("alice", "question")]
    assert records[0]["password"] == "[redacted]"
    lock = cli("audit", "--analysis", "SMP-24-003", "--since", "1h", "--until", "2999-01-01", "--json")
    assert [json.loads(line)["user"] for line in lock.stdout.splitlines()] == ["bob"]
    table = cli("audit", "--event", "question")
    assert table.exit_code == 0 and "what is [the] background?" in table.stdout and "bob" not in table.stdout


def test_a_bad_since_or_event_is_one_line_and_exit_2(tmp_path, cli):
    _trail(tmp_path)
    for args in (("--since", "yesterday-ish"), ("--event", "logged_in")):
        result = cli("audit", *args)
        assert result.exit_code == 2
        assert len(result.output.strip().splitlines()) == 1 and result.output.startswith("error:")
