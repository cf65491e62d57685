"""How ``benchmarks/answer_beyond.py`` grades an answer (no model: answers built by hand)."""

from __future__ import annotations

from types import SimpleNamespace

from benchmarks import answer_beyond
from benchmarks.answer_beyond import NOT_COVERED, graded, markdown, run_compare, summary, unit
from benchmarks.corpora.beyond_questions import COMPARE, analysis_id
from mitra.answer.answerer import Answer, Timings
from mitra.answer.grounding import SentenceSupport
from mitra.core.types import Chunk, Hit


def hit(analysis: str, n: int) -> Hit:
    return Hit(chunk=Chunk(id=f"{analysis}#{n}", analysis_id=analysis, doc_id="paper", version="1", position=n,
                           text="gamma is 63 degrees"))


def answer(analysis: str, text: str, cited_analyses: list[str], supported: list[bool], first_ms: float = 900.0):
    sources = [hit(a, n) for n, a in enumerate(cited_analyses, start=1)]
    support = [SentenceSupport(text="s", cited=[1], supported=s) for s in supported]
    return Answer(analysis_id=analysis, question="q", text=text, sources=sources,
                  cited=list(range(1, len(sources) + 1)), support=support,
                  timings=Timings(first_token_ms=first_ms))


def test_a_part_is_graded_on_its_facts_and_an_unanswerable_one_on_saying_so():
    assert unit("gamma = 63 degrees [1]", ("63",)) == {"facts": 1.0}
    assert unit("gamma = 63 degrees [1]", ("63", "Run 2")) == {"facts": 0.5}
    assert unit("The documents do not cover the Belle II projection.", ()) == {"facts": None, "abstained": True}
    assert unit("Belle II expects 0.01 rad.", ()) == {"facts": None, "abstained": False}
    assert unit("anything", (), abstained=True)["abstained"]  # the part's own flag wins over the words
    assert NOT_COVERED.search("It is not covered by the passages.") and not NOT_COVERED.search("Not only 63 [1].")


def test_compare_counts_a_citation_of_the_other_analysis_as_wrong(monkeypatch):
    q = COMPARE[0]
    a, b = (analysis_id(x) for x in q.arxiv_ids)
    answers = [answer(a, "gamma is 63 degrees [1].", [a, b], [True, False]),
               answer(b, "gamma is 92 degrees [1].", [b], [True])]
    monkeypatch.setattr(answer_beyond, "readable", lambda pipeline, ids: ids)
    monkeypatch.setattr(answer_beyond, "compare", lambda *args: SimpleNamespace(answers=answers))
    monkeypatch.setattr(answer_beyond, "COMPARE", (q,))
    [row] = run_compare(None, None, None)
    assert row["wrong_analysis_citations"] == 1  # A's answer cited one of B's passages
    assert [u["facts"] for u in row["units"]] == [1.0, 1.0]
    assert (row["cited_sentences"], row["supported_sentences"]) == (3, 2)
    assert row["first_token_ms"] == [900.0, 900.0]


def test_the_summary_averages_parts_and_reads_as_one_table_row():
    rows = [{**graded(answer("A", "63 [1]", ["A"], [True], 1000.0), {"A"}),
             "units": [{"facts": 1.0}, {"facts": None, "abstained": True}]},
            {**graded(answer("A", "x [1]", ["B"], [False], 3000.0), {"A"}), "units": [{"facts": 0.0}]},
            {"outcome": "switch", "units": []}]
    s = summary(rows)
    assert s["questions"] == 3 and s["not_answered"] == 1
    assert (s["key_point_coverage"], s["parts_or_analyses"]) == (0.5, 2)
    assert (s["supported_citations"], s["cited_sentences"]) == (0.5, 2)
    assert (s["abstention_unanswerable"], s["unanswerable_parts"]) == (1.0, 1)
    assert s["wrong_analysis_citations"] == 1
    assert (s["first_token_ms_mean"], s["first_token_ms_p50"]) == (2000, 2000)
    table = markdown({"types": {"single": {"summary": s}}})
    assert "| single | 3 | 50% of 2 | 50% of 2 | 100% of 1 | 1 | 2,000 / 2,000 ms |" in table
