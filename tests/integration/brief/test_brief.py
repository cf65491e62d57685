"""The brief with real stores: indexing builds it, an unchanged re-index keeps it, a changed
document rebuilds it; ``mitra brief`` prints it; a member never reads the brief of an analysis
they may not read, which reads exactly like a missing one."""

from __future__ import annotations

import json

from mitra.core.settings import Settings
from mitra.store.knowledge_base import KnowledgeBase
from tests.fixtures.samples import ANALYSES, GROUPS_POLICY, write_jsonl

POLICY = "admins: [mitra-admins]" + GROUPS_POLICY


def _stamp(data_dir, analysis_id: str) -> str:
    kb = KnowledgeBase(Settings(data_dir=data_dir))
    return kb.files.stamp("brief", kb.catalog.analysis(analysis_id).collection)


def test_indexing_builds_the_brief_and_an_unchanged_reindex_does_not_rebuild_it(cli, corpus_jsonl, tmp_path):
    assert cli("index-jsonl", str(corpus_jsonl)).exit_code == 0
    first = _stamp(tmp_path / "kb", "HIG-24-001")
    assert first
    shown = cli("brief", "HIG-24-001", "--json")
    assert shown.exit_code == 0, shown.output
    brief = json.loads(shown.stdout)
    assert brief["analysis_id"] == "HIG-24-001" and brief["documents"][0]["doc_id"] == "AN-2024-001"
    found = {v["number"]: v for v in brief["values"]}
    assert found["3"]["where"] == "abstract"  # "The observed significance is 3.0 standard deviations."
    assert found["1.19"]["place"]["doc_id"] == "AN-2024-001"  # the Results section's signal strength, cited
    assert [s["path"][0] for s in brief["trees"][0]["sections"]][:2] == ["Introduction", "Backgrounds"]

    assert cli("index-jsonl", str(corpus_jsonl)).exit_code == 0
    assert _stamp(tmp_path / "kb", "HIG-24-001") == first  # its documents did not change: not rebuilt

    changed = [dict(a) for a in ANALYSES]
    note = dict(changed[0]["documents"][0], text=changed[0]["documents"][0]["text"].replace("1.19", "1.25"))
    changed[0] = dict(changed[0], documents=[note])
    assert cli("index-jsonl", str(write_jsonl(tmp_path / "changed.jsonl", changed))).exit_code == 0
    rebuilt = json.loads(cli("brief", "HIG-24-001", "--json").stdout)
    assert "1.25" in {v["number"] for v in rebuilt["values"]} and "1.19" not in {v["number"] for v in rebuilt["values"]}

    text = cli("brief", "HIG-24-001")
    assert text.exit_code == 0 and "What it found" in text.output and "mitra ask --analysis HIG-24-001" in text.output


def test_a_pdf_indexed_twice_keeps_its_brief_and_cites_pages(cli, note_pdf, tmp_path):
    assert cli("ingest", "pdf", str(note_pdf), "--analysis", "TEST-01").exit_code == 0
    first = _stamp(tmp_path / "kb", "TEST-01")
    brief = json.loads(cli("brief", "TEST-01", "--json").stdout)
    assert brief["documents"][0]["kind"] == "note"
    assert all(s["place"]["page"] for s in brief["trees"][0]["sections"])
    assert cli("ingest", "pdf", str(note_pdf), "--analysis", "TEST-01").exit_code == 0
    assert _stamp(tmp_path / "kb", "TEST-01") == first


def test_a_member_cannot_read_the_brief_of_an_analysis_they_may_not_read(cli, corpus_jsonl, tmp_path):
    from mitra.access.policy import AccessPolicy, Principal
    from mitra.access.scoped import ScopedKnowledge
    from mitra.brief.build import read_brief
    from mitra.store.knowledge_base import UnknownAnalysis

    assert cli("index-jsonl", str(corpus_jsonl)).exit_code == 0
    (tmp_path / "kb" / "access.yaml").write_text(POLICY)
    added = cli("users", "add", "alice", "--groups", "exo", "--password-stdin", input="correct horse battery\n")
    assert added.exit_code == 0, added.output
    assert cli("--as", "alice", "brief", "EXO-24-002", "--json").exit_code == 0
    forbidden = cli("--as", "alice", "brief", "HIG-24-001", "--json")
    missing = cli("--as", "alice", "brief", "HIG-99-999", "--json")
    assert forbidden.exit_code == missing.exit_code == 2
    assert forbidden.output.replace("HIG-24-001", "X") == missing.output.replace("HIG-99-999", "X")
    assert "Higgs" not in forbidden.output

    settings = Settings(data_dir=tmp_path / "kb")
    scoped = ScopedKnowledge(KnowledgeBase(settings), Principal("alice", frozenset({"exo"})), AccessPolicy.in_force(settings))
    try:
        read_brief(scoped, "HIG-24-001")
    except UnknownAnalysis:
        pass
    else:
        raise AssertionError("a forbidden analysis's brief was read")
