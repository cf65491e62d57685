"""A multi-part question answered part by part: "What is the dominant background, and what is
the expected significance?"

Each part is retrieved on its own, with its own off-topic check and relevance floor. A part
that asks for a value gets the value path of a single question: its candidate values are
ranked in code and the model chooses one (``values``), which the answer states as its
passage writes it, on the part's own numbered line, when the model is sure of it (its
probability reaches ``value_confidence``); a choice it is not sure of gives that line the
warned likeliest values, as a single question's does; a part whose choice is "none" goes to
the prose. The other parts go to the model in one
prompt, each part's passages under its own heading (``multipart.build_parts_prompt``), the
value parts' candidate sentences pinned; a part with no trusted passage is said to be
unanswered, without the model.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Callable, Generator, Iterator, Protocol, Sequence

from mitra.answer import values
from mitra.answer.grounding import QuestionCoverage, SentenceSupport, off_topic
from mitra.answer.multipart import PartAnswer, build_parts_prompt, not_covered_text
from mitra.answer.prompts import Passage, PastExchange, Prompt
from mitra.answer.record import Answer, Timings, ranking_note
from mitra.answer.refusals import abstention_text
from mitra.core.types import Analysis, Hit
from mitra.models.llm import ModelInfo

if TYPE_CHECKING:
    from mitra.answer.asked import Asked
    from mitra.answer.candidates import Candidate
    from mitra.core.settings import Settings
    from mitra.retrieval.retriever import RetrievalResult


class Answerer(Protocol):
    """What the parts need of ``mitra.answer.answerer.Answerer``."""

    settings: Settings
    retriever: Any
    model_info: ModelInfo

    def coverage(self, analysis: Analysis, question: str) -> QuestionCoverage: ...

    def retrieve(self, analysis: Analysis, question: str,
                 timings: Timings) -> tuple[Asked, RetrievalResult, list[Hit], list[Candidate]]: ...

    def pick(self, asked: Asked, ranked: Sequence[Candidate], passages: Sequence[Hit],
             timings: Timings) -> tuple[Candidate, float | None, dict] | None: ...

    def write(self, prompt: Prompt, timings: Timings, elapsed_ms: Callable[[], float], question: str = "",
              title: str = "") -> Generator[str, None, tuple[str, dict]]: ...

    def checked(self, analysis: Analysis, question: str, written: str, prompt: Prompt, usage: dict,
                coverage: QuestionCoverage, retrieved: int, ranking: str, timings: Timings,
                elapsed_ms: Callable[[], float], parts: Sequence[PartAnswer] = (), said: str = "") -> Answer: ...


def _with_passages(prompt: Prompt, hits: Sequence[Hit]) -> Prompt:
    """The prompt's numbered passages and, after them, ``hits`` not among them: the passages
    of values the model chose, which the prose prompt need not hold but the answer cites."""
    have = {p.hit.chunk.id for p in prompt.passages}
    extra = [h for h in dict((h.chunk.id, h) for h in hits).values() if h.chunk.id not in have]
    more = [Passage(len(prompt.passages) + i, hit, hit.chunk.text) for i, hit in enumerate(extra, start=1)]
    return replace(prompt, passages=prompt.passages + more)


def value_hits(chosen: dict[int, tuple[Candidate, float, Sequence[Candidate]]],
               unsure: dict[int, tuple[Candidate, float | None, Sequence[Candidate]]],
               alternatives: int) -> list[Hit]:
    """The passages the parts' values cite: each value's (a part's likeliest may rank below
    the alternatives listed with it), and the values ranked next, which a warned line lists
    and a stated value's note may name."""
    return [c.hit for likeliest, _, ranked in [*chosen.values(), *unsure.values()]
            for c in (likeliest, *ranked[:alternatives + 1])]


