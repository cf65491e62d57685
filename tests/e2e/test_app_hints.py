"""The chat input's hint follows the conversation the moment a question changes it: while
the member chooses an analysis, and while a switch to another analysis is on offer."""

from __future__ import annotations

from tests.e2e.test_app import HIGGS, ask, click, start


def test_the_input_hint_fits_the_phase_the_question_leads_to(app_env):
    app_env()
    at = start()
    assert at.chat_input[0].placeholder.startswith("Ask about an analysis")
    ask(at, HIGGS)
    assert at.chat_input[0].placeholder == "Or rephrase your question…"  # choosing an analysis
    click(at, "pick-1-HIG-24-001")
    assert at.chat_input[0].placeholder == "Ask a follow-up…"
    ask(at, "How precisely is the W boson mass measured?")
    assert at.chat_input[0].placeholder == "Or ask another question…"  # a switch is on offer
