"""The code-only value ranking benchmark's arithmetic: shares over the questions a shown
passage answers, and a ranking under other weights."""

from __future__ import annotations

import numpy as np

from benchmarks.value_ranking import first_with, summary

A, B = {"signals": {"a": 1.0}}, {"signals": {"b": 1.0}}
SEEN = {"retrieved": True, "offered": 4}
ROWS = [
    SEEN | {"shown": True, "rank": 0, "candidates": [A | {"right": True}, B | {"right": False}]},
    SEEN | {"shown": True, "rank": 1, "candidates": [A | {"right": False}, B | {"right": True}]},
    SEEN | {"shown": False, "rank": 0, "candidates": [{"signals": {"a": 1.0}, "right": True}]},
]


def test_only_questions_a_shown_passage_answers_count():
    out = summary(ROWS)
    assert out["shown_passage_states_value"] == 2
    assert out["first"]["n_right"] == 1 and out["top_three"]["n_right"] == 2


def test_other_weights_rerank_the_candidates():
    prefer_b = first_with(np.array([0.0, 1.0]), ["a", "b"])
    assert [prefer_b(r) for r in ROWS[:2]] == [1, 0]
    assert summary(ROWS, prefer_b)["first"]["n_right"] == 1


def test_a_value_not_offered_is_lost_at_the_first_stage_without_it():
    def row(shown: bool, retrieved: bool, rank: int | None) -> dict:
        return {"shown": shown, "retrieved": retrieved, "offered": 2, "rank": rank, "candidates": []}

    rows = [row(True, True, 0), row(True, True, 2), row(False, True, None), row(False, False, None),
            row(False, True, 1)]
    assert summary(rows)["lost"] == {"not_offered": 3, "not_retrieved": 1, "retrieved_not_shown": 1, "shown": 1}
