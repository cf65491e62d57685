"""The conversation state machine on the real pipeline (Chroma, MiniLM) and the real answerer."""

from __future__ import annotations

import pytest

from mitra.chat.session import (
    AnswerTurn,
    Candidates,
    Locked,
    Notice,
    Phase,
    RetrievalOnly,
    SearchPrompt,
    SearchResults,
    Session,
    SessionError,
    UserSaid,
    find_analyses,
    load_answerer,
)
from mitra.core.types import Analysis

HIGGS_QUESTION = "What is the dominant background in the dimuon Higgs search?"


@pytest.fixture
def session(pipeline, answerer) -> Session:
    return Session(pipeline, answerer)


def answer(turn: AnswerTurn) -> str:
    return "".join(turn.tokens())


def test_first_question_proposes_top_three_analyses(session):
    events = session.submit(HIGGS_QUESTION)
    assert isinstance(events[0], UserSaid)
    (choice,) = events[1:]
    assert isinstance(choice, Candidates)
    assert [o.analysis.id for o in choice.options][0] == "HIG-24-001"
    assert len(choice.options) == 3
    assert choice.options[0].analysis.title and choice.options[0].analysis.abstract
    assert choice.options[0].score >= choice.options[1].score
    assert session.phase is Phase.choosing and session.analysis is None


def test_confirm_locks_and_answers_the_pending_question(session):
    session.submit(HIGGS_QUESTION)
    locked, turn = session.confirm("HIG-24-001")
    assert isinstance(locked, Locked) and locked.analysis.id == "HIG-24-001"
    assert [d.document.doc_id for d in locked.documents] == ["AN-2024-001"]
    assert isinstance(turn, AnswerTurn) and turn.question == HIGGS_QUESTION
    text = answer(turn)
    assert text and turn.done and turn.error is None
    assert turn.answer is not None and turn.passages
    assert {h.chunk.analysis_id for h in turn.passages} == {"HIG-24-001"}
    assert session.phase is Phase.locked and len(session.history) == 1


def test_pick_another_candidate(session):
    session.submit("What is the dominant background?")
    _, turn = session.confirm("SMP-24-003")
    answer(turn)
    assert session.analysis.id == "SMP-24-003"
    assert {h.chunk.analysis_id for h in turn.passages} == {"SMP-24-003"}


def test_none_of_these_then_search_by_name_then_confirm(session):
    session.submit("What is the dominant background?")
    (prompt,) = session.none_of_these()
    assert isinstance(prompt, SearchPrompt) and prompt.question == "What is the dominant background?"
    assert session.phase is Phase.searching
    _, results = session.submit("monojet")
    assert isinstance(results, SearchResults) and [a.id for a in results.matches] == ["EXO-24-002"]
    locked, turn = session.confirm("EXO-24-002")
    assert locked.analysis.id == "EXO-24-002" and turn.question == "What is the dominant background?"


def test_none_of_these_then_a_rephrase_routes_again(session):
    session.submit("What is the dominant background?")
    session.none_of_these()
    _, choice = session.submit("backgrounds of the W boson mass measurement")
    assert isinstance(choice, Candidates) and choice.options[0].analysis.id == "SMP-24-003"
    assert session.phase is Phase.choosing
    assert session.pending_question == "backgrounds of the W boson mass measurement"


def test_rephrase_while_choosing_routes_again(session):
    session.submit("What is the dominant background?")
    _, choice = session.submit("dark matter limits on the mediator mass")
    assert choice.options[0].analysis.id == "EXO-24-002"


def test_follow_up_is_condensed_and_stays_in_the_lock(session):
    session.submit(HIGGS_QUESTION)
    _, first = session.confirm("HIG-24-001")
    answer(first)
    _, follow = session.submit("And the largest systematic uncertainty?")
    assert isinstance(follow, AnswerTurn) and follow.history[0].question == HIGGS_QUESTION
    answer(follow)
    assert follow.standalone  # rewritten by the answerer with the history
    assert {h.chunk.analysis_id for h in follow.passages} == {"HIG-24-001"}
    assert [e.question for e in session.history] == [HIGGS_QUESTION, follow.standalone]  # as retrieval read it


