"""Pseudo-queries for ``mitra adapt`` from a paper with no headings: captions and
distinctive sentences, never a passage's own sentence verbatim."""

from __future__ import annotations

import random

from mitra.adapt.pseudo_queries import LLMBudget, heading_queries, llm_queries, passage_for, sentence_queries
from mitra.core.text import split_sentences, tokenize
from mitra.core.types import Chunk

PARAGRAPHS = [
    "The signal yield is determined from an unbinned maximum likelihood fit to the invariant mass distribution. "
    "The fit model uses a Crystal Ball function for the signal peak. The combinatorial component is an exponential.",
    "Figure 3: Invariant mass distribution of the selected candidates with the fit result overlaid. "
    "The signal peak is narrow and the combinatorial component is small above the peak. "
    "The fit describes the candidates well.",
    "Candidates are selected with a boosted decision tree trained on simulated signal and sideband data. "
    "The decision tree uses kinematic and vertex quality variables. Its output threshold maximises the expected significance.",
    "The trigger efficiency is measured with a tag-and-probe method on calibration muons. "
    "The efficiency is above ninety percent for muons with large transverse momentum. Differences between simulation and data are corrected.",
    "The dominant systematic uncertainty arises from the knowledge of the luminosity. "
    "The luminosity is calibrated with van der Meer scans and beam-gas imaging. Smaller contributions come from the tracking efficiency.",
    "The tracking efficiency is measured with a tag-and-probe method on muons from charmonium decays. "
    "Tracks are reconstructed from hits in the vertex locator and the downstream stations. The efficiency agrees with simulation within two percent.",
    "Particle identification uses the Cherenkov detectors to separate kaons from pions. "
    "The misidentification rate is measured with calibration samples of kaons from charm decays. "
    "The kaon efficiency exceeds ninety percent at a pion misidentification rate of five percent.",
    "The decay time resolution is estimated from prompt candidates with a vertex fit. "
    "Its effect on the oscillation amplitude is a dilution of the asymmetry. The resolution model is a sum of Gaussian functions.",
    "Table 2: Systematic uncertainties on the branching fraction, in percent, for each source. "
    "The luminosity and the tracking efficiency contribute most of the total systematic uncertainty.",
    "Background from misidentified kaons is modelled with simulated samples weighted to the calibration data. "
    "Its yield is constrained in the fit to the invariant mass distribution. The shape is taken from simulation.",
]


def _chunks() -> list[Chunk]:
    return [Chunk(id=f"c{n}", analysis_id="A", doc_id="paper", version="1", position=n, text=text)
            for n, text in enumerate(PARAGRAPHS)]


def test_a_paper_without_headings_gives_a_query_for_most_of_its_passages():
    chunks = _chunks()
    assert not list(heading_queries(chunks))
    queries = sentence_queries(chunks, limit=100, rng=random.Random(0))
    assert len({q.chunk_id for q in queries}) >= 0.8 * len(chunks)
    assert {q.kind for q in queries} == {"caption", "statement"}


def test_no_query_is_its_passages_sentence_and_the_sentence_is_hidden_from_the_positive():
    chunks = {c.id: c for c in _chunks()}
    for query in sentence_queries(list(chunks.values()), limit=100, rng=random.Random(0)):
        sentences = split_sentences(chunks[query.chunk_id].text)
        assert query.query not in sentences and query.hide in sentences
        shown = passage_for(query, chunks[query.chunk_id])
        assert query.hide not in shown
        # the rest still answers it in part: a term in common, but not most of them
        terms = set(tokenize(query.query))
        assert 0 < len(terms & set(tokenize(shown))) <= 0.75 * len(terms), query


def test_captions_lose_their_label_and_measurements_become_questions():
    queries = {q.query: q for q in sentence_queries(_chunks(), limit=100, rng=random.Random(0))}
    caption = "Invariant mass distribution of the selected candidates with the fit result overlaid"
    assert queries[caption].kind == "caption" and queries[caption].chunk_id == "c1"
    assert queries["How is the signal yield determined?"].chunk_id == "c0"


def test_the_limit_is_kept_and_spread_over_passages_first():
    queries = sentence_queries(_chunks(), limit=6, rng=random.Random(0))
    assert len(queries) == 6 and len({q.chunk_id for q in queries}) == 6


def test_an_llm_that_writes_too_few_usable_questions_is_stopped_after_its_probe():
    replies = []

    def rambling(chunk: Chunk) -> str:
        replies.append(chunk.id)
        return "The passage provides a detailed analysis of the fit."

    budget = LLMBudget(seconds=300, max_questions=100, min_questions=20)
    assert list(llm_queries(_chunks(), rambling, budget, random.Random(0))) == []
    assert len(replies) == budget.probe and "0 of them usable" in budget.stopped

    budget = LLMBudget(seconds=300, max_questions=5, min_questions=20)
    made = list(llm_queries(_chunks(), lambda chunk: "How is the signal yield determined?", budget, random.Random(0)))
    assert len(made) == 5 and not budget.stopped
