"""Issue 30 in a real browser: the demo's two reported answers come out visibly corrected.
`streamlit run app.py` on the demo knowledge base, driven by Debian's Chromium; the model is
the Ollama wire-protocol stub, scripted to answer as the demo's Qwen 1.5B did:

1. "Up to what mass is the vector mediator excluded …?" answered with the axial-vector limit
   (2.05 TeV) cited from the abstract: the member sees the Results sentence stating the vector
   mediator's limit, quoted, its number marked, and a note saying the model's figure did not
   match; never "2.05 TeV" beside a citation.
2. Across analyses, "How is the muon momentum scale calibrated?" (the model once credited
   HIG-24-001's Kalman-filter method to SMP-24-002): each analysis is answered in its own
   lock, so each line stands on its own analysis's passages (issue 49)."""

from __future__ import annotations

import re
import shutil
import time

import pytest

from tests.conftest import OLLAMA_MODEL, app_environment
from tests.fixtures.browser import open_tab, serve_app
from tests.fixtures.ollama_stub import OllamaStub, running_stub
from tests.integration.answer.test_numbers import passage_with

# A value question whose model chooses none of the candidates, so it writes prose and its
# figure is checked (the model's choice itself: test_browser_values.py).
VECTOR = "Which vector mediator masses are excluded in the dark matter search with an energetic jet?"

MUON_SCALE = "How is the muon momentum scale calibrated?"


def scripted(request: dict) -> str:
    if "format" in request:  # the value choice: none of them
        return '{"value": "none"}'
    asked = request["messages"][-1]["content"]
    if "vector mediator" in asked:
        return f"The vector mediator is excluded for masses below 2.05 TeV [{passage_with(request, 'below 2.05 TeV')}]."
    if "muon momentum scale" in asked:  # each analysis in its own lock: its passage on the scale, read out
        for n, body in re.findall(r'<passage n="(\d+)"[^\n]*\n(.*?)\n</passage>', asked, re.S):
            if "momentum scale" in body:
                sentence = next(s for s in re.split(r"(?<=[.!?])\s+", body) if "momentum scale" in s)
                return f"{sentence.rstrip('.')} [{n}]."
    return "I cannot tell [1]."


@pytest.fixture(scope="module")
def demo_app(demo_kb, tmp_path_factory):
    data_dir = tmp_path_factory.mktemp("numbers") / "kb"
    shutil.copytree(demo_kb, data_dir)  # the app writes its conversations and audit beside the stores
    with running_stub(OllamaStub(pulled=[OLLAMA_MODEL], reply=scripted)) as stub:
        env = app_environment(data_dir, llm_backend="ollama", ollama_host=stub.url, ollama_model=OLLAMA_MODEL)
        with serve_app(env, tmp_path_factory.mktemp("streamlit")) as url:
            yield url


def last_answer(tab) -> str:
    tab.source_cards()  # drawn once the checked answer is
    return tab.last_text("[data-testid=stChatMessage]")


def test_the_axial_vector_limit_is_replaced_by_the_vector_mediators_sentence(browser, demo_app):
    tab = open_tab(browser, demo_app, new=False)
    tab.ask(VECTOR)
    tab.pick("EXO-24-003")
    # its rating buttons are drawn last: under CI's load the page was read with the cards up
    # and the prose still held at its unchecked figure ("… excluded for masses below")
    tab.find("[data-testid=stChatMessage] [class*='st-key-rate-']")
    answer = last_answer(tab)
    assert "did not match" in answer, answer  # the whole answer: pytest cuts the middle of a long one
    assert "2.05 TeV for the axial-vector mediator, not the vector mediator" in answer, answer
    # 2.05 TeV only as the labelled sibling beside the value box's vector limit
    assert "2.10 TeV" in answer and not re.search(r"(?<!axial-vector )2\.05 TeV \[\d\]", answer)
    marked = tab.texts("[data-testid=stChatMessage] strong")
    assert "2.10 TeV" in marked  # the quoted sentence's number, marked


def test_an_across_answer_gives_each_analysis_its_own_line_citing_its_own_passages(browser, demo_app):
    """Issue 49: "How is the muon momentum scale calibrated?" across analyses is answered in
    each analysis's lock, a line each, so HIG-24-001's Kalman-filter method can only stand on
    HIG-24-001's passages; the synthesis names the analyses that answer."""
    tab = open_tab(browser, demo_app, new=True)
    tab.choose("Across analyses")
    tab.ask(MUON_SCALE)
    deadline = time.monotonic() + 90
    while "analyses searched answer this" not in (answer := last_answer(tab)) and time.monotonic() < deadline:
        time.sleep(0.5)
    lines = {line.split(":")[0]: line for line in answer.splitlines() if re.match(r"[A-Z]+-24-\d{3}: ", line)}
    assert {"HIG-24-001", "SMP-24-002"} <= set(lines), answer
    assert "Kalman" in lines["HIG-24-001"] and "Kalman" not in lines["SMP-24-002"]
    assert re.search(r"\d of \d analyses searched answer this: .*HIG-24-001 \[\d", answer)
    assert "credited" not in answer and "Corrected" not in answer
