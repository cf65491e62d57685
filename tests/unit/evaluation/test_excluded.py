"""A question made from a passage (a caption asking for the sentences that cite it) is
asked with that passage left out of the search itself (so it lifts neither its
neighbours nor its section), never with a gold passage left out."""

from __future__ import annotations

from types import SimpleNamespace

from mitra.evaluation.retrieval import GoldQuery, locked_metrics

CAPTION = "Invariant mass distribution of the selected candidates with the fit result overlaid on the data points."
CITING = "A peak near the nominal charm meson value is clear in Fig. 2, and an extended likelihood gives its yield."
OTHER = "The trigger efficiency is measured with a tag and probe method on the calibration samples of muons."


class _Retriever:
    def __init__(self, order):
        self.order, self.left_out = order, []

    def retrieve(self, analysis_id, query, system, k, left_out):
        self.left_out.append(left_out)
        return [SimpleNamespace(chunk=c) for c in self.order if c.id not in left_out][:k]


def _pipeline(order):
    return SimpleNamespace(kb=SimpleNamespace(chunks=lambda analysis_id: order), retriever=_Retriever(order))


def test_the_passage_a_question_was_made_from_is_left_out_of_its_ranking():
    caption, citing, other = (SimpleNamespace(id=i, text=t) for i, t in (("c", CAPTION), ("g", CITING), ("o", OTHER)))
    pipeline = _pipeline([caption, citing, other])
    question = GoldQuery(qid="q", query=CAPTION, analysis_id="A", evidence=[CITING], excluded=[CAPTION])
    (row,) = locked_metrics(pipeline, [question], "hybrid")
    assert row["MRR@10"] == 1.0  # the caption, ranked first, is not counted
    assert pipeline.retriever.left_out == [{"c"}]  # left out by the search, not after it
    (row,) = locked_metrics(pipeline, [question.model_copy(update={"excluded": []})], "hybrid")
    assert row["MRR@10"] == 0.5


def test_a_gold_passage_is_never_left_out():
    citing = SimpleNamespace(id="g", text=CITING)
    question = GoldQuery(qid="q", query="fit", analysis_id="A", evidence=[CITING], excluded=[CITING])
    (row,) = locked_metrics(_pipeline([citing]), [question], "hybrid")
    assert row["MRR@10"] == 1.0
