"""The code-only value ranking benchmark's arithmetic: shares over the questions a shown
passage answers, and a ranking under other weights."""

from __future__ import annotations

import numpy as np

from benchmarks.value_ranking import first_with, summary

A, B = {"signals": {"a": 1.0}}, {"signals": {"b": 1.0}}
ROWS = [
    {"shown": True, "rank": 0, "candidates": [A | {"right": True}, B | {"right": False}]},
    {"shown": True, "rank": 1, "candidates": [A | {"right": False}, B | {"right": True}]},
    {"shown": False, "rank": 0, "candidates": [{"signals": {"a": 1.0}, "right": True}]},
]


def test_only_questions_a_shown_passage_answers_count():
    out = summary(ROWS)
    assert out["shown_passage_states_value"] == 2
    assert out["first"]["n_right"] == 1 and out["top_three"]["n_right"] == 2


def test_other_weights_rerank_the_candidates():
    prefer_b = first_with(np.array([0.0, 1.0]), ["a", "b"])
    assert [prefer_b(r) for r in ROWS[:2]] == [1, 0]
    assert summary(ROWS, prefer_b)["first"]["n_right"] == 1
