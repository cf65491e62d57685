"""Questions beyond one analysis: ``across`` (the question answered analysis by analysis,
then a synthesis) and ``compare`` (the same question answered in two analyses' locks, side
by side).

Across: the question is routed with the member's scoped pipeline, so an analysis they may
not read is never a candidate; the first ``across_k`` candidates scoring at least
``across_score_share`` of the first one's fused score are searched. Each is answered **in
its own lock**, exactly as a locked question is (its off-topic check, relevance floor, the
value path for a value question, the claim check), so a claim about analysis X stands only
on X's passages by construction: no prompt ever holds two analyses' passages. Each
analysis's line is streamed as soon as it is checked, its citations renumbered into one
list of sources. Then a synthesis over the checked lines, in code (which analyses answer,
the values side by side and whether they agree), citing only them, and one line naming the
analyses searched that had nothing on the question.

Compare: both analyses must be readable (a forbidden one reads as a missing one, before
any model call); each answer is the locked answerer's own, citations and support included.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Callable, Iterator, Literal, Sequence

from pydantic import BaseModel, computed_field

from mitra.answer.answerer import Answer, Answerer
from mitra.answer.claims import Quote
from mitra.answer.grounding import SentenceSupport, supported_share
from mitra.answer.multipart import Skipped
from mitra.answer.notes import Note
from mitra.answer.prompts import CITATION, Passage, Prompt, expand_citation
from mitra.answer.record import Timings
from mitra.core.errors import MitraError
from mitra.core.types import Analysis, Hit, RoutedAnalysis
from mitra.models.llm import LLMError, ModelInfo

if TYPE_CHECKING:
    from mitra.retrieval.pipeline import Pipeline


class AcrossPart(BaseModel):
    """One searched analysis's share of an across answer."""

    analysis_id: str
    title: str
    routing_score: float
    confidence: Literal["strong", "weak"]
    skipped: Skipped | Literal["not covered"] | None = None  # why it has no line: nothing on the question
    passages: int = 0  # its passages among the sources
    cited: list[int] = []  # its line's citations, numbered among the sources
    supported_share: float | None = None  # of its line's checked sentences, those supported
    line: str = ""  # its checked answer, as the member reads it
    value: Quote | None = None  # the value its line states, for a value question
    seconds: float = 0.0  # from the question to its line on screen


class AcrossAnswer(BaseModel):
    question: str
    text: str
    parts: list[AcrossPart]  # the searched analyses, in routing order
    sources: list[Hit]  # sources[n - 1] is [n]; its chunk names its analysis
    cited: list[int]
    support: list[SentenceSupport] = []
    remarks: list[Note] = []  # each line's notes on itself (a value to check), naming its analysis
    abstained: bool = False  # no searched analysis had anything on the question
    withheld: bool = False  # kept for the record's shape: a line is withheld in its own lock, never the whole
    draft: str | None = None
    model: ModelInfo | None = None
    completion_tokens: int | None = None
    timings: Timings

    @computed_field
    @property
    def supported_share(self) -> float | None:
        return supported_share(self.support)

    @computed_field
    @property
    def missing(self) -> list[str]:
        """The analyses searched that had nothing on the question."""
        return [part.analysis_id for part in self.parts if part.skipped]

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


def renumbered(text: str, offset: int, n_passages: int) -> str:
    """``text`` with every citation [n] of its own passages as [n + offset]."""
    def shift(match) -> str:
        numbers, _ = expand_citation(match.group(2), n_passages)
        return f"{match.group(1)}[{', '.join(str(n + offset) for n in numbers)}]" if numbers else match.group(0)

    return CITATION.sub(shift, text)


def has_nothing(answer: Answer) -> Skipped | Literal["not covered"] | None:
    """Why a locked answer gives the analysis no line: abstained, withheld, or citing nothing."""
    if answer.abstained:
        return answer.abstain_reason
    return "not covered" if answer.withheld or not answer.cited else None


def synthesis(parts: Sequence[AcrossPart]) -> str:
    """Over the checked lines only: which analyses answer, and for a value question the values
    side by side and whether they agree."""
    answered = [p for p in parts if not p.skipped]
    if len(answered) < 2:
        return ""
    valued = [p for p in answered if p.value is not None]
    if len(valued) >= 2:
        same = len({(p.value.number.split()[0]) for p in valued}) == 1
        side = " · ".join(f"{p.analysis_id} {p.value.number} [{p.cited[0]}]" for p in valued)
        return f"Side by side: {side}." + (" They agree." if same else " They differ: compare what each is stated for.")
    named = ", ".join(f"{p.analysis_id} [{', '.join(map(str, p.cited))}]" for p in answered)
    return f"{len(answered)} of {len(parts)} analyses searched answer this: {named}."


