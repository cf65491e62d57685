"""The frozen value questions (issue 46): enough of them, well formed, each value stated by
its evidence, and the number matching the benchmark counts with."""

from __future__ import annotations

from decimal import Decimal

import pytest

from benchmarks.corpora.value_questions import FRESH_SETS, load_value_questions, readings, states, value_of
from mitra.core.text import clean_latex

QUESTIONS = load_value_questions()


def test_at_least_150_questions_with_unique_ids():
    assert len(QUESTIONS) >= 150
    assert len({q.id for q in QUESTIONS}) == len(QUESTIONS)


def test_both_sources_are_there():
    sets = {q.set for q in QUESTIONS}
    assert sets == {"pdfs", "lhcb"}
    assert len({q.source for q in QUESTIONS if q.set == "pdfs"}) == 16


@pytest.mark.parametrize("at, name", enumerate(FRESH_SETS))
def test_each_later_set_is_apart_well_formed_and_states_its_values(at, name):
    fresh = load_value_questions(FRESH_SETS[name])
    before = QUESTIONS + [q for other in list(FRESH_SETS.values())[:at] for q in load_value_questions(other)]
    assert len(fresh) == 72 and {q.set for q in fresh} == {name}
    assert not {q.source for q in fresh} & {q.source for q in before}
    assert not {q.id for q in fresh} & {q.id for q in before}
    # as the knowledge base reads it: "1\\hspace{0.5mm}234" is 1234 once the LaTeX is cleaned
    assert not [q.id for q in fresh if not (states(q.evidence, q.value) or states(clean_latex(q.evidence), q.value))]
    assert all(value_of(q.sibling) != value_of(q.value) for q in fresh if q.sibling is not None)


def test_each_has_a_value_a_quantity_and_evidence():
    for q in QUESTIONS:
        assert q.question.strip() and q.quantity.strip() and q.evidence.strip(), q.id
        assert value_of(q.value) is not None, q.id
        assert (q.sibling is None) == (q.sibling_quantity is None), q.id


def test_the_evidence_states_the_value():
    missing = [q.id for q in QUESTIONS if not states(q.evidence, q.value)]
    assert not missing


def test_a_sibling_is_another_value():
    for q in QUESTIONS:
        if q.sibling is not None:
            assert value_of(q.sibling) != value_of(q.value), q.id


def test_numbers_match_as_numbers():
    assert states("a local significance of 5 standard deviations", "5.0")
    assert states("the fit gives 80 353 MeV", "80353")
    assert states(r"Signal yield & $20\,600 \pm 1\,600$\\", "20 600")
    assert states("48,705 tags", "48,705")
    assert states(r"reduced to $\sim5\%$", "5")
    assert states("about 0.12 GeV", "120", "MeV")  # another prefix of the unit, written after it
    assert not states("about 0.12", "120", "MeV")
    assert not states("5.8 standard deviations", "5.0")
    assert {Decimal(5653), Decimal(128774)} <= readings("Inclusive 3.32 5 653 128 774 4.2 15.6")


def test_an_answer_is_right_only_when_it_leads_with_the_value():
    """A warned list whose first value is another one does not answer the question, though it
    holds the value further down."""
    from benchmarks.answer_values import scored

    q = next(q for q in QUESTIONS if q.id == "1207.7235-01")  # local significance 5.0, sibling 5.8
    assert scored("5.0 σ (observed local) [3], as the passage states: “…” Beside it: expected 5.8 σ [3].", q,
                  False) == "right"
    assert scored("Not sure which value is asked. The likeliest is 5.0 σ [3]; the passages also state 2.1 [1].",
                  q, False) == "right"
    assert scored("Not sure which value is asked. The likeliest is 2.1 [1]; the passages also state 5.0 σ [3].",
                  q, False) == "listed"
    assert scored("The expected local significance is 5.8 σ [3].", q, False) == "wrong"
    assert scored("The passages of PDF-1207.7235v2 do not say this.", q, True) == "none"
