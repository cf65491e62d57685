"""Which follow-ups wait for the model's rewrite with the conversation (``needs_history``):
labelled physics follow-ups of both kinds, the repo's own follow-ups, and the first
questions of the benchmark sets, which stand alone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.corpora.beyond_questions import ACROSS, COMPARE, MULTIPART
from benchmarks.corpora.demo_questions import DEMO_QUESTIONS
from mitra.answer.followup import needs_history, substituted

HISTORY = ["What is the dominant background in the signal region?"]

STANDS_ALONE = [
    "What is the dominant background in the signal region?",
    "What is the observed limit on the vector mediator mass?",
    "Which systematic uncertainty dominates this analysis?",
    "Is this result compatible with the SM?",
    "How does this measurement relate to other results?",
    "What is the background that dominates the signal region?",  # relative "that"
    "Is it true that the Z background dominates?",  # dummy "it"
    "Why is it so difficult to work with photons at LHCb?",
    "Where in the note is it stated that the trigger is fully efficient?",
    "What are the considered backgrounds and how are they addressed?",  # "they" named before
    "What is the luminosity of the 2016 data, and how is it measured?",
    "How does the analysis estimate its background?",  # "its": the subject's
    "Is there a second minimum in the likelihood scan?",  # existential "there"
    "Does the fit use the same binning as the 2016 analysis?",
    "Who measured the W boson mass?",
    "How many annotators participated?",
    "Explain the fit model.",
    "What is the luminosity?",
    "Which background dominates the Higgs to two muons search?",
]

POINTS_BACK = [
    "How is it estimated?",
    "And the expected one?",
    "What about the 2017 data?",
    "What does the analysis use that for?",
    "What about the muon channel?",
    "and for 2017?",
    "How about the systematic?",
    "Why?",
    "And its uncertainty?",
    "Observed significance?",
    "For 2017?",
    "Luminosity?",
    "Also, which generator models the signal?",
    "Same for the electron channel?",
    "What is the uncertainty on its mass?",
    "What is its uncertainty?",
    "Is the signal efficiency lower there?",
    "Are there any others?",
    "Is the same selection used in the control region?",
    "How large is that uncertainty?",
    "Is that significant?",
    "Which background is it?",
    "Which of these is the largest?",
    "How precise is the latter?",
    "What is the pileup profile of those events?",
    "Why is the expected limit weaker than the observed one?",
    "What does it mean?",
    "Is the electron channel included too?",
    "What else contributes to the background?",
]


@pytest.mark.parametrize("question", STANDS_ALONE)
def test_a_follow_up_that_stands_alone_is_retrieved_as_asked(question):
    assert not needs_history(question, HISTORY)


@pytest.mark.parametrize("question", POINTS_BACK)
def test_a_follow_up_that_points_back_needs_the_conversation(question):
    assert needs_history(question, HISTORY)


def test_a_first_question_never_needs_a_history():
    assert not needs_history("How is it estimated?")
    assert not needs_history("   ", HISTORY)


def test_the_repos_own_follow_ups_are_labelled_right():
    """The follow-ups the integration and browser tests ask after a first question."""
    assert needs_history("And the largest systematic uncertainty?", HISTORY)  # tests/e2e/test_app.py
    assert needs_history("And its size?", HISTORY)  # tests/integration/chat/test_session_across.py
    assert not needs_history("Which background dominates the Higgs to two muons search?", HISTORY)


def test_no_question_of_the_demo_and_beyond_sets_needs_a_history():
    """97 questions written to be asked on their own: none waits for a rewrite."""
    questions = [q.question for q in DEMO_QUESTIONS] + [m.question for m in MULTIPART]
    questions += [p.question for m in MULTIPART for p in m.parts] + [q.question for q in (*ACROSS, *COMPARE)]
    assert [q for q in questions if needs_history(q, HISTORY)] == []


def test_no_lhcb_expert_question_needs_a_history(shared_root: Path):
    """The 33 expert questions ("Is this result compatible with the SM?", "Why is it so
    difficult to work with photons at LHCb?") are asked inside a locked paper."""
    data = json.loads((shared_root / "data/lhcb/lhcb_expert_qa.json").read_text())
    assert [q["question"] for q in data if needs_history(q["question"], HISTORY)] == []


def test_qasper_questions_point_back_only_through_they_and_this_dataset(shared_root: Path):
    """QASPER asks about "they" (the authors): read as pointing back, a needless rewrite
    (21 of its 87 questions), never a missed one."""
    data = json.loads((shared_root / "data/qasper/qasper_dev_subset_with_fulltext_and_evidence.json").read_text())
    flagged = [q["question"] for paper in data for q in paper["qas"] if needs_history(q["question"], HISTORY)]
    assert len(flagged) <= 21
    assert all(any(w in q.lower().split() for w in ("they", "their", "this")) for q in flagged)


SWAPS = [
    ("Up to what mass is the vector mediator excluded?", "And the axial-vector one?",
     "Up to what mass is the axial-vector mediator excluded?"),
    ("How many signal events does the VBF category expect with the first 2024 data?",
     "And how many in the ggF category?",
     "How many signal events does the ggF category expect with the first 2024 data?"),
    ("What observed significance of the excess does the analysis find?", "And the expected one?",
     "What expected significance of the excess does the analysis find?"),
    ("How large is the statistical uncertainty on the W mass?", "What about the systematic uncertainty?",
     "How large is the systematic uncertainty on the W mass?"),
    # a hadron for one of its family (value_timing.py: SmolLM2's rewrite was "The answer is 3.66.")
    ("What does the standard model predict for the Bs to mumu branching fraction?", "And for the B0?",
     "What does the standard model predict for the B0 to mumu branching fraction?"),
    ("What is the Lambdab0 lifetime?", "What about the Xi_b?", "What is the Xi_b lifetime?"),
]


@pytest.mark.parametrize("previous, follow_up, expected", SWAPS)
def test_a_follow_up_that_swaps_a_qualifier_is_rewritten_in_code(previous, follow_up, expected):
    assert needs_history(follow_up, [previous]) and substituted(follow_up, previous) == expected


@pytest.mark.parametrize("follow_up", ["And for the B0?", "How precise is it?",
                                       "And the axial-vector mediator at 13 TeV?", "And the ZZ channel?"])
def test_a_follow_up_that_says_more_than_a_qualifier_is_left_to_the_model(follow_up):
    """A particle, a pronoun, a data set the earlier question does not name, or a class it
    names no value of: the swap would lose it."""
    assert substituted(follow_up, "Up to what mass is the vector mediator excluded?") is None
