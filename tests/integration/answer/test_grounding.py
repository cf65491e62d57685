"""Answers you can trust: off-topic questions abstain, a question about another analysis
offers a switch instead of an answer from the wrong one, and every cited sentence is
checked against its passages. On the demo corpus (real Chroma, MiniLM, BM25); the model
is the Ollama wire-protocol stub, which records whether it was called at all."""

from __future__ import annotations

import re

import pytest

from mitra.answer.answerer import Answerer
from mitra.answer.grounding import check_support, numbers, question_coverage
from mitra.chat.session import AnswerTurn, Locked, Phase, Session, SwitchOffer
from mitra.models.llm import load_chat_model
from tests.conftest import OLLAMA_MODEL


@pytest.fixture
def demo_answerer(demo_pipeline, ollama_stub):
    settings = demo_pipeline.settings.model_copy(
        update={"llm_backend": "ollama", "ollama_host": ollama_stub.url, "ollama_model": OLLAMA_MODEL}
    )
    model, info = load_chat_model(settings)
    return Answerer(demo_pipeline.retriever, model, info, settings)


@pytest.fixture
def locked_on_monojet(demo_pipeline, demo_answerer):
    session = Session(demo_pipeline, demo_answerer)
    session.lock("EXO-24-003")
    return session


def test_an_off_topic_question_is_not_answered(demo_answerer, demo_pipeline, ollama_stub):
    # Reported: "The egg should be boiled for 10 minutes [2]", citing the background estimate.
    monojet = demo_pipeline.kb.get_analysis("EXO-24-003")
    answer = demo_answerer.answer(monojet, "How long should I boil an egg for a soft yolk?")
    assert answer.abstained and answer.abstain_reason == "off-topic" and ollama_stub.chats == []
    assert answer.coverage.share < 0.5 and {"egg", "yolk"} <= set(answer.coverage.unknown)
    assert "egg" in answer.text and monojet.id in answer.text and answer.sources == []


def test_a_question_about_another_analysis_offers_a_switch(locked_on_monojet, ollama_stub):
    # Reported: "80.4 GeV … [2]" from the monojet note's data-samples paragraph.
    events = locked_on_monojet.submit("What value of the W boson mass was measured?")
    offer = events[-1]
    assert isinstance(offer, SwitchOffer) and offer.suggested.analysis.id == "SMP-24-002"
    assert "SMP-24-002" in offer.text and locked_on_monojet.phase is Phase.offering
    assert not any(isinstance(e, AnswerTurn) for e in events) and ollama_stub.chats == []

    locked, turn = locked_on_monojet.accept_switch()
    assert isinstance(locked, Locked) and locked.analysis.id == "SMP-24-002"
    list(turn.tokens())
    assert turn.analysis.id == "SMP-24-002" and turn.answer is not None and ollama_stub.chats


def test_staying_answers_from_the_lock_and_a_new_question_drops_the_offer(locked_on_monojet):
    locked_on_monojet.submit("What value of the W boson mass was measured?")
    notice, turn = locked_on_monojet.stay()
    assert "EXO-24-003" in notice.text and turn.analysis.id == "EXO-24-003"
    locked_on_monojet.submit("What value of the W boson mass was measured?")
    events = locked_on_monojet.submit("What is the dominant background in the signal region?")
    assert isinstance(events[-1], AnswerTurn) and locked_on_monojet.phase is Phase.locked
    assert locked_on_monojet.offer is None


def test_questions_the_locked_analysis_answers_are_not_diverted(locked_on_monojet, demo_pipeline):
    for question in ["What is the dominant background in the signal region?",
                     "What pTmiss threshold does the signal region require?"]:
        assert isinstance(locked_on_monojet.submit(question)[-1], AnswerTurn), question


def passage(request: dict, about: str = "dominant background") -> int:
    """The number the prompt gives the passage that says ``about``."""
    prompt = request["messages"][-1]["content"]
    return int(re.search(rf'<passage n="(\d+)"[^>]*>[^<]*{about}', prompt).group(1))


def test_an_unsupported_sentence_is_flagged_and_an_answer_with_none_supported_is_withheld(
    demo_answerer, demo_pipeline, ollama_stub
):
    monojet = demo_pipeline.kb.get_analysis("EXO-24-003")
    question = "What is the dominant background in the signal region?"
    ollama_stub.reply = lambda request: (f"The dominant background is Z to nunu plus jets [{passage(request)}]. "
                                         f"It should be boiled for 10 minutes [{passage(request)}].")
    answer = demo_answerer.answer(monojet, question)
    first, second = answer.support
    assert first.supported and second.supported is False and "10" in second.missing_numbers
    assert f"10 is not in [{second.cited[0]}]" == second.problem and not answer.withheld and answer.supported_share == 0.5

    ollama_stub.reply = lambda request: "The egg should be boiled for 10 minutes to get a soft yolk [2]."
    withheld = demo_answerer.answer(monojet, question)
    assert withheld.withheld and withheld.draft.startswith("The egg") and "do not say" in withheld.text
    assert withheld.sources  # the passages are still shown


