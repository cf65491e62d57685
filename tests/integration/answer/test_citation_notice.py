"""When the support check moves a citation after the answer streamed, the answer says so:
the member saw "[2]" stream in and reads "[1]" in the final text, with the reason beside it."""

from __future__ import annotations

from mitra.chat.session import Session
from tests.integration.answer.test_grounding import demo_answerer, passage  # noqa: F401 (a fixture)


def test_a_moved_citation_is_said_on_the_answer(demo_answerer, demo_pipeline, ollama_stub):  # noqa: F811
    def miscited(request: dict) -> str:
        right = passage(request)
        wrong = 1 if right != 1 else 2
        return f"The dominant background is Z(→νν)+jets, about 65% of the events in the signal region [{wrong}]."

    ollama_stub.reply = miscited
    session = Session(demo_pipeline, demo_answerer)
    session.lock("EXO-24-003")
    (turn,) = session.submit("What is the dominant background in the signal region?")[1:]
    streamed = "".join(turn.tokens())
    (sentence,) = turn.answer.support
    (note,) = turn.answer.moved_citations
    assert f"[{sentence.recited_from[0]}]" in streamed and f"[{sentence.cited[0]}]" in turn.answer.text
    assert note.startswith(f"Citation moved: the model cited [{sentence.recited_from[0]}]")
    assert f"holds it is [{sentence.cited[0]}]" in note and "65%" in note and "[" not in note.split("“")[1].split("”")[0]


def test_an_answer_whose_citations_stand_has_no_notice(demo_answerer, demo_pipeline, ollama_stub):  # noqa: F811
    ollama_stub.reply = lambda request: (
        f"The dominant background is Z(→νν)+jets, about 65% of the events in the signal region [{passage(request)}].")
    answer = demo_answerer.answer(demo_pipeline.kb.get_analysis("EXO-24-003"),
                                  "What is the dominant background in the signal region?")
    assert answer.support and answer.moved_citations == []
