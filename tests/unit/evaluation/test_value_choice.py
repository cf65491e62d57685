"""`benchmarks/value_choice.py --both-orders`: the choice asked again over the candidates
listed last to first, read back in the ranking's order."""

from benchmarks import value_choice
from mitra.answer.choose import Choice


def test_a_choice_among_reversed_candidates_is_read_back_in_the_ranking_s_order(monkeypatch):
    listed = []

    def choose(model, asked, ranked):
        listed.append(list(ranked))
        return Choice(index=1, confidence=0.6, usage={})  # the first listed: the ranking's last

    monkeypatch.setattr(value_choice, "choose", choose)
    assert value_choice.reversed_choice(None, None, ["a", "b", "c"]) == (3, 0.6)
    assert listed == [["c", "b", "a"]]
    monkeypatch.setattr(value_choice, "choose", lambda *_: Choice(index=0, confidence=0.9, usage={}))
    assert value_choice.reversed_choice(None, None, ["a", "b", "c"]) == (0, 0.9)


def test_the_orders_summary_counts_agreement_and_takes_the_more_probable_choice():
    rows = [{"right": [True, False], "chosen": 1, "confidence": 0.9, "reversed": 1, "reversed_confidence": 0.8},
            {"right": [False, True], "chosen": 1, "confidence": 0.4, "reversed": 2, "reversed_confidence": 0.7},
            {"right": [False, True], "chosen": 2, "confidence": 0.8, "reversed": 1, "reversed_confidence": 0.3}]
    out = value_choice._orders(rows)
    assert out["orders_agree"] == 1 and out["chose_first_listed"] == 2 and out["reversed_chose_the_ranking_first"] == 2
    assert out["reversed_right"]["share"] == 0.667  # rows 1 and 2
    assert value_choice._orders([{"right": [True], "chosen": 1, "confidence": 1.0}]) == {}
    assert out["more_probable_right"]["share"] == 1.0  # 0.9 forward, 0.7 reversed, 0.8 forward: each right


def test_each_weight_of_the_ranking_is_replayed_from_the_recorded_probabilities():
    """The sweep over ``PRIORS`` reads the recorded probabilities and scores (JSON keys as
    strings): no weight leads with the copy the ranking puts far down, a none leads with the
    ranking's first, and so does a choice under ``value_lead``."""
    from mitra.core.settings import Settings

    settings = Settings(_env_file=None)
    row = {"right": [True, False], "copied": 2, "spread": {"1": 0.4, "2": 0.6}, "scores": [6.0, 1.0]}
    assert value_choice._weighed_lead(row, 0.0, settings) == 2 and value_choice._weighed_lead(row, 0.5, settings) == 1
    none = {"right": [True, False], "copied": 0, "spread": {"0": 0.9, "1": 0.05, "2": 0.05}, "scores": [1.0, 0.5]}
    assert value_choice._weighed_lead(none, 0.0, settings) == 1
    unsure = {"right": [True, False], "copied": 2, "spread": {"2": 0.2, "1": 0.1}, "scores": [1.0, 1.0]}
    assert value_choice._weighed_lead(unsure, 0.0, settings) == 1
    cell = {"right": [True, False], "copied": 2, "spread": {"1": 0.25, "2": 0.75}, "scores": [4.0, 3.5]}
    assert value_choice._weighed_lead(cell, 0.5, settings) == 2  # the copy, from a sentence
    assert value_choice._weighed_lead(cell | {"code_reads": True}, 0.5, settings) == 1  # the ranking's, from a table
