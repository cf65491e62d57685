"""`mitra stats` reads as a table: every word of a long title whole, the totals as lines
(not a Python dict), and `--json` still one JSON object."""

from __future__ import annotations

import json

from tests.fixtures.samples import ANALYSES, write_jsonl

LONG = ("Measurement of the effective leptonic weak mixing angle and its dependence on the dilepton "
        "invariant mass in proton-proton collisions")


def test_stats_wraps_long_titles_at_words_and_prints_no_dict(cli, tmp_path, monkeypatch):
    rows = [ANALYSES[0] | {"title": LONG}]
    assert cli("index-jsonl", str(write_jsonl(tmp_path / "a.jsonl", rows))).exit_code == 0
    monkeypatch.setenv("COLUMNS", "90")
    shown = cli("stats")
    assert shown.exit_code == 0, shown.output
    words = " ".join(line.strip("│ ") for line in shown.output.splitlines()).split()
    for word in LONG.split():
        assert word in words, f"{word!r} was cut: {shown.output}"
    assert "{'" not in shown.output and "current chunks" in shown.output
    assert json.loads(cli("stats", "--json").stdout)["per_analysis"][0]["title"] == LONG
