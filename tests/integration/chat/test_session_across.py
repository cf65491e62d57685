"""The conversation's across and side-by-side actions (issue 25 parts 2-3, the app's half):
``Session.across`` and ``Session.compare`` on the real pipeline (Chroma, BM25, MiniLM over
the three sample analyses), scoped to a member by the access policy, the stand-in Ollama
answering from the passages it is sent."""

from __future__ import annotations

import json

import pytest

from mitra.answer.answerer import build_answerer
from mitra.audit import AuditLog
from mitra.chat.session import (
    AcrossTurn,
    AnswerTurn,
    Candidates,
    CompareTurn,
    Phase,
    RetrievalOnly,
    Session,
    SessionError,
    UserSaid,
)
from mitra.core.errors import MitraError
from mitra.store.conversations import ConversationStore
from tests.conftest import OLLAMA_MODEL
from tests.integration.access import test_access
from tests.integration.access.test_access import ALICE, HIGGS
from tests.integration.answer.test_across import BACKGROUND, answer_from_passages

# The sample KB read through test_access's policy: alice (group exo) may not read HIG-24-001.
policy_file, unscoped = test_access.policy_file, test_access.unscoped

DRELL_YAN = "How is the Drell-Yan background modelled?"  # only the Higgs note has Drell-Yan


@pytest.fixture
def trail(unscoped, tmp_path) -> AuditLog:
    return AuditLog(unscoped.settings.model_copy(update={"audit_file": tmp_path / "audit.jsonl"}))


@pytest.fixture
def saved(unscoped, tmp_path) -> ConversationStore:
    return ConversationStore.open(unscoped.settings.model_copy(update={"data_dir": tmp_path / "state"}))


@pytest.fixture
def session_of(unscoped, ollama_stub, trail, saved):
    """A session reading as ``principal`` (everything when None), the stub answering."""
    ollama_stub.reply = answer_from_passages
    ollama = {"llm_backend": "ollama", "ollama_host": ollama_stub.url, "ollama_model": OLLAMA_MODEL, "multipart": False}
    answerer = build_answerer(unscoped, unscoped.settings.model_copy(update=ollama))

    def make(principal=None) -> Session:
        pipeline = unscoped if principal is None else unscoped.for_principal(principal)
        return Session(pipeline, answerer.for_pipeline(pipeline), trail, conversations=saved)

    return make


def run(turn) -> str:
    return "".join(turn.tokens())


def test_a_question_without_a_clear_first_offers_across_and_answers_from_several(session_of, ollama_stub, trail):
    session = session_of()
    (offer,) = [e for e in session.submit(BACKGROUND) if isinstance(e, Candidates)]
    assert offer.offer_across and offer.margin < session.pipeline.settings.switch_margin  # EXO 1.0, HIG 0.78
    (turn,) = session.across()  # "answer across these": the question already said, not again
    assert isinstance(turn, AcrossTurn) and turn.question == BACKGROUND
    assert session.phase is Phase.new and session.pending_question is None and session.analysis is None
    text = run(turn)
    assert turn.done and turn.error is None and text
    parts = [p.analysis_id for p in turn.answer.parts]
    cited = {hit.chunk.analysis_id for _, hit in turn.answer.cited_sources}
    assert len(cited) >= 2 and cited <= set(parts) == set(turn.titles)
    assert len(ollama_stub.chats) == len(parts)  # each analysis answered in its own lock
    question, answer = [r for r in trail.read() if r["event"] in ("question", "answer")]
    assert question["mode"] == "across" and question["question"] == BACKGROUND
    assert answer["mode"] == "across" and answer["analyses"] == parts
    assert answer["chunks"] == [h.chunk.id for h in turn.answer.sources] and answer["cited"] == turn.answer.cited


def test_a_question_with_a_clear_first_offers_no_across(session_of):
    """Weak by routing's label, but the only analysis an across answer would draw on."""
    (offer,) = [e for e in session_of().submit(DRELL_YAN) if isinstance(e, Candidates)]
    assert offer.options[0].confidence == "weak" and offer.options[1].score < 0.4 * offer.options[0].score
    assert not offer.offer_across


def test_across_asked_in_a_lock_keeps_the_lock_and_its_history(session_of, saved):
    session = session_of()
    session.submit(HIGGS)
    _, first = session.confirm("HIG-24-001")
    run(first)
    said, turn = session.across(BACKGROUND)
    assert isinstance(said, UserSaid) and isinstance(turn, AcrossTurn)
    run(turn)
    assert session.phase is Phase.locked and session.analysis.id == "HIG-24-001"
    assert [e.question for e in session.history] == [HIGGS]  # the across exchange is not the lock's
    (follow,) = [e for e in session.submit("And its size?") if isinstance(e, AnswerTurn)]
    assert follow.analysis.id == "HIG-24-001" and follow.history[0].question == HIGGS

    (listed,) = saved.list(session.pipeline.principal_name)
    turns = saved.turns(listed.id, session.pipeline.principal_name)
    assert [t.question for t in turns] == [HIGGS, BACKGROUND]
    assert turns[1].analysis_id == ",".join(turn.titles) and turns[1].citations
    assert all(c.label.split(" · ")[0] in turn.titles for c in turns[1].citations)  # each names its analysis
    fresh = session_of()
    fresh.resume(listed.id)  # locked again where the member was: the across turn did not move the lock
    assert fresh.analysis.id == "HIG-24-001" and [e.question for e in fresh.history] == [HIGGS]


