"""The app's models load in the background from its first page, so that signing in draws
the chat at once: the loads start without waiting, a session's answerer waits only when a
question needs the model, and a load that failed is tried again (the real pipeline, the
embedded llama.cpp model, a Chroma server that is down)."""

from __future__ import annotations

import time

import pytest

from mitra.access.policy import Principal
from mitra.answer.answerer import Answer
from mitra.chat.pending import PendingAnswerer
from mitra.core.settings import Settings
from mitra.ui.preload import Preload
from tests.conftest import CHAT_LLM, closed_port


def test_the_models_load_in_the_background_and_an_answer_waits_for_them(app_data_dir):
    settings = Settings(data_dir=app_data_dir, reranker="none", **CHAT_LLM)
    started = time.monotonic()
    preload = Preload(settings)
    reader = preload.reader(Principal.operator("member"))  # what a signed-in page reads through
    answerer = PendingAnswerer(preload.answerer)  # what its session gets
    assert [a.id for a in reader.kb.analyses()] == ["EXO-24-002", "HIG-24-001", "SMP-24-003"]
    assert reader.kb.stats()["analyses"] == 3 and reader.principal_name == "member"
    assert time.monotonic() - started < 5.0  # the page is drawn meanwhile: nothing waited for a model
    assert preload.loading("pipeline") and not answerer.ready
    routed = reader.router.route("dimuon Higgs search", top_n=1)  # routing waits for the embedder
    assert routed.candidates[0].analysis.id == "HIG-24-001"
    analysis = reader.kb.get_analysis("HIG-24-001")
    streamed = list(answerer.for_pipeline(reader).stream(analysis, "What is the dominant background?", []))
    assert isinstance(streamed[-1], Answer) and streamed[-1].sources
    assert answerer.ready and answerer.model_info.backend == "embedded"
    assert preload.reader(Principal.operator("later")).principal_name == "later"  # the loaded pipeline, scoped


def test_a_load_that_failed_is_tried_again_by_the_next_call(tmp_path):
    settings = Settings(data_dir=tmp_path / "kb", reranker="none", chroma_host="127.0.0.1", chroma_port=closed_port())
    preload = Preload(settings)
    with pytest.raises(Exception, match="Chroma"):
        preload.pipeline()
    failed = preload.answerer()
    with pytest.raises(Exception, match="Chroma"):
        failed.result()
    with pytest.raises(Exception, match="Chroma"):
        preload.pipeline()  # loaded again, not the failed load's error kept forever
    assert preload.answerer() is not failed