def test_a_chain_of_swapped_qualifiers_is_rewritten_in_code_at_each_step(session):
    """Each follow-up swaps a qualifier of the question before as retrieval read it, so the
    second swap is rewritten in code too, not by the model from "And in the ggH category?"."""
    session.submit("What is the observed signal strength in the VBF category?")
    _, first = session.confirm("HIG-24-001")
    answer(first)
    _, second = session.submit("And in the ggH category?")
    answer(second)
    assert second.standalone == "What is the observed signal strength in the ggH category?"
    _, third = session.submit("And the expected one?")
    answer(third)
    assert third.standalone == "What is the expected signal strength in the ggH category?"


def test_switch_drops_the_lock_and_history(session):
    session.submit(HIGGS_QUESTION)
    _, turn = session.confirm("HIG-24-001")
    (notice,) = session.switch()
    assert isinstance(notice, Notice) and "HIG-24-001" in notice.text
    assert session.phase is Phase.new and session.analysis is None and session.history == []
    answer(turn)  # a turn that finishes after the switch does not leak into the new conversation
    assert session.history == []
    _, choice = session.submit("W boson mass")
    assert isinstance(choice, Candidates)


def test_new_conversation_resets_everything(session):
    session.submit(HIGGS_QUESTION)
    session.confirm("HIG-24-001")
    assert session.new_conversation() == []
    assert session.phase is Phase.new and session.transcript == [] and session.analysis is None


def test_sessions_do_not_share_state(pipeline, answerer):
    a, b = Session(pipeline, answerer), Session(pipeline, answerer)
    a.submit(HIGGS_QUESTION)
    a.confirm("HIG-24-001")
    b.submit("W boson mass")
    b.confirm("SMP-24-003")
    assert (a.analysis.id, b.analysis.id) == ("HIG-24-001", "SMP-24-003")
    assert len(a.transcript) == len(b.transcript) == 4


def test_llm_down_keeps_the_passages(pipeline, unreachable_answerer):
    session = Session(pipeline, unreachable_answerer)
    session.submit(HIGGS_QUESTION)
    _, turn = session.confirm("HIG-24-001")
    assert answer(turn) == ""
    assert turn.error and turn.answer is None
    assert turn.passages and turn.passages[0].chunk.analysis_id == "HIG-24-001"
    assert session.history == []


@pytest.mark.parametrize(
    "action, args",
    [("confirm", ("HIG-24-001",)), ("none_of_these", ())],
)
def test_actions_out_of_turn_are_refused(session, action, args):
    with pytest.raises(SessionError):
        getattr(session, action)(*args)
    assert session.phase is Phase.new and session.transcript == []


def test_unknown_analysis_and_empty_input_are_refused(session):
    with pytest.raises(SessionError):
        session.submit("   ")
    session.submit(HIGGS_QUESTION)
    with pytest.raises(SessionError, match="NOPE-1"):
        session.confirm("NOPE-1")
    assert session.phase is Phase.choosing  # nothing lost: the question still waits


def test_find_analyses_matches_ids_titles_and_word_prefixes():
    catalog = [
        Analysis(id="HIG-24-001", title="Search for the Higgs boson decaying to two muons"),
        Analysis(id="HIG-24-010", title="Higgs boson pair production"),
        Analysis(id="SMP-24-003", title="Measurement of the W boson mass"),
    ]
    ids = lambda text: [a.id for a in find_analyses(text, catalog)]  # noqa: E731
    assert ids("hig-24-001") == ["HIG-24-001"]
    assert ids("HIG-24")[:2] == ["HIG-24-001", "HIG-24-010"]
    assert ids("muon higgs") == ["HIG-24-001"]
    assert ids("w mass") == ["SMP-24-003"]
    assert ids("boson")[:3] and set(ids("boson")) == {a.id for a in catalog}
    assert ids("neutrino oscillation") == [] and ids("  ") == []


