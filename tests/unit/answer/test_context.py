"""Sentence-level context: the model reads the sentences of each passage that bear on the
question, in reading order, under a header per document section, within a token budget."""

from __future__ import annotations

import re

from mitra.answer.prompts import ELISION, build_answer_prompt, question_sentences, render_passages
from mitra.core.settings import Settings
from mitra.core.types import Analysis, Chunk, ChunkKind, Hit

NOTE = Analysis(id="EXO-24-002", title="Monojet", abstract="A monojet search.")
QUESTION = "How is the Drell-Yan background estimated?"
FILLER = [f"The detector hall number {i} was painted green during the shutdown." for i in range(6)]


def hit(doc: str, position: int, text: str, rank: int, section=("Backgrounds",), kind=ChunkKind.body) -> Hit:
    chunk = Chunk(id=f"{doc}@2#{position:05d}", analysis_id=NOTE.id, doc_id=doc, version="2", position=position,
                  section=list(section), page_start=4, page_end=4, text=text, kind=kind)
    return Hit(chunk=chunk, rank=rank)


def settings(tmp_path, **update) -> Settings:
    return Settings(data_dir=tmp_path, **update)


def passage_texts(prompt) -> list[str]:
    return [p.text for p in prompt.passages]


def test_the_question_sentence_and_its_neighbours_are_kept_with_elisions(tmp_path):
    answer = "The Drell-Yan background is estimated from a dimuon control region in data."
    text = " ".join(FILLER[:3] + [answer] + FILLER[3:])
    prompt = build_answer_prompt(NOTE, QUESTION, [hit("AN-2024-017", 3, text, 1)], [], settings(tmp_path, context_tokens=110))
    (kept,) = passage_texts(prompt)
    assert kept == f"{ELISION} {FILLER[2]} {answer} {FILLER[3]} {ELISION}"


def test_whole_passages_when_switched_off(tmp_path):
    text = " ".join(FILLER + ["The Drell-Yan background is estimated from data."])
    prompt = build_answer_prompt(NOTE, QUESTION, [hit("AN-2024-017", 3, text, 1)], [],
                                 settings(tmp_path, context_sentences=False, context_tokens=60))
    assert passage_texts(prompt) == [text]


def test_passages_sit_under_their_document_and_section_in_reading_order(tmp_path):
    hits = [
        hit("AN-B", 7, "The Drell-Yan background is estimated in a Z control region.", 1, section=("Backgrounds", "Drell-Yan")),
        hit("AN-A", 2, "The Drell-Yan yield is normalised to data.", 2, section=("Results",)),
        hit("AN-B", 2, "Drell-Yan events are simulated with POWHEG.", 3, section=("Samples",)),
        hit("AN-B", 8, "The Drell-Yan background estimate agrees with simulation.", 4, section=("Backgrounds", "Drell-Yan")),
    ]
    prompt = build_answer_prompt(NOTE, QUESTION, hits, [], settings(tmp_path))
    assert [(p.number, p.hit.chunk.doc_id, p.hit.chunk.position) for p in prompt.passages] == [
        (1, "AN-B", 2), (2, "AN-B", 7), (3, "AN-B", 8), (4, "AN-A", 2),
    ]
    fenced = prompt.messages[-1].content
    headers = re.findall(r"^## (.*)$", fenced, re.M)
    assert headers == ["AN-B v2 · Samples", "AN-B v2 · Backgrounds > Drell-Yan", "AN-A v2 · Results"]  # one per run
    assert '## AN-B v2 · Backgrounds > Drell-Yan\n<passage n="2" at="p. 4">\nThe Drell-Yan background' in fenced


def test_the_budget_is_respected_best_passages_first(tmp_path):
    hits = [hit("AN", i, " ".join([f"Drell-Yan background estimate number {i} uses control region {i}."] + FILLER), i)
            for i in range(1, 9)]
    s = settings(tmp_path, context_tokens=200)
    passages, left_out = question_sentences(QUESTION, hits, s.context_tokens, s)
    assert len(render_passages(passages)) / s.llm_chars_per_token <= s.context_tokens
    assert {p.hit.rank for p in passages} == set(range(1, len(passages) + 1)) and 1 < len(passages) < 8
    assert {h.rank for h in left_out} == set(range(len(passages) + 1, 9))  # nothing dropped unaccounted
    for p in passages:
        assert f"Drell-Yan background estimate number {p.hit.rank} uses" in p.text


