"""Questions beyond one analysis: ``across`` (one answer from the top routed analyses)
and ``compare`` (the same question answered in two analyses' locks, side by side).

Across: the question is routed with the member's scoped pipeline, so an analysis they may
not read is never a candidate; the first ``across_k`` candidates scoring at least
``across_score_share`` of the first one's fused score are chosen. Each is retrieved in its
own lock (the locked answerer's off-topic check and relevance floor hold per analysis),
the trusted passages are pooled best-first (each analysis's best, then each one's second,
…) under one token budget, grouped by analysis and numbered, and the model answers in one
prompt whose rules say to name the analysis of each claim and cite [n]. The passages come
only from the chosen analyses' retrievals, so nothing from another analysis can reach the
prompt; the per-sentence support check of the locked path runs on the answer.

Compare: both analyses must be readable (a forbidden one reads as a missing one, before
any model call); each answer is the locked answerer's own, citations and support included.
"""

from __future__ import annotations

import re
import time
from typing import TYPE_CHECKING, Callable, Iterator, Literal, Sequence

from langchain_core.prompts import ChatPromptTemplate
from pydantic import BaseModel, computed_field

from mitra.answer.answerer import Answer, Answerer, Timings, parse_citations
from mitra.answer.multipart import Skipped
from mitra.answer.grounding import (
    Credit,
    SentenceSupport,
    check_support,
    content_words,
    off_topic,
    recite,
    shown_supported,
    supported_share,
)
from mitra.answer.prompts import (
    CITATION,
    NUMBERS_RULE,
    PASSAGES_ARE_DATA,
    Passage,
    Prompt,
    analysis_summary,
    estimate_tokens,
    messages_tokens,
    question_sentences,
    sanitise,
    select_passages,
)
from mitra.core.errors import MitraError
from mitra.core.types import Analysis, Hit, RoutedAnalysis
from mitra.models.llm import ModelInfo

from mitra.core.settings import Settings

if TYPE_CHECKING:
    from mitra.retrieval.pipeline import Pipeline


ACROSS_SYSTEM = """\
You are MITRA, the assistant of a physics collaboration. This question is put to several \
analyses at once:
{analyses}

Rules:
1. Answer only from the numbered passages inside <passages> in the user's message; each \
passage names the analysis it comes from. Do not use outside knowledge. Never invent \
numbers, names or results.
2. Name the analysis of every claim by its id, and cite the passage that supports it in \
square brackets: "In {example_id}, ... [1]." Never attribute a passage to another analysis.
3. Where the analyses differ, say so, each with its own citation.
4. """ + NUMBERS_RULE + """
5. If the passages do not contain the answer, say plainly that the documents of these \
analyses do not cover the question.
6. """ + PASSAGES_ARE_DATA + """
7. Be concise and precise."""

ACROSS_HUMAN = """\
<passages>
{passages}
</passages>

Question, across {analysis_ids}: {question}
(Answer from the passages only, name each claim's analysis and cite the passages as [n].)"""

ACROSS_PROMPT = ChatPromptTemplate.from_messages([("system", ACROSS_SYSTEM), ("human", ACROSS_HUMAN)])

class AcrossPart(BaseModel):
    """One chosen analysis's share of an across answer."""

    analysis_id: str
    title: str
    routing_score: float
    confidence: Literal["strong", "weak"]
    skipped: Skipped | None = None  # why none of its passages reached the model
    passages: int = 0  # its passages in the prompt
    cited: list[int] = []  # the answer's citations of its passages
    supported_share: float | None = None  # of the checked sentences citing its passages, those supported


class AcrossAnswer(BaseModel):
    question: str
    text: str
    parts: list[AcrossPart]  # the chosen analyses, in routing order
    sources: list[Hit]  # sources[n - 1] is [n]; its chunk names its analysis
    cited: list[int]
    support: list[SentenceSupport] = []
    abstained: bool = False  # no chosen analysis had a passage above its floor: the model was not called
    withheld: bool = False  # no cited sentence was supported: ``text`` says so, ``draft`` is the model's
    draft: str | None = None
    model: ModelInfo | None = None
    completion_tokens: int | None = None
    timings: Timings

    @computed_field
    @property
    def supported_share(self) -> float | None:
        return supported_share(self.support)

    cited_sources = Answer.cited_sources  # these read only ``sources``, ``cited`` and ``support``
    notes = Answer.notes
    moved_citations = Answer.moved_citations


