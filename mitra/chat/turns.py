"""The turns of a conversation: an answer produced as a renderer iterates it, in one
analysis's lock (``AnswerTurn``), across analyses (``AcrossTurn``) or side by side
(``CompareTurn``); and what the session needs of the answerer."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterator, Protocol, Sequence

from mitra.answer.across import AcrossAnswer, AcrossPart, stream_across
from mitra.answer.answerer import Answer
from mitra.answer.claims import Quote
from mitra.answer.prompts import Prompt
from mitra.chat.wait import PromptSpeed, Reading
from mitra.core.errors import MitraError
from mitra.core.types import Analysis, Hit
from mitra.models.llm import LLMError, ModelInfo
from mitra.retrieval.pipeline import Pipeline


@dataclass
class Exchange:
    """One answered turn, as the answerer's history."""

    question: str
    answer: str


class AnswererLike(Protocol):
    """What the session needs from ``mitra.answer.answerer.Answerer``."""

    def stream(self, analysis: Analysis, question: str, history: Sequence[Exchange],
               on_prompt: Callable[[Prompt, ModelInfo], None] | None = None) -> Iterator[str | Answer]: ...

    def condense(self, history: Sequence[Exchange], question: str) -> str: ...

    def for_pipeline(self, pipeline: Pipeline, across: bool = False) -> "AnswererLike": ...


INTERRUPTED = "The answer was interrupted before it finished: ask again to get it."


@dataclass(kw_only=True)
class StreamedTurn:
    """An answer produced as the renderer iterates ``tokens()`` once; then ``answer`` is
    set, or ``error`` (with the retrieved ``passages`` when there were some). As soon as the
    passages are chosen, before the model's first word, ``passages`` and ``reading`` (what
    the wait is, and how long) are set and ``on_reading`` is called: a renderer sets it to
    show them while the model reads."""

    answer: Answer | AcrossAnswer | None = None
    error: str | None = None
    passages: list[Hit] = field(default_factory=list)
    done: bool = False
    on_done: Callable[["StreamedTurn"], None] | None = None  # once answered, failed or interrupted
    speed: PromptSpeed = field(default_factory=PromptSpeed)  # measured on every answer, for the next wait
    reading: Reading | None = None
    on_reading: Callable[["StreamedTurn"], None] | None = None
    quote: Quote | None = None  # a value question's passage sentence, known before the model's first word
    on_quote: Callable[["StreamedTurn"], None] | None = None  # a renderer shows it at once

    def _stream(self) -> Iterator[str | Answer | AcrossAnswer]:
        raise NotImplementedError

    def _reading(self, prompt: Prompt, model: ModelInfo | None) -> None:
        self.passages = prompt.sources
        if model is None:  # no model will read them (retrieval only): no wait to announce
            return
        self.reading = self.speed.reading(prompt, model)
        if self.on_reading is not None:
            self.on_reading(self)

    def tokens(self) -> Iterator[str]:
        """The answer's words as they come. A renderer that stops iterating (the page reran
        mid-answer: a click, a reconnecting browser) leaves the turn to be asked again when it
        is drawn next, rather than lost; a new question meanwhile ``abandon``s it."""
        if self.done:
            return
        rerun = False
        try:
            for item in self._stream():
                if isinstance(item, str):
                    yield item
                elif isinstance(item, Quote):
                    self.quote = item
                    if self.on_quote is not None:
                        self.on_quote(self)
                else:
                    self.answer = item
                    self.passages = list(item.sources)
        except GeneratorExit:
            rerun = True
            self.answer, self.quote, self.reading, self.passages = None, None, None, []
            raise
        except LLMError as error:
            self.error, self.passages = str(error), error.passages
        except MitraError as error:
            self.error = str(error)
        finally:
            if not rerun:
                self._finish()  # neither set: an unexpected error stopped it

    def abandon(self) -> None:
        """A turn left unanswered when the member moved on: said so, not asked again."""
        if not self.done:
            self._finish()

    def _finish(self) -> None:
        self.done = True
        if self.answer is None and self.error is None:
            self.error = INTERRUPTED
        if self.on_done:
            self.on_done(self)


@dataclass
class AnswerTurn(StreamedTurn):
    """An answer in one analysis's lock (``StreamedTurn``)."""

    analysis: Analysis
    question: str
    history: list[Exchange]
    answerer: AnswererLike
    standalone: str | None = None

    def _standalone(self) -> str:
        """A follow-up is rewritten into a standalone query first: retrieval sees no history.
        If the model is down the question goes as typed, so its passages are still found."""
        if not self.history:
            return self.question
        try:
            return self.answerer.condense(self.history, self.question)
        except LLMError:
            return self.question

    def _stream(self) -> Iterator[str | Answer]:
        self.standalone = self._standalone()
        for item in self.answerer.stream(self.analysis, self.standalone, self.history, on_prompt=self._reading):
            if isinstance(item, Answer):
                self.speed.measure(item)
            yield item


@dataclass
class AcrossTurn(StreamedTurn):
    """One answer from the top routed analyses the member may read (``stream_across`` on
    their scoped pipeline), each claim naming its analysis; ``passages`` name theirs."""

    question: str
    pipeline: Pipeline
    answerer: AnswererLike

    def _stream(self) -> Iterator[str | AcrossAnswer]:
        return stream_across(self.pipeline, self.answerer, self.question, on_prompt=self._reading)

    @property
    def titles(self) -> dict[str, str]:
        """The analyses it drew on (those of its passages when the model failed), id -> title."""
        if isinstance(self.answer, AcrossAnswer):
            return {part.analysis_id: part.title for part in self.answer.parts}
        ids = dict.fromkeys(hit.chunk.analysis_id for hit in self.passages)
        return {i: a.title if (a := self.pipeline.kb.get_analysis(i)) else "" for i in ids}


@dataclass
class CompareTurn:
    """The same question answered in each of two analyses' locks, to show side by side:
    iterate each turn's ``tokens()``."""

    question: str
    turns: list[AnswerTurn]

    @property
    def done(self) -> bool:
        return all(turn.done for turn in self.turns)

    def abandon(self) -> None:
        for turn in self.turns:
            turn.abandon()


def part_summary(part: AcrossPart) -> str:
    """What became of one analysis of an across answer, in words."""
    if part.skipped == "off-topic":
        return "off-topic, not asked"
    if part.skipped == "no-relevant-passage":
        return "no passage above the floor"
    if part.skipped == "not covered":
        return "its passages do not say"
    return f"{part.passages} passages, cited {len(part.cited)}, its line after {part.seconds:g} s"
