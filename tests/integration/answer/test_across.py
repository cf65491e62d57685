"""Questions beyond one analysis (issues 25, 49): ``mitra ask --across`` answers analysis by
analysis, each of the top routed analyses a member may read in its own lock, every citation
naming its analysis, then a synthesis over the checked lines; ``mitra ask
--compare A,B`` answers in two analyses' locks side by side. Real Chroma, BM25 and MiniLM
over the three sample analyses; the Ollama stand-in answers from the passages it is sent."""

from __future__ import annotations

import json
import re

import pytest

from mitra.answer.across import AcrossPart, choose, missing_text, renumbered, synthesis
from mitra.answer.claims import Quote
from mitra.answer.grounding import check_support
from mitra.audit import open_audit
from mitra.core.settings import get_settings
from mitra.core.types import Analysis, Chunk, Hit, RoutedAnalysis
from tests.conftest import OLLAMA_MODEL
from tests.fixtures.samples import ANALYSES, GROUPS_POLICY

BACKGROUND = "What is the dominant background?"
POLICY = GROUPS_POLICY
PASSAGE = re.compile(r'<passage n="(\d+)"(?: analysis="([^"]+)")?[^>]*>\n(.*?)\n</passage>', re.S)


def answer_from_passages(request: dict) -> str:
    """A faithful model: for each analysis, the first sentence of its first passage, naming it
    in an across prompt, cited."""
    seen, sentences = set(), []
    for n, analysis, text in PASSAGE.findall(request["messages"][-1]["content"]):
        if analysis in seen:
            continue
        seen.add(analysis)
        first = re.split(r"(?<=[.!?])\s+", text.strip())[0].rstrip(".")
        sentences.append(f"In {analysis}, {first} [{n}]." if analysis else f"{first} [{n}].")
    return " ".join(sentences)


@pytest.fixture
def cli(cli_in, monkeypatch, app_data_dir, ollama_stub, tmp_path):
    """The whole ``mitra`` app on the sample KB, the stand-in Ollama answering; users, policy
    and audit trail in this test's own files (the KB is shared by the session)."""
    env = {"DATA_DIR": app_data_dir, "LLM_BACKEND": "ollama", "OLLAMA_HOST": ollama_stub.url,
           "USERS_FILE": tmp_path / "users.yaml", "ACCESS_POLICY": tmp_path / "access.yaml",
           "AUDIT_FILE": tmp_path / "audit.jsonl"}
    for key, value in env.items():
        monkeypatch.setenv(f"MITRA_{key}", str(value))
    ollama_stub.reply = answer_from_passages
    return cli_in


@pytest.fixture
def alice(cli, tmp_path):
    """alice reads EXO-* and SMP-24-003, not HIG-24-001; the policy goes in by `mitra policy import`."""
    (tmp_path / "policy.yaml").write_text(POLICY)
    assert cli("policy", "import", str(tmp_path / "policy.yaml")).exit_code == 0
    added = cli("users", "add", "alice", "--groups", "exo", "--password-stdin", input="correct horse battery\n")
    assert added.exit_code == 0, added.output
    return "alice"