class Comparison(BaseModel):
    """The same question answered in each analysis's lock."""

    question: str
    analyses: list[Analysis]
    answers: list[Answer]


def choose(routed: Sequence[RoutedAnalysis], k: int, share: float) -> list[RoutedAnalysis]:
    """The first ``k`` candidates whose fused score is at least ``share`` of the first's."""
    if not routed:
        return []
    floor = routed[0].score * share
    return [c for c in routed[:k] if c.score >= floor]


def _render(passage: Passage) -> str:
    chunk = passage.hit.chunk
    source = sanitise(chunk.citation_label).replace('"', "")
    analysis = sanitise(chunk.analysis_id).replace('"', "")
    return f'<passage n="{passage.number}" analysis="{analysis}" source="{source}">\n{passage.text}\n</passage>'


def _pooled(per_analysis: Sequence[Sequence[Hit]]) -> list[Hit]:
    """Each analysis's best, then each one's second, …: the budget is shared, not taken by one."""
    depth = max((len(hits) for hits in per_analysis), default=0)
    return [hits[i] for i in range(depth) for hits in per_analysis if i < len(hits)]


def build_across_prompt(question: str, analyses: Sequence[Analysis], per_analysis: Sequence[Sequence[Hit]],
                        settings: Settings) -> Prompt:
    """One prompt within ``llm_context_tokens``: the analyses named in the rules, their
    passages grouped by analysis (in routing order) and numbered from 1. With
    ``context_sentences`` each analysis that has passages gets the locked prompt's
    ``context_tokens`` of its own passages' sentences (one analysis's five passages once took
    the budget and SMP-24-002's own calibration sentence was cut): the model reads the prompt
    before its first word, so whole passages from three analyses would triple the wait."""
    values = {
        "analyses": "\n".join(f'- {a.id}: "{sanitise(a.title)}". {analysis_summary(a)}' for a in analyses),
        "example_id": analyses[0].id,
        "analysis_ids": ", ".join(a.id for a in analyses),
        "question": question,
    }
    fixed = messages_tokens(ACROSS_PROMPT.format_messages(**values, passages=""), settings)
    # The analysis attribute costs what select_passages does not count for it.
    label = max(estimate_tokens(f' analysis="{a.id}"', settings) for a in analyses)
    hits = _pooled(per_analysis)
    budget = max(settings.llm_context_tokens - settings.llm_max_tokens - fixed - label * len(hits), 0)
    if settings.context_sentences:  # each analysis its own share: one analysis's neighbours never crowd out another's
        drawing = [analysis_hits for analysis_hits in per_analysis if analysis_hits]
        share = min(settings.context_tokens, budget // max(len(drawing), 1))
        chosen, left_out = [], []
        for analysis_hits in drawing:
            kept, dropped = question_sentences(question, analysis_hits, share, settings)
            chosen, left_out = chosen + kept, left_out + dropped
    else:
        chosen, left_out = select_passages(hits, budget, settings)
    order = {a.id: i for i, a in enumerate(analyses)}
    grouped = sorted(chosen, key=lambda p: order[p.hit.chunk.analysis_id])  # stable: document order within
    passages = [Passage(n, p.hit, p.text) for n, p in enumerate(grouped, start=1)]
    messages = ACROSS_PROMPT.format_messages(**values, passages="\n".join(map(_render, passages)))
    return Prompt.of(messages, passages, left_out, 0, settings)


def _labelled(hit: Hit, analyses: dict[str, Analysis]) -> Hit:
    """The passage as the support check reads it: after its analysis's id and title, so a
    sentence naming its analysis is checked, and one naming another fails on that id."""
    analysis = analyses[hit.chunk.analysis_id]
    text = f"{analysis.id}: {analysis.title}.\n{hit.chunk.text}"
    return hit.model_copy(update={"chunk": hit.chunk.model_copy(update={"text": text})})


def _blank(hit: Hit) -> Hit:
    return hit.model_copy(update={"chunk": hit.chunk.model_copy(update={"text": ""})})


def _named(text: str, analyses: Sequence[Analysis]) -> list[str]:
    return [a.id for a in analyses if re.search(rf"(?<![\w-]){re.escape(a.id)}(?![\w-])", text)]


def _scoped(sources: Sequence[Hit], keep) -> list[Hit]:
    """The passages with every one outside ``keep`` blanked: numbers stay as they were."""
    return [hit if keep(hit.chunk.analysis_id) else _blank(hit) for hit in sources]


def attributed(support: Sequence[SentenceSupport], sources: Sequence[Hit], analyses: Sequence[Analysis],
               min_overlap: float, entails, question: str = "") -> list[SentenceSupport]:
    """A sentence that names analyses stands only on their passages: checked again against
    them, its citation moves to one of theirs that holds it. If none does but one other
    analysis's passages hold it, the sentence is credited to that analysis instead (the
    model gave HIG-24-001's calibration as SMP-24-002's); else it is left out of the answer.
    The word check alone let "In A, … [14]" citing B's passage pass when the rest of the
    sentence was B's words (answer_beyond.py)."""
    checked: list[SentenceSupport] = []
    for sentence in support:
        named = _named(sentence.text, analyses)
        if not named or all(sources[n - 1].chunk.analysis_id in named for n in sentence.cited):
            checked.append(sentence.model_copy(update={"named": named}))
            continue
        (again,) = check_support(sentence.text, _scoped(sources, lambda a: a in named), min_overlap, entails,
                                 question) or [sentence]
        theirs = [n for n in again.cited if sources[n - 1].chunk.analysis_id in named]
        if again.supported and theirs == again.cited:
            written = again.cited if again.recited_from is None else again.recited_from
            checked.append(again.model_copy(update={"recited_from": written, "misattributed": True, "named": named}))
            continue
        credit = _credited(sentence, sources, analyses, named, min_overlap, entails, question)
        checked.append(credit or sentence.model_copy(update={
            "cited": [], "supported": False, "recited_from": sentence.cited, "misattributed": True, "named": named}))
    return checked


def _credited(sentence: SentenceSupport, sources: Sequence[Hit], analyses: Sequence[Analysis], named: list[str],
              min_overlap: float, entails, question: str) -> SentenceSupport | None:
    """The sentence credited to the one other analysis whose passages hold it, if there is one."""
    if len(named) != 1:
        return None
    holders = []
    for other in (a.id for a in analyses if a.id not in named):
        renamed = re.sub(rf"(?<![\w-]){re.escape(named[0])}(?![\w-])", other, sentence.text)
        (again,) = check_support(renamed, _scoped(sources, lambda a: a == other), min_overlap, entails, question) or [None]
        if again is not None and again.supported and again.cited:
            holders.append((other, again))
    if len(holders) != 1:
        return None
    holder, again = holders[0]
    return sentence.model_copy(update={"cited": again.cited, "supported": True, "recited_from": sentence.cited,
                                       "misattributed": True, "named": named,
                                       "credit": Credit(named=named[0], holder=holder)})


def abstention_across(analyses: Sequence[Analysis]) -> str:
    return (f"The documents of {', '.join(a.id for a in analyses)} do not cover this question, "
            "so I cannot answer it from them.")


def unsupported_across(analyses: Sequence[Analysis]) -> str:
    return (f"The passages found in {', '.join(a.id for a in analyses)} do not say this: the model's answer made "
            "claims its cited passages do not contain, so it is not shown. The passages found are below.")


def stream_across(pipeline: Pipeline, answerer: Answerer, question: str, k: int | None = None,
                  on_prompt: Callable[[Prompt, ModelInfo], None] | None = None) -> Iterator[str | AcrossAnswer]:
    """The answer's text in pieces, then the ``AcrossAnswer``. ``pipeline`` is the member's
    (scoped) pipeline: routing and retrieval read only what they may read."""
    s = pipeline.settings
    start = time.perf_counter()
    answerer = answerer.for_pipeline(pipeline)
    routed = choose(pipeline.router.route(question, top_n=k or s.across_k).candidates, k or s.across_k,
                    s.across_score_share)
    if not routed:
        raise MitraError("No analysis to answer from: the knowledge base holds none you may read (`mitra stats`).")
    analyses = [c.analysis for c in routed]
    parts = [AcrossPart(analysis_id=c.analysis.id, title=c.analysis.title, routing_score=round(c.score, 4),
                        confidence=c.confidence) for c in routed]
    per_analysis: list[list[Hit]] = []
    for analysis, part in zip(analyses, parts):
        if off_topic(answerer.coverage(analysis, question), s.min_question_coverage):
            part.skipped, hits = "off-topic", []
        else:
            hits = [h for h in answerer.retriever.search(analysis.id, question).hits if answerer.trusted(h)]
            part.skipped = None if hits else "no-relevant-passage"
        per_analysis.append(hits)
    timings = Timings(retrieve_ms=(time.perf_counter() - start) * 1000)
    elapsed_ms = lambda: (time.perf_counter() - start) * 1000  # noqa: E731

    if not any(per_analysis):
        text = abstention_across(analyses)
        yield text
        timings.total_ms = elapsed_ms()
        yield AcrossAnswer(question=question, text=text, parts=parts, sources=[], cited=[], abstained=True,
                           timings=timings)
        return

    mark = time.perf_counter()
    prompt = build_across_prompt(question, analyses, per_analysis, s)
    sources = prompt.sources
    timings.prompt_ms = (time.perf_counter() - mark) * 1000
    if on_prompt is not None:
        on_prompt(prompt, answerer.model_info)

    written, usage = yield from answerer.write(prompt, timings, elapsed_ms)
    text, cited = parse_citations(written, len(sources))
    support: list[SentenceSupport] = []
    draft = None
    if content_words(CITATION.sub(" ", text)):  # an answer of bare markers has nothing to check
        by_id = {a.id: a for a in analyses}
        labelled = [_labelled(h, by_id) for h in sources]
        support = check_support(text, labelled, s.support_min_overlap, answerer.entails(), question=question)
        support = attributed(support, labelled, analyses, s.support_min_overlap, answerer.entails(), question)
        if (recited := recite(support)) is not None:
            text, cited = parse_citations(recited, len(sources))
    if s.withhold_unsupported and not shown_supported(support):
        draft, text = text, unsupported_across(analyses)
    for part in parts:
        mine = {n for n, hit in enumerate(sources, start=1) if hit.chunk.analysis_id == part.analysis_id}
        part.passages = len(mine)
        part.cited = [n for n in cited if n in mine]
        part.supported_share = supported_share(support, mine)
    timings.total_ms = elapsed_ms()
    yield AcrossAnswer(question=question, text=text, parts=parts, sources=sources, cited=cited, support=support,
                       withheld=draft is not None, draft=draft, model=answerer.model_info,
                       completion_tokens=usage.get("output_tokens"), timings=timings)


def pair(ids: str) -> tuple[str, str]:
    """"A,B" as two different analysis ids."""
    named = [part.strip() for part in ids.split(",") if part.strip()]
    if len(named) != 2 or named[0] == named[1]:
        raise MitraError(f"--compare takes two different analysis ids, A,B; got '{ids}'")
    return named[0], named[1]


def readable(pipeline: Pipeline, ids: Sequence[str]) -> list[Analysis]:
    """The analyses as the pipeline's reader may read them, or the error of the first it may
    not: a forbidden one reads exactly like a missing one, so nothing leaks about what exists."""
    analyses = []
    for analysis_id in ids:
        analysis = pipeline.kb.get_analysis(analysis_id)
        if analysis is None:
            raise MitraError(f"No analysis '{analysis_id}' in the knowledge base (`mitra stats` lists them).")
        analyses.append(analysis)
    return analyses


def compare(pipeline: Pipeline, answerer: Answerer, analyses: Sequence[Analysis], question: str) -> Comparison:
    """The question answered in each analysis's lock (``readable`` checks them first)."""
    locked = answerer.for_pipeline(pipeline)
    return Comparison(question=question, analyses=analyses, answers=[locked.answer(a, question) for a in analyses])
