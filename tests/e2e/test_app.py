"""The Streamlit app through ``AppTest``: every transition of the conversation, on the real
pipeline and the embedded SmolLM2 (or an LLM server that is down)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from streamlit.testing.v1 import AppTest

from mitra.chat.session import AnswerTurn
from tests.conftest import REPO, closed_port
from tests.fixtures.app_pages import app_page

HIGGS = "What is the dominant background in the dimuon Higgs search?"
VAGUE = "What is the dominant background?"


def start() -> AppTest:
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=180)
    at.run()
    assert not at.exception, at.exception
    return at


def ask(at: AppTest, text: str) -> AppTest:
    at.chat_input[0].set_value(text).run()
    assert not at.exception, at.exception
    return at


def click(at: AppTest, key: str) -> AppTest:
    at.button(key=key).click().run()
    assert not at.exception, at.exception
    return at


def warnings(at: AppTest) -> list[str]:
    """The warnings shown, besides the open-mode banner these tests run under."""
    return [w.value for w in at.warning if w.icon != ":material/lock_open:"]


def choices(at: AppTest) -> list[str]:
    """The analyses offered right now ("pick-<event>-<analysis id>" buttons), best first."""
    return [b.key.split("-", 2)[2] for b in at.button if b.key and b.key.startswith("pick-")]


def pick(at: AppTest, analysis_id: str) -> AppTest:
    key = next(b.key for b in at.button if b.key and b.key.startswith("pick-") and b.key.endswith(f"-{analysis_id}"))
    return click(at, key)


def texts(node) -> str:
    return "\n".join(m.value for m in [*node.markdown, *node.caption, *node.info, *node.warning, *node.error])


def banner(at: AppTest) -> str:
    return texts(at.get_by_key("lock-banner")) if locked(at) else ""


def locked(at: AppTest) -> bool:
    try:
        at.get_by_key("lock-banner")
    except KeyError:
        return False
    return True


def cards(at: AppTest) -> list[str]:
    """The source cards' labels ("[n] …"; SmolLM2's answers are often withheld, whose
    draft has an expander of its own)."""
    return [e.label for e in at.expander if e.label.startswith("[")]


def test_ask_confirm_answer_follow_up_feedback_switch_and_new(app_env):
    at = ask(start(), HIGGS)
    assert "Which analysis is your question about?" in texts(at)
    assert choices(at)[0] == "HIG-24-001" and len(choices(at)) == 3
    assert not locked(at)

    pick(at, "HIG-24-001")  # confirm: the pending question is answered at once
    assert "HIG-24-001" in banner(at) and "AN-2024-001 v1" in banner(at)
    assert cards(at) and all("AN-2024-001" in label for label in cards(at))
    assert warnings(at) == []
    n_cards = len(cards(at))

    ask(at, "And the largest systematic uncertainty?")  # follow-up: same lock, no new choice
    assert "HIG-24-001" in banner(at)
    assert not choices(at)
    assert len(cards(at)) > n_cards

    from mitra import ui

    before = len(ui.feedback_store().all())
    at.feedback[0].set_value(1).run()
    stored = ui.feedback_store().all()
    assert len(stored) == before + 1 and stored[-1].rating == 1 and stored[-1].analysis_id == "HIG-24-001"
    rated = next(e for e in at.session_state.session.transcript if isinstance(e, AnswerTurn))
    assert stored[-1].cited_chunk_ids == [hit.chunk.id for _, hit in rated.answer.cited_sources]
    assert "Thanks: your rating is saved." in texts(at)  # said where the rating was given
    at.text_input(key="reason-3").set_value("right analysis, vague answer")
    at.button(key="FormSubmitter:why-3-Send").click().run()
    assert ui.feedback_store().all()[-1].reason == "right analysis, vague answer"
    at.run()
    assert "Thanks: your rating and your note are saved." in texts(at)

    at.sidebar.toggle[0].set_value(True).run()  # expert view: per-stage scores and timings
    assert "dense" in texts(at) and " ms" in texts(at)

    next(b for b in at.sidebar.button if b.label == "Switch analysis").click().run()
    assert not locked(at) and "Left HIG-24-001" in texts(at)
    ask(at, "W boson mass measurement")
    assert choices(at)[0] == "SMP-24-003"

    next(b for b in at.sidebar.button if b.label == "New conversation").click().run()
    assert not locked(at) and not at.chat_message and not cards(at)


def test_pick_another_analysis(app_env):
    at = ask(start(), VAGUE)
    pick(at, "SMP-24-003")
    assert "SMP-24-003" in banner(at)
    assert cards(at) and all("AN-2024-003" in label for label in cards(at))


def test_none_of_these_then_search_then_rephrase(app_env):
    at = ask(start(), VAGUE)
    click(at, "none-1")
    assert "name or id" in texts(at)
    ask(at, "monojet")  # a name: the catalog is searched
    assert choices(at) == ["EXO-24-002"]
    ask(at, "How precisely is the W mass known?")  # no analysis is called that: routed as a rephrase
    assert len(choices(at)) == 3 and choices(at)[0] == "SMP-24-003"
    pick(at, "SMP-24-003")
    assert "SMP-24-003" in banner(at) and cards(at)


def test_llm_down_shows_the_passages(app_env):
    app_env(llm_backend="openai", openai_base_url=f"http://127.0.0.1:{closed_port()}/v1")
    at = ask(start(), HIGGS)
    pick(at, "HIG-24-001")
    assert warnings(at) and "not reachable" in warnings(at)[0]
    assert cards(at) and "AN-2024-001" in cards(at)[0]
    assert not at.feedback  # nothing to rate without an answer


def test_empty_knowledge_base_explains_how_to_index(app_env, tmp_path: Path):
    app_env(data_dir=tmp_path / "empty")
    at = start()
    assert "knowledge base is empty" in at.info[0].value and "mitra index-jsonl" in at.info[0].value
    assert not at.chat_input


def page(name: str) -> AppTest:
    at = app_page(name)
    assert not at.exception and not at.error, (at.exception, at.error)
    return at


def test_library_searches_analyses_and_reads_a_document(app_env):
    at = page("1_Library.py")
    assert len(at.expander) == 3 and at.metric[0].value == "3"
    assert any("no adapted reranker" in c.value for c in at.caption)  # or its manifest, once `mitra adapt` ran
    at.text_input[0].set_value("monojet").run()
    (analysis,) = at.expander
    assert "EXO-24-002" in analysis.label and len(analysis.dataframe) == 1
    assert list(analysis.dataframe[0].value["length"]) == ["—"]  # text has no pages: not "None"
    analysis.selectbox[0].set_value("AN-2024-002 v1").run()
    assert any("Z boson production" in m.value for m in at.expander[0].markdown)
    at.text_input[0].set_value("no such analysis").run()
    assert not at.expander


def test_evaluation_runs_on_an_uploaded_gold_file_and_loads_a_report(app_env):
    gold = "\n".join(
        json.dumps(row)
        for row in [
            {"qid": "q1", "query": "dominant background", "analysis_id": "HIG-24-001", "evidence": ["Drell-Yan"], "set": "Set 1"},
            {"qid": "q2", "query": "mediator mass limit", "analysis_id": "EXO-24-002", "evidence": ["1.9 TeV"], "set": "Set 2"},
        ]
    )
    at = page("2_Evaluation.py")
    assert "Load a report" in at.info[0].value
    at.file_uploader(key="gold").upload("gold.jsonl", gold.encode()).run()
    at.multiselect[0].set_value(["bm25", "dense"]).run()
    at.button[0].click().run()
    assert not at.exception and not at.error
    assert "gold.jsonl" in at.success[0].value and "Set 1" in at.success[0].value
    assert [len(d.value) for d in at.dataframe] == [4, 4, 2]  # Table 1, Table 2: 2 sets x 2 systems; routing
    report = at.session_state.eval_report

    fresh = page("2_Evaluation.py")
    fresh.file_uploader(key="report").upload("report.json", report.model_dump_json().encode()).run()
    assert "gold.jsonl" in fresh.success[0].value
    fresh.file_uploader(key="report").upload("bad.json", b'{"date": 1}').run()
    assert "bad.json is not a `mitra eval --out` report" in fresh.error[0].value


def test_ingestion_shows_the_manifest_or_explains_its_absence(app_env, app_data_dir):
    from ingest.sources.manifest import Manifest, Stage, VersionKey
    from mitra.core.types import Analysis

    manifest_path = app_data_dir / "manifest.sqlite"
    assert "No ingestion has run yet" in page("3_Ingestion.py").info[0].value
    with Manifest(manifest_path) as manifest:
        manifest.upsert_analysis(Analysis(id="HIG-24-001", title="H to mumu"))
        pdf = app_data_dir / "AN-2024-001.pdf"
        pdf.write_bytes(b"%PDF-1.4")
        good = VersionKey("HIG-24-001", "AN-2024-001", "1")
        manifest.record_download(good, title="note", url="http://portal/a.pdf", path=pdf, sha256="x", size=8)
        manifest.mark_stage(good, Stage.extract)
        manifest.record_failure(VersionKey("HIG-24-001", "AN-2024-001", "2"), title="note", url="http://portal/b.pdf",
                                error="HTTP 404 Not Found")
    try:
        at = page("3_Ingestion.py")
        assert [m.value for m in at.metric] == ["1", "2", "0", "1"]
        rows = at.dataframe[0].value
        assert list(rows["error"]) == ["HTTP 404 Not Found"]  # only problems by default
        at.toggle[0].set_value(False).run()
        assert list(at.dataframe[0].value["version"]) == ["v1", "v2"]  # as citations name them
    finally:
        manifest_path.unlink()


def test_web_pdfs_are_linked_at_the_page_and_local_ones_drawn_in_the_app():
    from mitra.core.types import Document
    from mitra.ui import local_pdf, page_link

    local = Document(analysis_id="A", doc_id="D", source="/data/notes/AN.pdf")
    assert page_link(local, 7) is None and local_pdf(local) == Path("/data/notes/AN.pdf")  # file:// links are blocked
    web = Document(analysis_id="A", doc_id="D", source="https://cds/AN.pdf")
    assert page_link(web, None) == "https://cds/AN.pdf" and page_link(web, 4) == "https://cds/AN.pdf#page=4"
    assert local_pdf(web) is None
    inline = Document(analysis_id="A", doc_id="D", source="jsonl")
    assert page_link(inline, 3) is None and local_pdf(inline) is None


def test_chat_cli_has_the_same_flow(app_env):
    import typer
    from typer.testing import CliRunner

    from mitra.cli.chat import register

    cli = typer.Typer()
    cli.callback()(lambda: None)  # a group, so the command is called by name as in `mitra chat`
    register(cli)
    script = [HIGGS, "1", "And the largest systematic uncertainty?", "/switch", VAGUE, "0", "monojet", "1", "/new", "/quit"]
    result = CliRunner().invoke(cli, ["chat"], input="\n".join(script) + "\n")
    assert result.exit_code == 0, result.output
    out = result.output
    assert "1 HIG-24-001" in out and "0 none of these" in out
    assert "locked on HIG-24-001" in out and "[1] AN-2024-001 v1" in out
    assert "Left HIG-24-001" in out
    assert "locked on EXO-24-002" in out and "[1] AN-2024-002 v1" in out


def test_chat_cli_answers_across_and_side_by_side_keeping_the_lock(app_env):
    import typer
    from typer.testing import CliRunner

    from mitra.cli.chat import register

    cli = typer.Typer()
    cli.callback()(lambda: None)
    register(cli)
    script = [HIGGS, "1", "/across What is the dominant background?", "/compare EXO-24-002 What is it?",
              "/compare EXO-24-002,SMP-24-003 What is the dominant background?", "/quit"]
    result = CliRunner().invoke(cli, ["chat"], input="\n".join(script) + "\n")
    assert result.exit_code == 0, result.output
    out = " ".join(result.output.split())  # rich wraps long lines
    assert "across analyses" in out and re.search(r"\[1\] [A-Z]{3}-24-00\d · AN-2024-00\d v1", out)
    assert "--compare takes two different analysis ids" in out  # one line, the chat goes on
    assert "EXO-24-002 — " in out and "SMP-24-003 — " in out
    assert "locked on EXO-24-002" not in out and "Left HIG-24-001" not in out  # the lock stayed


def test_a_question_about_another_analysis_is_offered_a_switch(app_env):
    at = pick(ask(start(), HIGGS), "HIG-24-001")
    ask(at, "How precisely is the W boson mass measured?")
    assert "SMP-24-003" in texts(at) and "Switch?" in texts(at)
    switch = next(b for b in at.button if b.key and b.key.startswith("switch-"))
    assert switch.label == "Switch to SMP-24-003"
    switch.click().run()
    assert "SMP-24-003" in banner(at) and all("AN-2024-003" in label for label in cards(at)[-1:])


def test_routing_candidates_say_how_strong_a_match_they_are(app_env):
    """Candidates carry a measured strong/weak label, never a score that reads like a
    probability, and a question that names nothing is told that nothing stands out."""
    at = ask(start(), HIGGS)
    shown = texts(at)
    assert "strong match" in shown and "weak match" in shown
    assert "match 0." not in shown and "stands out" not in shown
    at = ask(start(), "What is the result?")
    assert "none of these stands out" in texts(at)


def test_the_answer_says_which_ranking_chose_its_passages(app_env):
    """No cross-encoder weights here: the member is told, not only the server log."""
    at = ask(start(), HIGGS)
    at = pick(at, "HIG-24-001")
    assert "Passages chosen by the fused ranking; no reranker model installed." in texts(at)