def test_across_for_a_member_never_serves_an_analysis_they_may_not_read(session_of, ollama_stub, trail):
    operator = session_of()
    (turn,) = operator.across(DRELL_YAN)[1:]
    run(turn)
    assert "HIG-24-001" in turn.titles  # the operator's answer draws on the Higgs note
    ollama_stub.chats.clear()
    alice = session_of(ALICE)
    (turn,) = alice.across(DRELL_YAN)[1:]
    run(turn)
    assert turn.titles and "HIG-24-001" not in turn.titles
    assert all(h.chunk.analysis_id != "HIG-24-001" for h in turn.passages)
    prompt = json.dumps(ollama_stub.chats)
    assert "HIG-24-001" not in prompt and "AN-2024-001" not in prompt and "Drell-Yan production" not in prompt
    (served,) = [r for r in trail.read(user="alice") if r["event"] in ("answer", "refusal")]
    assert "HIG-24-001" not in served["analyses"] and not any(c.startswith("AN-2024-001@") for c in served["chunks"])


def test_compare_answers_in_each_lock_side_by_side(session_of, ollama_stub, trail, saved):
    session = session_of()
    said, compared = session.compare("EXO-24-002", "HIG-24-001", BACKGROUND)
    assert isinstance(said, UserSaid) and isinstance(compared, CompareTurn) and not compared.done
    assert session.phase is Phase.new
    for turn, doc in zip(compared.turns, ("AN-2024-002", "AN-2024-001")):
        run(turn)
        assert turn.answer.cited and {h.chunk.doc_id for h in turn.passages} == {doc}
    assert compared.done and len(ollama_stub.chats) == 2
    question, *answers = [r for r in trail.read() if r["event"] in ("question", "answer")]
    assert question["mode"] == "compare" and question["analyses"] == ["EXO-24-002", "HIG-24-001"]
    assert [(a["mode"], a["analysis"]) for a in answers] == [("compare", "EXO-24-002"), ("compare", "HIG-24-001")]
    (listed,) = saved.list(session.pipeline.principal_name)
    (turn,) = saved.turns(listed.id, session.pipeline.principal_name)  # one turn, both answers
    assert turn.analysis_id == "EXO-24-002,HIG-24-001" and "**EXO-24-002**:" in turn.answer
    assert {c.label.split(" · ")[0] for c in turn.citations} == {"EXO-24-002", "HIG-24-001"}
    fresh = session_of()
    fresh.resume(listed.id)
    assert fresh.phase is Phase.new  # no lock to go back to
    asked, shown = fresh.transcript  # shown as it was: the question, both sides ended with their answers
    assert asked == said and isinstance(shown, CompareTurn) and shown.done
    assert [side.answer.text for side in shown.turns] == [side.answer.text for side in compared.turns]


def test_compare_refuses_an_analysis_the_member_may_not_read_like_a_missing_one(session_of, ollama_stub):
    alice = session_of(ALICE)
    alice.lock("EXO-24-002")
    before = list(alice.transcript)
    with pytest.raises(MitraError) as forbidden:
        alice.compare("EXO-24-002", "HIG-24-001", BACKGROUND)
    with pytest.raises(MitraError) as missing:
        alice.compare("EXO-24-002", "HIG-99-999", BACKGROUND)
    assert str(forbidden.value) == str(missing.value).replace("HIG-99-999", "HIG-24-001")
    assert str(forbidden.value) == "No analysis 'HIG-24-001' in the knowledge base (`mitra stats` lists them)."
    assert alice.transcript == before and alice.phase is Phase.locked and ollama_stub.chats == []


@pytest.mark.parametrize("action, args, error", [
    ("across", (), "no question waiting"),
    ("across", ("  ",), "Type a question first"),
    ("compare", ("EXO-24-002", "EXO-24-002", BACKGROUND), "two different analyses"),
    ("compare", ("EXO-24-002", "SMP-24-003", ""), "Type a question first"),
])
def test_across_and_compare_out_of_turn_are_one_line_errors(session_of, ollama_stub, action, args, error):
    session = session_of()
    with pytest.raises(SessionError, match=error):
        getattr(session, action)(*args)
    assert session.transcript == [] and ollama_stub.chats == []


def test_without_a_model_across_still_shows_the_passages_naming_their_analyses(unscoped):
    session = Session(unscoped, RetrievalOnly(unscoped, MitraError("no model here")))
    (turn,) = session.across(BACKGROUND)[1:]
    assert run(turn) == "" and turn.error == "no model here" and turn.answer is None
    assert len({h.chunk.analysis_id for h in turn.passages}) >= 2 and turn.reading is None