def missing_text(parts: Sequence[AcrossPart]) -> str:
    missing = [p.analysis_id for p in parts if p.skipped]
    return f"Searched, with nothing on this question: {', '.join(missing)}." if missing else ""


def abstention_across(analyses: Sequence[Analysis]) -> str:
    return (f"The documents of {', '.join(a.id for a in analyses)} do not cover this question, "
            "so I cannot answer it from them.")


def _shifted(prompt: Prompt, before: Sequence[Hit]) -> Prompt:
    """One analysis's prompt as the reader sees it: the passages already served, then its own."""
    shifted = [Passage(len(before) + p.number, p.hit, p.text) for p in prompt.passages]
    return Prompt(prompt.messages, [Passage(n, h, "") for n, h in enumerate(before, 1)] + shifted, prompt.left_out,
                  prompt.history_turns, prompt.estimated_tokens)


def stream_across(pipeline: Pipeline, answerer: Answerer, question: str, k: int | None = None,
                  on_prompt: Callable[[Prompt, ModelInfo], None] | None = None) -> Iterator[str | AcrossAnswer]:
    """Each searched analysis's checked line as soon as it is ready, then the synthesis and
    what is missing, then the ``AcrossAnswer``. ``pipeline`` is the member's (scoped)
    pipeline: routing and retrieval read only what they may read. A model that fails raises
    its ``LLMError`` carrying every passage retrieved, each naming its analysis."""
    s = pipeline.settings
    start = time.perf_counter()
    locked = answerer.for_pipeline(pipeline, across=True)
    routed = choose(pipeline.router.route(question, top_n=k or s.across_k).candidates, k or s.across_k,
                    s.across_score_share)
    if not routed:
        raise MitraError("No analysis to answer from: the knowledge base holds none you may read (`mitra stats`).")
    parts = [AcrossPart(analysis_id=c.analysis.id, title=c.analysis.title, routing_score=round(c.score, 4),
                        confidence=c.confidence) for c in routed]
    sources: list[Hit] = []
    support: list[SentenceSupport] = []
    remarks: list[Note] = []
    lines: list[str] = []
    timings, tokens = Timings(), 0
    for i, (c, part) in enumerate(zip(routed, parts), start=1):
        def reading(prompt: Prompt, model: ModelInfo, served: list[Hit] = list(sources)) -> None:
            if on_prompt is not None:
                on_prompt(_shifted(prompt, served), model)
        try:
            answer = next(item for item in locked.stream(c.analysis, question, (), on_prompt=reading)
                          if isinstance(item, Answer))
        except LLMError as error:
            rest = [h for r in routed[i:] for h in pipeline.retriever.search(r.analysis.id, question).hits]
            error.passages = sources + list(error.passages) + rest
            raise
        part.seconds = round(time.perf_counter() - start, 2)
        for stage in ("retrieve_ms", "rerank_ms", "prompt_ms", "choose_ms", "generate_ms"):
            setattr(timings, stage, getattr(timings, stage) + getattr(answer.timings, stage))
        tokens += answer.completion_tokens or 0
        part.skipped = has_nothing(answer)
        if part.skipped:
            continue
        offset = len(sources)
        sources += answer.sources
        part.passages = len(answer.sources)
        part.cited = [n + offset for n in answer.cited]
        part.supported_share = answer.supported_share
        part.value = answer.value.model_copy(update={"passage": answer.value.passage + offset}) if answer.value else None
        part.line = f"{c.analysis.id}: {renumbered(answer.text, offset, len(answer.sources))}"
        support += [s_.model_copy(update={"text": renumbered(s_.text, offset, len(answer.sources)),
                                          "cited": [n + offset for n in s_.cited]}) for s_ in answer.support]
        remarks += [n.model_copy(update={"text": f"{c.analysis.id}: " + renumbered(n.text, offset, len(answer.sources))})
                    for n in answer.remarks]
        lines.append(part.line)
        if timings.first_token_ms is None:
            timings.first_token_ms = part.seconds * 1000  # the first analysis's line on screen
        yield ("\n\n" if len(lines) > 1 else "") + part.line
    closing = [t for t in (synthesis(parts), missing_text(parts)) if t]
    timings.total_ms = (time.perf_counter() - start) * 1000
    if not lines:
        text = abstention_across([c.analysis for c in routed])
        yield text
        yield AcrossAnswer(question=question, text=text, parts=parts, sources=[], cited=[], abstained=True,
                           timings=timings)
        return
    if closing:
        yield "\n\n" + "\n\n".join(closing)
    cited = [n for part in parts for n in part.cited]
    yield AcrossAnswer(question=question, text="\n\n".join(lines + closing), parts=parts, sources=sources,
                       cited=list(dict.fromkeys(cited)), support=support, remarks=remarks, model=locked.model_info,
                       completion_tokens=tokens, timings=timings)


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
