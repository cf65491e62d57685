"""The brief's links in the app (``AppTest``, the real pipeline and the embedded SmolLM2): a
"Where to start" question link opens the chat locked on its analysis and asks the question,
once; the lock header offers the Brief; a link naming an analysis the member may not read
locks on nothing."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from mitra.brief.questions import chat_link
from mitra.chat.session import AnswerTurn
from tests.conftest import REPO

QUESTION = "What is the dominant background?"


def opened(link: str) -> AppTest:
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=180)
    for pair in link.split("?", 1)[1].split("&"):
        key, value = pair.split("=", 1)
        at.query_params[key] = value.replace("+", " ").replace("%3F", "?")
    at.run()
    assert not at.exception, at.exception
    return at


def test_a_question_link_locks_the_chat_on_its_analysis_and_asks_it_once(app_env):
    at = opened(chat_link("HIG-24-001", QUESTION))
    session = at.session_state.session
    assert session.analysis is not None and session.analysis.id == "HIG-24-001"
    asked = [e for e in session.transcript if isinstance(e, AnswerTurn)]
    assert [t.question for t in asked] == [QUESTION]
    assert not at.query_params  # asked once: a rerun does not ask again
    at.run()
    assert len([e for e in at.session_state.session.transcript if isinstance(e, AnswerTurn)]) == 1
    assert any(link.label == "Brief" for link in at.get("page_link"))  # beside the lock header


def test_a_link_to_an_unknown_analysis_locks_on_nothing(app_env):
    at = opened(chat_link("HIG-99-999", QUESTION))
    assert at.session_state.session.analysis is None
    assert not [e for e in at.session_state.session.transcript if isinstance(e, AnswerTurn)]