def test_a_right_fact_under_the_wrong_number_gets_the_passage_that_holds_it(demo_answerer, demo_pipeline, ollama_stub):
    monojet = demo_pipeline.kb.get_analysis("EXO-24-003")
    question = "What is the dominant background in the signal region?"

    def miscited(request: dict) -> str:
        right = passage(request)
        wrong = 1 if right != 1 else 2
        return f"The dominant background is Z(→νν)+jets, about 65% of the events in the signal region [{wrong}]."

    ollama_stub.reply = miscited
    answer = demo_answerer.answer(monojet, question)
    (sentence,) = answer.support
    assert sentence.supported and sentence.recited_from and sentence.cited != sentence.recited_from
    assert answer.cited == sentence.cited and answer.text.endswith(f"[{sentence.cited[0]}].")
    assert "65%" in answer.sources[sentence.cited[0] - 1].chunk.text and not answer.withheld


def test_support_check_reads_numbers_and_words_as_physicists_write_them(demo_pipeline):
    assert numbers("mW = 80 353 ± 6 MeV, 80.40 GeV and 3.1e-9") == {"80353", "6", "80.4", "0.0000000031"}
    hits = demo_pipeline.retriever.search("SMP-24-002", "global electroweak fit prediction for mW").hits[:1]
    assert "80 353" in hits[0].chunk.text
    ok, wrong = check_support("The fit predicts mW = 80353 MeV [1]. It predicts 80.4 GeV [1].", hits, 0.6)
    assert ok.supported and wrong.supported is False and wrong.missing_numbers == ["80.4"]
    assert check_support("No citation here.", hits, 0.6)[0].supported is None


def test_question_coverage_separates_off_topic_from_physics():
    known = {"background", "domin", "signal", "region"}.__contains__
    assert question_coverage("What is the dominant background in the signal region?", known).share == 1.0
    off = question_coverage("What is the capital of Australia?", known)
    assert off.share == 0.0 and off.unknown == ["capital", "Australia"]


# ---------------------------------------------------------------- the cited page
def test_the_cited_page_is_drawn_with_the_passage_marked_and_scans_say_they_cannot_be(note_pdf, scanned_pdf):
    from mitra.chat.cited_page import PageUnavailable, render_cited_page

    passage = "Muons must pass the tight identification working point and be isolated from hadronic activity."
    page = render_cited_page(note_pdf, 2, passage)
    assert page.png.startswith(b"\x89PNG") and page.highlighted == 2 and page.caption.startswith("Page 2 of 3")
    assert render_cited_page(note_pdf, 1, passage).highlighted == 0  # not on that page
    scan = render_cited_page(scanned_pdf, 1, passage)
    assert scan.highlighted == 0 and "could not be located" in scan.caption
    with pytest.raises(PageUnavailable, match="has 3 pages, not a page 9"):
        render_cited_page(note_pdf, 9, passage)
    with pytest.raises(PageUnavailable, match="no longer there"):
        render_cited_page(note_pdf.with_name("gone.pdf"), 1, passage)


def test_on_the_demo_questions_the_signals_stop_what_they_should(demo_pipeline):
    """benchmarks/answer_quality.py's first part: off-topic and other-analysis questions are
    stopped before the model, the questions the locked analysis answers go through."""
    from benchmarks.answer_quality import rates, signal
    from benchmarks.corpora.demo_questions import DEMO_QUESTIONS

    stopped = rates([signal(demo_pipeline, q) for q in DEMO_QUESTIONS], {"abstain", "switch"})
    assert stopped["answerable"]["stopped"] <= 0.1
    assert stopped["off-topic"]["stopped"] >= 0.9 and stopped["other-analysis"]["stopped"] >= 0.9


class ParaphraseReader:
    """Stands in for the ms-marco cross-encoder, whose weights cannot be here: the
    Reranker protocol's ``score``, high when the passage names the invisible Z decay."""

    def score(self, query: str, passages: list[str]) -> list[float]:
        return [5.0 if "Z(→νν)" in p or "neutrino" in p else -5.0 for p in passages]


def test_a_loaded_cross_encoder_accepts_paraphrase_but_never_a_wrong_number(demo_pipeline, demo_answerer):
    import copy

    hits = demo_pipeline.retriever.search("EXO-24-003", "dominant background Z to nunu plus jets").hits
    n = next(i for i, h in enumerate(hits, 1) if "Z(→νν)+jets" in h.chunk.text)
    claim = f"Most selected events come from invisible decays of the neutral boson accompanied by hadrons [{n}]."
    wrong = f"Most selected events, 99%, come from invisible decays of the neutral boson [{n}]."
    assert check_support(claim, hits, 0.6)[0].supported is False  # the words alone do not match
    answerer = copy.copy(demo_answerer)
    answerer.retriever = copy.copy(demo_pipeline.retriever)
    answerer.retriever.reranker = ParaphraseReader()
    entails = answerer.entails()
    assert demo_answerer.entails() is None and entails is not None
    assert check_support(claim, hits, 0.6, entails)[0].supported
    assert check_support(wrong, hits, 0.6, entails)[0].missing_numbers == ["99"]