def test_a_table_is_kept_whole_or_dropped_whole(tmp_path):
    rows = "| source | Drell-Yan background uncertainty |\n|---|---|\n" + "\n".join(f"| item {i} | {i}.0% |" for i in range(30))
    table = hit("AN", 5, rows, 1, kind=ChunkKind.table)
    prose = hit("AN", 6, "The Drell-Yan background is estimated from data. " + " ".join(FILLER), 2)
    roomy = settings(tmp_path, context_tokens=2000)
    passages, _ = question_sentences(QUESTION, [table, prose], roomy.context_tokens, roomy)
    assert passages[0].text == rows  # rows and line breaks untouched
    tight = settings(tmp_path, context_tokens=120)
    passages, left_out = question_sentences(QUESTION, [table, prose], tight.context_tokens, tight)
    assert [p.hit.chunk.position for p in passages] == [6] and left_out == [table]


def test_rows_of_a_table_inside_a_body_passage_are_not_cut(tmp_path):
    text = "Yields per channel.\n| channel | Drell-Yan |\n| ee | 120 |\n| mumu | 140 |"
    s = settings(tmp_path)
    (only,), _ = question_sentences(QUESTION, [hit("AN", 1, text, 1)], s.context_tokens, s)
    assert only.text == text


def test_a_passage_sharing_no_question_word_opens_with_its_first_sentences(tmp_path):
    s = settings(tmp_path, context_tokens=60)
    (only,), _ = question_sentences(QUESTION, [hit("AN", 1, " ".join(FILLER), 1)], s.context_tokens, s)
    assert only.text.startswith(FILLER[0]) and only.text.endswith(ELISION)


def test_an_oversized_best_sentence_is_shortened_not_dropped(tmp_path):
    s = settings(tmp_path, context_tokens=60)
    long = "Drell-Yan " + "y" * 5000 + ". The end."
    (only,), left_out = question_sentences(QUESTION, [hit("AN", 1, long, 1)], 60, s)
    assert only.text.endswith("y" + ELISION) and len(only.text) < 300 and left_out == []


def test_a_slide_keeps_its_bullets_on_their_lines(tmp_path):
    slide = "- Changes since note v2\n- Latest Drell-Yan background yields\n- Plans for the unblinding\n- Thanks"
    s = settings(tmp_path)
    (only,), _ = question_sentences(QUESTION, [hit("AN", 1, slide, 1)], s.context_tokens, s)
    assert only.text == "- Changes since note v2\n- Latest Drell-Yan background yields\n- Plans for the unblinding …"


def test_a_wrapped_line_joins_its_sentence(tmp_path):
    wrapped = "The Drell-Yan background is estimated\nfrom a dimuon control region. " + " ".join(FILLER)
    s = settings(tmp_path, context_tokens=60)
    (only,), _ = question_sentences(QUESTION, [hit("AN", 1, wrapped, 1)], s.context_tokens, s)
    assert only.text.startswith("The Drell-Yan background is estimated from a dimuon control region.")


def test_a_figure_about_it_comes_with_the_sentence_that_says_what_it_is(tmp_path):
    """Issue 30: "It has an excess with local significance 1.6 σ" read alone is the
    analysis's significance to a small model; the sentence before names the WW channel."""
    text = ("The largest contributors to the excess are the diphoton and four-lepton decay modes. "
            "The WW decay mode does not have a good mass resolution. "
            "It has an excess with local significance 1.6 σ for a mass near 125 GeV. "
            + " ".join(FILLER))
    question = "What local significance does the excess have?"
    others = [hit("PAS", n, f"The excess in category {n} has a local significance below one. " + " ".join(FILLER), n)
              for n in range(2, 5)]  # their best sentences take the budget before any neighbour
    kept = passage_texts(build_answer_prompt(NOTE, question, [hit("PAS", 1, text, 1), *others], [],
                                             settings(tmp_path, context_tokens=90)))[0]
    assert "The WW decay mode does not have a good mass resolution. It has an excess with local significance" in kept