def stream_parts(answerer: Answerer, analysis: Analysis, question: str, parts: Sequence[str],
                 history: Sequence[PastExchange], coverage: QuestionCoverage, timings: Timings,
                 elapsed_ms: Callable[[], float],
                 on_prompt: Callable[[Prompt, ModelInfo], None] | None = None) -> Iterator[str | Answer]:
    settings = answerer.settings
    answers = [PartAnswer(question=q) for q in parts]
    found: list[tuple[int, str, list[Hit]]] = []
    chosen: dict[int, tuple[Candidate, float, Sequence[Candidate]]] = {}
    unsure: dict[int, tuple[Candidate, float | None, Sequence[Candidate]]] = {}
    pinned: dict[str, list[str]] = {}
    retrieved, offered, system, usage = 0, 0, "hybrid", {}
    for n, part in enumerate(answers, start=1):
        if off_topic(answerer.coverage(analysis, part.question), settings.min_question_coverage):
            part.skipped = "off-topic"
            continue
        asked, result, hits, ranked = answerer.retrieve(analysis, part.question, timings)
        retrieved, system = retrieved + len(result.hits), result.system
        if not hits:
            part.skipped = "no-relevant-passage"
            continue
        picked = answerer.pick(asked, ranked, hits, timings) if ranked else None
        offered += len(ranked)
        if picked is not None:
            if (picked[1] is not None and picked[1] >= settings.value_confidence
                    and values.stands(asked, picked[0], ranked)):
                chosen[n], usage = (picked[0], picked[1], ranked), picked[2]
            else:  # never stated unwarned: the likeliest values, as for a single question
                unsure[n] = (picked[0], picked[1], ranked)
            continue
        found.append((n, part.question, hits + values.extra(ranked, hits)))
        for chunk_id, sentences in values.pinned(ranked).items():
            pinned.setdefault(chunk_id, []).extend(sentences)
    ranking = ranking_note(system, answerer.retriever.reranker is not None)
    said = "".join(f"\n\n{not_covered_text(analysis, n, p.question)}" for n, p in enumerate(answers, start=1)
                   if p.skipped)
    if not found and not chosen and not unsure:
        text = abstention_text(analysis) + said
        yield text
        timings.total_ms = elapsed_ms()
        yield Answer(analysis_id=analysis.id, question=question, text=text, sources=[], cited=[], abstained=True,
                     abstain_reason="no-relevant-passage", coverage=coverage, retrieved=retrieved, ranking=ranking,
                     parts=answers, timings=timings)
        return
    mark = time.perf_counter()
    prompt, numbers = build_parts_prompt(analysis, found, history, settings, pinned) if found else (
        Prompt.of([], [], [], 0, settings), {})
    prompt = _with_passages(prompt, value_hits(chosen, unsure, settings.value_alternatives))
    for n, numbered in numbers.items():
        answers[n - 1].passages = numbered
    timings.prompt_ms = (time.perf_counter() - mark) * 1000
    if on_prompt is not None:
        on_prompt(prompt, answerer.model_info)
    number = values.numbers(prompt.sources)
    lines, supports, notes = [], [], []
    for n in sorted({*chosen, *unsure}):
        if n in chosen:
            candidate, confidence, ranked = chosen[n]
            quote = values.quoted(candidate, number, prompt.sources)
            text, cited = values.stated(quote), [quote.passage]
            notes += values.unconfirmed(quote, confidence, ranked, prompt.sources, settings.value_margin)
        else:
            candidate, confidence, alternatives = unsure[n]
            text, cited, note = values.warned(values.quoted(candidate, number, prompt.sources), confidence,
                                              [values.quoted(c, number, prompt.sources)
                                               for c in alternatives[:settings.value_alternatives + 1]],
                                              settings)
            notes.append(note)
        line = f"{n}. {text}"
        lines.append(line)
        supports.append(SentenceSupport(text=line, cited=cited, supported=True))
        answers[n - 1].passages = answers[n - 1].cited = cited
        answers[n - 1].supported_share = 1.0
    stated = "".join(f"\n\n{line}" for line in lines)
    if not found:
        yield stated.strip() + said
        timings.total_ms = elapsed_ms()
        yield Answer(analysis_id=analysis.id, question=question, text=stated.strip() + said, sources=prompt.sources,
                     cited=sorted({c for s in supports for c in s.cited}), coverage=coverage, support=supports,
                     retrieved=retrieved, ranking=ranking, model=answerer.model_info,
                     completion_tokens=usage.get("output_tokens"), parts=answers, timings=timings, remarks=notes,
                     candidates=offered)
        return
    written, usage = yield from answerer.write(prompt, timings, elapsed_ms, question, analysis.title)
    if stated or said:
        yield stated + said
    answer = answerer.checked(analysis, question, written, prompt, usage, coverage, retrieved, ranking, timings,
                              elapsed_ms, [a for n, a in enumerate(answers, start=1) if n not in {*chosen, *unsure}],
                              stated + said)
    # Prose withheld for its parts leaves the value parts' lines standing: the answer is not withheld whole.
    yield answer.model_copy(update={"support": answer.support + supports, "parts": answers, "candidates": offered,
                                    "remarks": [*answer.remarks, *notes], "withheld": answer.withheld and not supports,
                                    "cited": answer.cited + [c for s in supports for c in s.cited
                                                             if c not in answer.cited]})
