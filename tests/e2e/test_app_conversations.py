"""Saved conversations through ``AppTest``, on both back ends: a member's answered turns
survive an app restart, the sidebar lists them, one click reopens one, locked again on its
analysis; another member sees none of it."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from mitra.access.users import open_users
from mitra.core.settings import Settings
from mitra.store.conversations import ConversationStore
from tests.conftest import OLLAMA_MODEL, REPO

HIGGS = "What is the dominant background in the dimuon Higgs search?"
FOLLOW_UP = "Which background dominates the Higgs to two muons search?"
PASSWORD = "correct horse battery"


@pytest.fixture
def members_app(tmp_path, monkeypatch, database_url, embedder, corpus_jsonl, ollama_stub):
    """The sample analyses indexed into a fresh store, two local members, the app's env
    pointing at them and at the Ollama stub; the app's process-wide caches reset."""
    import streamlit as st

    from ingest.sources.jsonl import index_jsonl
    from mitra.core.settings import get_settings
    from mitra.retrieval.pipeline import build_pipeline
    from tests import conftest

    settings = Settings(_env_file=None, data_dir=tmp_path / "kb", reranker="none", database_url=database_url)
    index_jsonl(build_pipeline(settings, embedder=embedder, with_reranker=False).kb, corpus_jsonl)
    for name in ("alice", "bob"):
        open_users(settings).add(name, PASSWORD, [])
    env = {"DATA_DIR": tmp_path / "kb", "RERANKER": "none", "AUTH": "local", "LLM_BACKEND": "ollama",
           "OLLAMA_HOST": ollama_stub.url, "OLLAMA_MODEL": OLLAMA_MODEL, "DATABASE_URL": database_url}
    for key, value in env.items():
        if value is None:
            monkeypatch.delenv(f"MITRA_{key}", raising=False)
        else:
            monkeypatch.setenv(f"MITRA_{key}", str(value))
    conftest._APP_ENV.clear()  # the next app_env user reloads the app's caches

    def restart() -> None:
        """What a new app process starts from: no cached settings, models or stores."""
        get_settings.cache_clear()
        st.cache_resource.clear()

    restart()
    yield restart, settings
    restart()


def signed_in(name: str) -> AppTest:
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=120).run()
    at.text_input[0].set_value(name)
    at.text_input[1].set_value(PASSWORD)
    at.button[0].click().run()
    assert not at.exception, at.exception
    return at


def answer_view(at: AppTest) -> dict:
    """What the last answer shows: its text, the checks' notes, captions, and its passages' cards."""
    message = at.chat_message[-1]
    return {"markdown": [m.value for m in message.markdown], "captions": [c.value for c in message.caption],
            "warnings": [w.value for w in message.warning], "quotes": [i.value for i in message.info],
            "passages": [e.label for e in message.expander]}


def lead_lines(at: AppTest) -> list[str]:
    """The routing, lock and switch lines of the conversation, in order."""
    return [e.value for m in at.chat_message for e in [*m.caption, *m.markdown]
            if e.value.startswith(("Proposed", ":material/lock: Locked on"))]


def conversations(at: AppTest) -> list:
    return [b for b in at.sidebar.button if b.key and b.key.startswith("conversation-")]


def test_a_conversation_survives_a_restart_and_reopens_for_its_owner_only(members_app):
    at = signed_in("alice")
    assert conversations(at) == []
    at.chat_input[0].set_value(HIGGS).run()
    pick = next(b for b in at.button if b.key and b.key.startswith("pick-") and b.key.endswith("-HIG-24-001"))
    pick.click().run()
    assert not at.exception, at.exception
    live = answer_view(at)
    answer = at.chat_message[-1].markdown[0].value  # the stub's answer, or the notice that withholds it
    led = lead_lines(at)
    assert any(line.startswith("Proposed: HIG-24-001") for line in led) and any("Locked on **HIG" in x for x in led)

    restart, settings = members_app
    restart()  # the app restarts: a new process, a new browser session
    at = signed_in("alice")
    (saved,) = conversations(at)
    assert saved.label == HIGGS
    saved.click().run()
    assert not at.exception, at.exception
    shown = "\n".join(m.value for m in [*at.markdown, *at.caption])
    assert HIGGS in shown and answer in shown
    assert answer_view(at) == live  # the answer, its notes and its passages, as they were shown
    assert lead_lines(at) == led  # and the routing and lock lines before it (issue 47)
    assert at.get_by_key("lock-banner") is not None and "HIG-24-001" in shown  # locked again on its analysis

    at.chat_input[0].set_value(FOLLOW_UP).run()  # a follow-up goes to the same conversation
    assert not at.exception, at.exception
    (only,) = ConversationStore.open(settings).list("alice")
    assert [t.question for t in ConversationStore.open(settings).turns(only.id, "alice")] == [HIGGS, FOLLOW_UP]

    assert conversations(signed_in("bob")) == []  # only its owner sees it


def test_a_reopened_answer_shows_what_was_shown_live(members_app, ollama_stub):
    """Issue 30: after a restart the reopened answer is drawn as it was: its text, the
    quoted passage sentence of a value question, the checks' notes (a moved citation here)
    and its passages, which open as they did."""
    from tests.integration.answer.test_numbers import passage_with

    def reply(request: dict) -> str:
        if "format" in request:  # the value candidates: none, so the model writes prose
            return '{"choice": 0}'
        holds = passage_with(request, "parton distribution function")
        other = next(n for n in range(1, 6) if n != holds)
        return f"The dominant systematic uncertainty is the parton distribution function modelling [{other}]."

    ollama_stub.reply = reply
    at = signed_in("alice")
    at.chat_input[0].set_value("How large is the dominant systematic uncertainty on the W boson mass?").run()
    next(b for b in at.button if b.key and b.key.endswith("-SMP-24-003")).click().run()
    assert not at.exception, at.exception
    live = answer_view(at)
    assert any("Citation moved" in c for c in live["captions"]) and live["passages"]
    assert live["quotes"] and "**9 MeV**" in live["quotes"][0]  # the passage's own sentence, before the prose

    restart, _ = members_app
    restart()
    at = signed_in("alice")
    conversations(at)[0].click().run()
    assert not at.exception, at.exception
    assert answer_view(at) == live
