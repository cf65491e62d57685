"""The off-topic reply names the words that make the question foreign to the analysis,
not everyday words that happen to be missing too ("long", "soft")."""

from __future__ import annotations

from mitra.answer.refusals import off_topic_text
from tests.integration.answer.test_grounding import demo_answerer  # noqa: F401 (a fixture)


def test_the_off_topic_reply_names_the_subject_not_everyday_words(demo_answerer, demo_pipeline, ollama_stub):  # noqa: F811
    monojet = demo_pipeline.kb.get_analysis("EXO-24-003")
    answer = demo_answerer.answer(monojet, "How long should I boil an egg for a soft yolk?")
    assert answer.abstain_reason == "off-topic" and {"long", "soft"} <= set(answer.coverage.unknown)
    named = answer.text.split("never mention ")[1].split(", so")[0]
    assert '"egg"' in named and '"yolk"' in named and '"long"' not in named and '"soft"' not in named


def test_a_question_of_everyday_words_only_still_names_them(demo_pipeline):
    monojet = demo_pipeline.kb.get_analysis("EXO-24-003")
    assert '"long"' in off_topic_text(monojet, ["long", "soft"])  # nothing else to name: never an empty list
