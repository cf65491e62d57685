"""The wait before the first word, said in the model's terms: the answerer hands over the
prompt (its passages) before the model reads it, the tokens are counted by the real
llama.cpp server's tokenizer, and the prompt speed is measured on the answers given."""

from __future__ import annotations

from mitra.answer.answerer import Answer, Answerer, Timings
from mitra.chat.wait import PromptSpeed, Reading
from mitra.core.settings import Settings
from mitra.models.llm import load_chat_model
from tests.conftest import CHAT_LLM
from tests.integration.answer.test_answer import BACKGROUND_HITS, DARK_MATTER, FixedRetriever


def test_the_passages_are_handed_over_before_the_first_word_and_counted_by_the_server(tmp_path):
    settings = Settings(data_dir=tmp_path / "kb", llm_temperature=0.0, **CHAT_LLM)
    model, info = load_chat_model(settings)
    speed, order, readings = PromptSpeed(), [], []

    def on_prompt(prompt, model_info):
        order.append("passages")
        readings.append(speed.reading(prompt, model_info))

    answer = None
    # A title no other test sends, early in the prompt: the server must read the prompt, not
    # find it cached from another test's identical one (then nothing is measured).
    analysis = DARK_MATTER.model_copy(update={"title": f"{DARK_MATTER.title}, as the wait test asks"})
    for item in Answerer(FixedRetriever(BACKGROUND_HITS), model, info, settings).stream(
            analysis, "What is the dominant background?", on_prompt=on_prompt):
        if isinstance(item, str):
            order.append("word")
        else:
            answer = item
    assert order[0] == "passages" and order.count("passages") == 1 and "word" in order
    (first,) = readings
    assert first.counted and first.passages == len(answer.sources) and first.seconds is None
    # the server counts the chat template's few tokens on top of the messages' text
    assert abs(answer.prompt_tokens - first.tokens) <= 0.1 * answer.prompt_tokens
    speed.measure(answer)
    assert speed.tokens_per_s and speed.tokens_per_s > 0


def test_the_running_estimate_and_what_the_member_reads():
    speed = PromptSpeed()
    timings = Timings(retrieve_ms=300, rerank_ms=0, prompt_ms=5, first_token_ms=20_305)
    speed.measure(Answer(analysis_id="A", question="q", text="t", sources=[], cited=[], prompt_tokens=1_300,
                         timings=timings))
    assert speed.tokens_per_s == 65.0  # 1,300 tokens read in 20 s
    cached = Timings(retrieve_ms=300, rerank_ms=0, prompt_ms=5, first_token_ms=405)
    speed.measure(Answer(analysis_id="A", question="q", text="t", sources=[], cited=[], prompt_tokens=1_300,
                         prompt_cached_tokens=1_290, timings=cached))
    assert speed.tokens_per_s == 65.0  # 10 tokens read: the server's overhead, not its speed
    said = str(Reading(passages=5, tokens=1_300, counted=True, seconds=1_300 / speed.tokens_per_s))
    assert said == "The model is reading 5 passages (≈1,300 tokens), about 20 s on this machine."
    unmeasured = str(Reading(passages=1, tokens=400, counted=False, seconds=None))
    assert "1 passage (≈400 tokens)" in unmeasured and " s on this machine" not in unmeasured
    assert "measured by the first answer" in unmeasured