def ask(cli, *args):
    result = cli(*args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_across_answers_analysis_by_analysis_each_line_citing_its_own_passages(cli, ollama_stub):
    data = ask(cli, "ask", "--across", BACKGROUND)
    assert set(data) >= {"question", "answer", "analyses", "missing", "citations", "sources", "support",
                         "supported_share"}
    assert set(data["analyses"][0]) >= {"analysis_id", "title", "routing_score", "confidence", "skipped", "passages",
                                        "cited", "supported_share", "line", "value", "seconds"}
    chosen = [part["analysis_id"] for part in data["analyses"]]
    answered = [part for part in data["analyses"] if not part["skipped"]]
    assert len(answered) >= 2 and data["missing"] == [p["analysis_id"] for p in data["analyses"] if p["skipped"]]
    titles = {a["analysis_id"]: a["title"] for a in ANALYSES}
    docs = {"HIG-24-001": "AN-2024-001", "EXO-24-002": "AN-2024-002", "SMP-24-003": "AN-2024-003"}
    sources = data["sources"]
    for part in answered:  # by construction: a line cites only its own analysis's passages
        assert part["line"].startswith(f"{part['analysis_id']}: ") and part["line"] in data["answer"]
        assert part["cited"] and {sources[n - 1]["analysis_id"] for n in part["cited"]} == {part["analysis_id"]}
        assert all(f"[{n}]" in part["line"] for n in part["cited"])
    for citation in data["citations"]:
        assert citation["analysis_title"] == titles[citation["analysis_id"]]
        assert citation["doc_id"] == docs[citation["analysis_id"]]
    assert {s["analysis_id"] for s in sources} <= set(chosen)
    assert data["supported_share"] == 1.0 and all(s["supported"] for s in data["support"])
    assert f"{len(answered)} of {len(chosen)} analyses searched answer this" in data["answer"]
    assert data["model"]["model"] == OLLAMA_MODEL
    assert len(ollama_stub.chats) == len(chosen)  # one locked prompt per analysis, never two analyses in one
    for request in ollama_stub.chats:
        assert sum(f"Question about {a}:" in request["messages"][-1]["content"] for a in chosen) == 1

    text = cli("ask", "--across", BACKGROUND)
    assert text.exit_code == 0, text.output
    assert re.search(r"\[1\] (HIG|EXO|SMP)-24-00\d · AN-2024-00\d v1", text.stdout)
    # each analysis lists its own passages once, on lines of their own, and counts only those
    assert len(re.findall(r"(?m)^\[1\] ", text.stdout)) == 2  # read before the first line, then the sources
    assert all(int(n) <= 5 for n in re.findall(r"The model is reading (\d+) passages", text.stdout))
    assert not re.search(r"\.\[\d+\] ", text.stdout)  # no passage glued to the line before it
    assert answered[0]["line"] in " ".join(text.stdout.split())


def test_the_synthesis_reads_only_the_checked_lines():
    def part(analysis_id: str, cited: list[int], value: str | None = None, skipped=None) -> AcrossPart:
        quote = Quote(passage=cited[0], sentence=value, number=value, start=0, end=len(value)) if value else None
        return AcrossPart(analysis_id=analysis_id, title="", routing_score=1.0, confidence="strong", cited=cited,
                          value=quote, skipped=skipped)

    assert synthesis([part("A", [1], "80.4 GeV"), part("B", [4], "80.4 GeV")]) == \
        "Side by side: A 80.4 GeV [1] · B 80.4 GeV [4]. They agree."
    assert synthesis([part("A", [1], "80.4 GeV"), part("B", [4], "80.37 GeV")]).endswith("They differ: compare "
                                                                                           "what each is stated for.")
    assert synthesis([part("A", [1, 2]), part("B", [4]), part("C", [], skipped="not covered")]) == \
        "2 of 3 analyses searched answer this: A [1, 2], B [4]."
    assert synthesis([part("A", [1])]) == ""
    assert missing_text([part("A", [1]), part("C", [], skipped="off-topic")]) == \
        "Searched, with nothing on this question: C."
    assert renumbered("It is Z [1, 2]. See [3].", 5, 3) == "It is Z [6, 7]. See [8]."


def test_across_takes_at_most_k_analyses(cli):
    data = ask(cli, "ask", "--across", BACKGROUND, "--k", "1")
    assert len(data["analyses"]) == 1
    assert {c["analysis_id"] for c in data["sources"]} == {data["analyses"][0]["analysis_id"]}


def test_choose_keeps_the_first_k_within_the_score_share():
    def routed(*scores):
        return [RoutedAnalysis(analysis=Analysis(id=f"A{i}", title=""), score=s) for i, s in enumerate(scores)]

    assert [c.analysis.id for c in choose(routed(0.9, 0.5, 0.44, 0.4), k=3, share=0.5)] == ["A0", "A1"]
    assert [c.analysis.id for c in choose(routed(0.9, 0.8, 0.7, 0.6), k=2, share=0.5)] == ["A0", "A1"]
    assert choose([], k=3, share=0.5) == []


def test_a_sentence_naming_the_wrong_analysis_is_not_supported():
    """A catalogue name a sentence states must be its passage's: "In HIG-24-001, …" citing an
    EXO-24-002 passage fails on the name."""
    higgs, exo = (Analysis(id=a["analysis_id"], title=a["title"]) for a in ANALYSES[:2])
    chunk = Chunk(id="c", analysis_id=exo.id, doc_id="AN-2024-002", version="1", position=0,
                  text=f"{exo.id}: {exo.title}.\nThe dominant background is Z boson production with decays to neutrinos.")
    passages = [Hit(chunk=chunk)]
    right, wrong = (f"In {a.id}, the dominant background is Z boson production [1]." for a in (exo, higgs))
    assert check_support(right, passages, 0.6)[0].supported
    assert (s := check_support(wrong, passages, 0.6)[0]).supported is False and s.missing_names == ["HIG-24-001"]


def test_a_member_gets_no_passage_from_an_analysis_they_may_not_read(cli, alice, ollama_stub):
    """"Drell-Yan" is only in the Higgs note: the operator's across answer draws on it, alice's
    never sees it, in the sources or in the prompt the model reads."""
    question = "How is the Drell-Yan background modelled?"
    operator = ask(cli, "ask", "--across", question)
    assert "HIG-24-001" in [part["analysis_id"] for part in operator["analyses"]]
    ollama_stub.chats.clear()
    scoped = ask(cli, "--as", alice, "ask", "--across", question)
    assert scoped["analyses"] and "HIG-24-001" not in [part["analysis_id"] for part in scoped["analyses"]]
    assert all(s["analysis_id"] != "HIG-24-001" for s in scoped["sources"])
    prompt = json.dumps(ollama_stub.chats)
    assert "HIG-24-001" not in prompt and "Drell-Yan production" not in prompt and "AN-2024-001" not in prompt
    (record,) = [r for r in open_audit(get_settings()).read(event="command") if r["command"] == "ask"]
    assert record["user"] == alice and record["across"] is True and record["question"] == question


def test_compare_returns_two_aligned_answers_with_their_own_citations(cli, ollama_stub):
    data = ask(cli, "ask", "--compare", "EXO-24-002,HIG-24-001", BACKGROUND)
    assert data["question"] == BACKGROUND
    assert [a["analysis_id"] for a in data["answers"]] == ["EXO-24-002", "HIG-24-001"]
    for answer, doc in zip(data["answers"], ("AN-2024-002", "AN-2024-001")):
        assert answer["title"] and answer["citations"] and answer["support"] and answer["supported_share"] == 1.0
        assert {c["doc_id"] for c in answer["citations"]} == {doc}
        assert {c["analysis_id"] for c in answer["citations"] + answer["sources"]} == {answer["analysis_id"]}
    assert len(ollama_stub.chats) == 2  # each answered in its own lock

    text = cli("ask", "--compare", "EXO-24-002,HIG-24-001", BACKGROUND)
    assert text.exit_code == 0, text.output
    header = next(line for line in text.stdout.splitlines() if "EXO-24-002" in line)
    assert "HIG-24-001" in header  # side by side: one row holds both
    assert "[1] AN-2024-002 v1" in text.stdout and "[1] AN-2024-001 v1" in text.stdout


def test_compare_refuses_an_analysis_the_member_may_not_read_as_if_missing(cli, alice, ollama_stub):
    forbidden = cli("--as", alice, "ask", "--compare", "EXO-24-002,HIG-24-001", BACKGROUND)
    missing = cli("--as", alice, "ask", "--compare", "EXO-24-002,HIG-99-999", BACKGROUND)
    assert forbidden.exit_code == missing.exit_code == 2
    error = forbidden.output.splitlines()[-1]
    assert error == "error: No analysis 'HIG-24-001' in the knowledge base (`mitra stats` lists them)."
    assert missing.output.splitlines()[-1] == error.replace("HIG-24-001", "HIG-99-999")
    assert ollama_stub.chats == []  # no answer, not even EXO's
    assert ask(cli, "--as", alice, "ask", "--compare", "EXO-24-002,SMP-24-003", BACKGROUND)["answers"]


@pytest.mark.parametrize("args, error", [
    (("--across", "--analysis", "EXO-24-002"), "ask takes exactly one of --analysis ID, --across or --compare A,B; "
                                               "got --analysis and --across"),
    (("--compare", "EXO-24-002,SMP-24-003", "--analysis", "EXO-24-002"), "got --analysis and --compare"),
    ((), "got none"),
    (("--analysis", "EXO-24-002", "--k", "2"), "--k goes with --across"),
    (("--compare", "EXO-24-002"), "--compare takes two different analysis ids, A,B; got 'EXO-24-002'"),
    (("--compare", "EXO-24-002,EXO-24-002"), "two different analysis ids"),
])
def test_ask_modes_are_one_line_errors(cli, ollama_stub, args, error):
    result = cli("ask", BACKGROUND, *args)
    assert result.exit_code == 2 and len(result.output.strip().splitlines()) <= 2, result.output
    assert error in " ".join(result.output.split())
    assert ollama_stub.chats == []


def test_a_model_timing_out_across_still_shows_the_passages_naming_their_analyses(cli, ollama_stub, monkeypatch):
    monkeypatch.setenv("MITRA_LLM_TIMEOUT_S", "0.5")
    ollama_stub.delay_s = 3.0
    result = cli("ask", "--across", BACKGROUND, "--json")
    assert result.exit_code == 2, result.output
    data = json.loads(result.stdout)
    titles = {a["analysis_id"]: a["title"] for a in ANALYSES}
    assert data["error"] and data["sources"]
    assert all(s["analysis_title"] == titles[s["analysis_id"]] for s in data["sources"])


def test_each_analysis_s_choice_reads_fewer_values_than_a_locked_question(cli, ollama_stub, monkeypatch):
    """Each across line waits for its choice's prompt to be read: it lists at most
    ``across_value_candidates`` values (and "none")."""
    monkeypatch.setenv("MITRA_ACROSS_VALUE_CANDIDATES", "2")
    ollama_stub.reply = lambda r: '{"value": "none"}' if "format" in r else answer_from_passages(r)
    ask(cli, "ask", "--across", "What is the observed signal strength?")
    choices = [chat["format"]["properties"]["value"]["enum"] for chat in ollama_stub.chats if "format" in chat]
    assert choices and all(len(enum) <= 3 for enum in choices)
    monkeypatch.setenv("MITRA_ACROSS_VALUE_CANDIDATES", "6")
    ollama_stub.chats.clear()
    ask(cli, "ask", "--across", "What is the observed signal strength?")
    assert max(len(chat["format"]["properties"]["value"]["enum"]) for chat in ollama_stub.chats if "format" in chat) > 3


def test_each_line_s_note_on_its_value_reaches_the_across_answer_naming_its_analysis(cli, ollama_stub):
    """A value line under a warning ("Not sure which value is asked …") keeps its note across,
    naming its analysis, its citations numbered among the across sources, as a locked answer's."""
    ollama_stub.reply = lambda r: (json.dumps({"value": r["format"]["properties"]["value"]["enum"][0]})
                                   if "format" in r else answer_from_passages(r))
    ollama_stub.logprob = -0.5  # each choice under value_confidence
    out = ask(cli, "ask", "--across", "What is the observed signal strength?")
    warned = [a for a in out["analyses"] if a["line"] and "Not sure which value" in a["line"]]
    assert warned
    for part in warned:
        (note,) = [n for n in out["notes"] if n["text"].startswith(part["analysis_id"] + ": ")]
        assert note["kind"] == "value uncertain"
        cited = {int(n) for n in re.findall(r"\[(\d+)\]", note["text"])}
        assert cited and cited <= set(part["cited"])