def test_feedback_is_stored_and_exported_as_eval_gold(tmp_path):
    from mitra.evaluation.retrieval import GoldQuery
    from mitra.evaluation.feedback import Feedback, FeedbackStore

    store = FeedbackStore(tmp_path / "feedback.sqlite")
    up = store.add(Feedback(analysis_id="HIG-24-001", question="and its size?", standalone="size of the DY background",
                            answer="Large [1].", cited_chunk_ids=["c1"], rating=1))
    store.add(Feedback(analysis_id="SMP-24-003", question="W mass?", answer="80 GeV", cited_chunk_ids=["c9"], rating=-1))
    store.set_reason(up, "  precise and cited ")
    assert [f.reason for f in store.all()] == ["precise and cited", ""]
    gold = [GoldQuery.model_validate_json(line) for line in store.to_jsonl().splitlines()]
    assert gold[0].query == "size of the DY background" and gold[0].relevant_chunk_ids == ["c1"] and gold[0].has_gold
    assert gold[1].relevant_chunk_ids == [] and not gold[1].has_gold and gold[1].set == "feedback-down"
    with pytest.raises(ValueError):
        Feedback(analysis_id="x", question="q", answer="a", rating=0)


def test_a_model_that_cannot_load_leaves_retrieval_working(pipeline):
    from tests.conftest import closed_port

    down = pipeline.settings.model_copy(update={"llm_backend": "ollama", "ollama_host": f"http://127.0.0.1:{closed_port()}"})
    pipeline.settings = down
    answerer = load_answerer(pipeline)
    assert isinstance(answerer, RetrievalOnly) and "not reachable" in str(answerer.error)
    session = Session(pipeline, answerer)
    session.submit(HIGGS_QUESTION)
    _, turn = session.confirm("HIG-24-001")
    assert answer(turn) == "" and "ollama serve" in turn.error
    assert turn.passages and {h.chunk.analysis_id for h in turn.passages} == {"HIG-24-001"}


def test_an_answer_a_rerun_interrupts_is_asked_again_when_drawn_and_abandoned_for_a_new_question(session):
    session.submit(HIGGS_QUESTION)
    _, turn = session.confirm("HIG-24-001")
    tokens = turn.tokens()
    assert next(tokens)
    tokens.close()  # what a Streamlit rerun does to a stream in progress
    assert not turn.done and turn.answer is None and turn.error is None and turn.passages == []
    assert session.history == []
    assert answer(turn) and turn.done and turn.answer is not None and len(session.history) == 1  # drawn again
    _, follow_up = session.submit("And the largest systematic uncertainty?")
    tokens = follow_up.tokens()
    assert next(tokens)
    tokens.close()
    session.submit("And the expected significance?")  # the member moved on: said so, not asked again
    assert follow_up.done and follow_up.answer is None and "interrupted" in follow_up.error
    assert answer(follow_up) == "" and len(session.history) == 1


def test_every_step_is_in_the_audit_trail_with_what_was_served(pipeline, answerer, tmp_path):
    from mitra.access.policy import Principal
    from mitra.audit import AuditLog

    trail = AuditLog(pipeline.settings.model_copy(update={"audit_file": tmp_path / "audit.jsonl"}))
    alice = pipeline.for_principal(Principal("alice", frozenset({"exo"})))
    session = Session(alice, answerer.for_pipeline(alice), trail)
    session.submit(HIGGS_QUESTION)
    (turn,) = [e for e in session.confirm("HIG-24-001") if isinstance(e, AnswerTurn)]
    answer(turn)
    events = list(trail.read(user="alice"))
    assert [e["event"] for e in events][:3] == ["route", "lock", "question"]
    assert events[0]["analyses"][0] == "HIG-24-001" and events[1]["analysis"] == "HIG-24-001"
    (served,) = [e for e in events if e["event"] in ("answer", "refusal")]
    assert served["chunks"] == [hit.chunk.id for hit in turn.answer.sources]
    assert all(c.startswith("AN-2024-001@") for c in served["chunks"])
    assert served["backend"] == "embedded" or served["abstained"]


def test_a_failed_answer_still_records_what_was_served(pipeline, unreachable_answerer, tmp_path):
    from mitra.audit import AuditLog

    trail = AuditLog(pipeline.settings.model_copy(update={"audit_file": tmp_path / "audit.jsonl"}))
    session = Session(pipeline, unreachable_answerer, trail)
    session.submit(HIGGS_QUESTION)
    (turn,) = [e for e in session.confirm("HIG-24-001") if isinstance(e, AnswerTurn)]
    answer(turn)
    (served,) = [e for e in trail.read() if e["event"] == "answer"]
    assert served["error"] == turn.error and served["chunks"] == [h.chunk.id for h in turn.passages] != []
    assert session.history == []
