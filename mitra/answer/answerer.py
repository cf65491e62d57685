"""Answers grounded in the locked analysis: retrieve -> relevance floor -> prompt -> generate -> cite.

``Answerer.stream`` yields the answer's tokens as they come, then one ``Answer``:
the text with its citations checked against the passages, the numbered sources
(``sources[n - 1]`` is the passage the text cites as [n]), the model that answered
and the time of every stage.

Abstention happens before generation. A question most of whose content words the
analysis never uses is off-topic (``grounding.question_coverage`` against
``min_question_coverage``): nothing is retrieved and the model is not called. When no
retrieved passage clears the relevance
floor (the cross-encoder logit against ``relevance_floor`` when a reranker ran, else
the dense cosine against ``relevance_floor_dense``; an unset floor trusts every
passage), the answer says that the analysis's documents do not cover the question and
what the analysis is about, and the model is never called. Passages under the floor
are not shown to the model either.

After generation every cited sentence is checked against its passages
(``grounding.check_support``); when none is supported the answer is withheld
(``withhold_unsupported``) and the passages are shown instead.

A question the cheap check finds several questions in (``multipart.looks_multipart``)
is split by the model; each part is retrieved on its own with its own floor, and one
answer addresses the parts in turn, each with its own citations (``Answer.parts``); a
part with no trusted passage is said to be unanswered, without the model.

A failing model raises an ``LLMError`` (unreachable, timeout, model missing, prompt
too long) whose ``passages`` are the sources retrieved for the question.
"""

from __future__ import annotations

import re
import time
from contextlib import contextmanager
from typing import TYPE_CHECKING, Callable, Generator, Iterator, Protocol, Sequence


from mitra.models.llm import ModelInfo, as_llm_error, capped, load_chat_model
from mitra.answer.prompts import (
    CITATION,
    PastExchange,
    Prompt,
    build_answer_prompt,
    build_condense_prompt,
)
from mitra.answer.record import Answer, Timings, parse_citations, ranking_note
from mitra.answer.refusals import abstention_text, off_topic_text, unsupported_text, wordless_answer_text
from mitra.answer.multipart import (
    SPLIT_PROMPT,
    PartAnswer,
    clause_split,
    coordinated,
    faithful,
    looks_multipart,
    parse_parts,
)
from mitra.answer.parts import stream_parts
from mitra.answer import values
from mitra.answer.asked import Asked
from mitra.answer.candidates import Candidate
from mitra.answer.choose import choose
from mitra.answer.followup import needs_history, substituted
from mitra.answer.gate import gated
from mitra.answer.claims import PassageText, Quote, quote, value_question
from mitra.answer.grounding import (
    Entails,
    QuestionCoverage,
    SentenceSupport,
    analysis_coverage,
    check_support,
    off_topic,
    recite,
    shown_supported,
    supported_share,
)
from mitra.core.settings import Settings
from mitra.core.types import Analysis, Hit
from mitra.models.rerank import Reranker
from mitra.store.reader import KnowledgeReader

# An answer needs at least one word (two letters) once its citation markers are removed.
_WORD = re.compile(r"[^\W\d_]{2,}")

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from mitra.retrieval.pipeline import Pipeline

    from mitra.retrieval.retriever import RetrievalResult


class SearchesPassages(Protocol):
    """What the answerer needs from ``mitra.retrieval.retriever.Retriever``."""

    kb: KnowledgeReader
    reranker: Reranker | None  # the cross-encoder, where one loaded

    def search(self, analysis_id: str, question: str, *, system: str | None = None, k: int | None = None,
               version: str | None = None) -> RetrievalResult: ...


class Answerer:
    def __init__(self, retriever: SearchesPassages, chat_model: BaseChatModel, model_info: ModelInfo, settings: Settings,
                 title_names_analysis: bool = True):
        self.retriever = retriever
        self.chat_model = chat_model
        self.model_info = model_info
        self.settings = settings
        # A locked question's words from the analysis's title say which analysis, not which
        # quantity; a question put to several analyses (``across``) names no analysis.
        self.title_names_analysis = title_names_analysis

    def for_pipeline(self, pipeline: Pipeline, across: bool = False) -> "Answerer":
        """The same model answering from ``pipeline``'s retriever: one model per process,
        each session's answers read only what its principal may read. ``across``: for one
        analysis's line of a question put to several, whose choice reads at most
        ``across_value_candidates`` values (its line waits for that prompt to be read) and
        whose title's words are the quantity asked, not which analysis."""
        settings = self.settings
        if across:
            settings = settings.model_copy(
                update={"value_candidates": min(settings.value_candidates, settings.across_value_candidates)})
        return Answerer(pipeline.retriever, self.chat_model, self.model_info, settings, title_names_analysis=not across)

    def write(self, prompt: Prompt, timings: Timings, elapsed_ms: Callable[[], float],
              question: str = "", title: str = "") -> Generator[str, None, tuple[str, dict]]:
        """The model's answer to ``prompt`` in pieces as it writes them, each sentence that
        states a figure held back until it is complete and checked against the passages
        (``gate.gated``); returns the whole text and the usage it reported. Fills the
        timings' first token and generation time."""
        mark = time.perf_counter()
        pieces: list[str] = []
        usage: dict = {}

        def model_pieces() -> Iterator[str]:
            nonlocal usage
            with self.llm_errors(prompt.sources):
                for chunk in self.chat_model.stream(prompt.messages):
                    usage = dict(chunk.usage_metadata or usage)
                    if isinstance(chunk.content, str) and chunk.content:
                        if timings.first_token_ms is None:
                            timings.first_token_ms = elapsed_ms()
                        pieces.append(chunk.content)
                        yield chunk.content

        def checked(sentence: str) -> bool:
            return all(s.supported is not False for s in check_support(
                sentence, prompt.sources, self.settings.support_min_overlap, self.entails(), question=question,
                title=title))

        yield from gated(model_pieces(), checked)
        timings.generate_ms = (time.perf_counter() - mark) * 1000
        return "".join(pieces), usage

    @contextmanager
    def llm_errors(self, passages: Sequence[Hit] = ()) -> Iterator[None]:
        """Any backend's transport failure as the matching LLMError, carrying the passages."""
        try:
            yield
        except Exception as error:
            failure = as_llm_error(error, self.model_info, self.settings)
            if failure is None:
                raise
            failure.passages = list(passages)
            raise failure from error

    def trusted(self, hit: Hit) -> bool:
        """Does the passage clear the relevance floor of its score's scale (module docstring)?"""
        if "rerank" in hit.scores:
            floor, score = self.settings.relevance_floor, hit.scores["rerank"]
        else:
            floor, score = self.settings.relevance_floor_dense, hit.scores.get("dense")
        return floor is None or (score is not None and score >= floor)

    def answer(self, analysis: Analysis, question: str, history: Sequence[PastExchange] = ()) -> Answer:
        *_, final = self.stream(analysis, question, history)
        return final

    def stream(self, analysis: Analysis, question: str, history: Sequence[PastExchange] = (),
               on_prompt: Callable[[Prompt, ModelInfo], None] | None = None) -> Iterator[str | Answer]:
        """The answer's text in pieces as the model writes it, then the ``Answer``.
        ``on_prompt`` is called with the prompt once its passages are chosen, before the
        model reads it: a UI shows them then, instead of after the model's first word."""
        start = time.perf_counter()
        elapsed_ms = lambda: (time.perf_counter() - start) * 1000  # noqa: E731
        coverage = self.coverage(analysis, question)
        if off_topic(coverage, self.settings.min_question_coverage):
            text = off_topic_text(analysis, coverage.unknown)
            yield text
            yield Answer(analysis_id=analysis.id, question=question, text=text, sources=[], cited=[], abstained=True,
                         abstain_reason="off-topic", coverage=coverage, timings=Timings(total_ms=elapsed_ms()))
            return
        timings = Timings()
        parts = coordinated(question) if self.settings.multipart and value_question(question) else []
        if not parts and self.settings.multipart and looks_multipart(question):
            mark = time.perf_counter()
            parts = self.split(question)
            timings.split_ms = (time.perf_counter() - mark) * 1000
        if len(parts) > 1:
            yield from self.stream_parts(analysis, question, parts, history, coverage, timings, elapsed_ms, on_prompt)
            return
        asked, result, trusted, ranked = self.retrieve(analysis, question, timings)
        ranking = ranking_note(result.system, self.retriever.reranker is not None)

        if not trusted:
            text = abstention_text(analysis)
            yield text
            timings.total_ms = elapsed_ms()
            yield Answer(analysis_id=analysis.id, question=question, text=text, sources=[], cited=[],
                         abstained=True, abstain_reason="no-relevant-passage", coverage=coverage,
                         retrieved=len(result.hits), ranking=ranking, timings=timings)
            return

        mark = time.perf_counter()
        prompt = build_answer_prompt(analysis, question, trusted + values.extra(ranked, trusted), history,
                                     self.settings, values.pinned(ranked))
        timings.prompt_ms = (time.perf_counter() - mark) * 1000
        if on_prompt is not None:
            on_prompt(prompt, self.model_info)
        numbered = values.numbered(ranked, prompt.sources)
        quote = values.first(numbered, prompt.sources, self.settings) if numbered else self.quote(asked, prompt)
        if quote is not None:
            timings.quote_ms = elapsed_ms()
            yield quote
        if numbered:
            chosen = self.choose(asked, numbered, prompt, timings)
            if chosen is not None:
                candidate, value, confidence, usage = chosen
                sure = (values.sure(value, confidence, quote, self.settings)
                        and values.stands(asked, candidate, [c for _, c in numbered]))
                number = values.numbers(prompt.sources)
                if sure:
                    text, cited = values.stated(value), [value.passage]
                    remarks = values.unconfirmed(value, confidence, [c for _, c in numbered], prompt.sources,
                                                 self.settings.value_margin)
                else:
                    others = [values.quoted(c, number, prompt.sources)
                              for _, c in numbered[:self.settings.value_alternatives + 1]]
                    text, cited, note = values.warned(value, confidence, others, self.settings, quote)
                    remarks = [note]
                yield text
                timings.total_ms = elapsed_ms()
                yield Answer(analysis_id=analysis.id, question=question, text=text, sources=prompt.sources,
                             cited=cited, coverage=coverage, retrieved=len(result.hits), ranking=ranking,
                             support=[SentenceSupport(text=text, cited=cited, supported=True)],
                             model=self.model_info, prompt_tokens=usage.get("input_tokens"),
                             completion_tokens=usage.get("output_tokens"), quote=quote, value=value if sure else None,
                             value_confidence=confidence, candidates=len(numbered), timings=timings,
                             remarks=remarks)
                return

        written, usage = yield from self.write(prompt, timings, elapsed_ms, question, analysis.title)
        answer = self.checked(analysis, question, written, prompt, usage, coverage, len(result.hits), ranking,
                               timings, elapsed_ms)
        # Prose that cites a passage yet states no value (the question again) is no answer to a
        # value question.
        no_value = not answer.withheld and bool(answer.cited) and values.gives_no_value(asked, answer.text)
        if numbered and (answer.withheld or no_value):
            why = "gave no value" if no_value else "was not supported by its passages"
            text, cited, note = values.listed_instead(numbered, prompt.sources, self.settings, why)
            answer = answer.model_copy(update={"text": text, "cited": cited, "withheld": False,
                                               "remarks": [*answer.remarks, note]})
        elif numbered and answer.cited:  # it chose none of the values, then stated one: not confirmed
            answer = answer.model_copy(update={"remarks": [*answer.remarks, values.unchosen_note()]})
        yield answer.model_copy(update={"quote": quote, "candidates": len(numbered)})

    def quote(self, asked: Asked, prompt: Prompt) -> Quote | None:
        """For a question asking for a value that has no candidates to choose among
        (``value_choice`` off, or none found), the sentence of a passage the model reads that
        states it (``claims.quote``), to show before the model's first word."""
        if not (self.settings.quote_first and asked.value):
            return None
        passages = [PassageText.of(n, hit) for n, hit in enumerate(prompt.sources, start=1)]
        return quote(asked.text, asked.kind, passages)

    def retrieve(self, analysis: Analysis, question: str,
                 timings: Timings) -> tuple[Asked, RetrievalResult, list[Hit], list[Candidate]]:
        """The question read once, its retrieval, the ``final_k`` passages over the relevance
        floor, and for a value question the candidate values of the fused top
        ``value_passages`` (``values.rank``). Adds to the timings' retrieval and rerank."""
        mark = time.perf_counter()
        asked = Asked.read(question, analysis.title, title_names_analysis=self.title_names_analysis)
        wide = self.settings.value_passages if self.settings.value_choice and asked.value else None
        result = self.retriever.search(analysis.id, question, k=max(wide, self.settings.final_k) if wide else None)
        rerank_ms = result.timings_ms.get("rerank", 0.0)
        timings.rerank_ms += rerank_ms
        timings.retrieve_ms += (time.perf_counter() - mark) * 1000 - rerank_ms
        trusted = [hit for hit in result.hits if self.trusted(hit)]
        return asked, result, trusted[:self.settings.final_k], values.rank(asked, trusted, self.settings)

    @property
    def value_prior(self) -> float:
        """The ranking's weight beside the model's probabilities in its choice: ``value_prior``,
        else the one measured for the model (``ModelInfo.choice_prior``)."""
        setting = self.settings.value_prior
        return self.model_info.choice_prior if setting is None else setting

    def pick(self, asked: Asked, ranked: Sequence[Candidate], passages: Sequence[Hit],
             timings: Timings) -> tuple[Candidate, float | None, dict] | None:
        """The candidate the model chooses (``choose``), its confidence and the usage; None
        when it chooses none."""
        mark = time.perf_counter()
        with self.llm_errors(passages):
            choice = choose(self.chat_model, asked, ranked, self.value_prior)
        timings.choose_ms += (time.perf_counter() - mark) * 1000
        return None if choice.none else (ranked[choice.index - 1], choice.confidence, choice.usage)

    def choose(self, asked: Asked, numbered: Sequence[tuple[int, Candidate]], prompt: Prompt,
               timings: Timings) -> tuple[Candidate, Quote, float | None, dict] | None:
        """The value the model chooses among the numbered candidates, and it quoted with its siblings."""
        picked = self.pick(asked, [c for _, c in numbered], prompt.sources, timings)
        if picked is None:
            return None
        candidate, confidence, usage = picked
        return candidate, values.quoted(candidate, values.numbers(prompt.sources), prompt.sources), confidence, usage

    def checked(self, analysis: Analysis, question: str, written: str, prompt: Prompt, usage: dict,
                 coverage: QuestionCoverage, retrieved: int, ranking: str, timings: Timings,
                 elapsed_ms: Callable[[], float], parts: Sequence[PartAnswer] = (), said: str = "") -> Answer:
        """The model's text with its citations parsed and each cited sentence checked against
        its passages; ``said`` (what the answer adds to the model's text) follows it."""
        text, cited = parse_citations(written, len(prompt.passages))
        support: list[SentenceSupport] = []
        draft = None
        if not _WORD.search(CITATION.sub("", text)):
            # nothing stated, so nothing shown as an answer: the summary's figures are not one
            draft, text = written, wordless_answer_text(analysis, cited)
        else:
            support = check_support(text, prompt.sources, self.settings.support_min_overlap, self.entails(),
                                    question=question, title=analysis.title)
            written_text = text
            recited = recite(support)
            if recited is not None:
                text, cited = parse_citations(recited, len(prompt.passages))
            if self.settings.withhold_unsupported and not shown_supported(support):
                draft, text = written_text, unsupported_text(analysis, support)
        for part in parts:
            part.cited = [n for n in cited if n in part.passages]
            part.supported_share = supported_share(support, part.passages)
        timings.total_ms = elapsed_ms()
        return Answer(analysis_id=analysis.id, question=question, text=text + said, sources=prompt.sources,
                      cited=cited, coverage=coverage, support=support, withheld=draft is not None, draft=draft,
                      retrieved=retrieved, ranking=ranking, model=self.model_info,
                      prompt_tokens=usage.get("input_tokens"),
                      prompt_cached_tokens=(usage.get("input_token_details") or {}).get("cache_read"),
                      completion_tokens=usage.get("output_tokens"), parts=list(parts), timings=timings)

    def split(self, question: str) -> list[str]:
        """A question's parts, each standing alone, as the model writes them (one part: it asks
        one thing); cut where the check saw a new question begin when the model's parts use
        words the question does not (``multipart.faithful``)."""
        with self.llm_errors():
            reply = self.chat_model.invoke(SPLIT_PROMPT.format_messages(question=question))
        parts = parse_parts(str(reply.content), self.settings.multipart_max_parts)
        if len(parts) > 1 and not faithful(parts, question):
            parts = parse_parts("\n".join(clause_split(question)), self.settings.multipart_max_parts)
        return parts

    def stream_parts(self, analysis: Analysis, question: str, parts: Sequence[str], history: Sequence[PastExchange],
                     coverage: QuestionCoverage, timings: Timings, elapsed_ms: Callable[[], float],
                     on_prompt: Callable[[Prompt, ModelInfo], None] | None = None) -> Iterator[str | Answer]:
        """The parts answered in turn (``parts.stream_parts``)."""
        return stream_parts(self, analysis, question, parts, history, coverage, timings, elapsed_ms, on_prompt)

    def entails(self) -> Entails | None:
        """The cross-encoder as the support check's reader of paraphrase, where one is loaded."""
        reranker, floor = self.retriever.reranker, self.settings.support_min_rerank
        if reranker is None or floor is None:
            return None
        return lambda claim, passage: reranker.score(claim, [passage])[0] >= floor

    def coverage(self, analysis: Analysis, question: str) -> QuestionCoverage:
        return analysis_coverage(self.retriever.kb, analysis, question)

    def condense(self, history: Sequence[PastExchange], question: str) -> str:
        """The follow-up as a standalone query for retrieval: the question itself when it
        stands alone (``followup.needs_history``: no wait for the model), without history, or
        when the model's rewrite is empty."""
        if not history or not needs_history(question, [past.question for past in history]):
            return question
        swapped = substituted(question, history[-1].question)
        if swapped is not None:
            return swapped
        recent = list(history)[-self.settings.llm_history_turns :]
        with self.llm_errors():
            reply = capped(self.chat_model, CONDENSE_TOKENS).invoke(build_condense_prompt(recent, question),
                                                                    stop=["\n"])
        rewritten = str(reply.content).strip().removeprefix("Standalone question:").strip().strip('"')
        previous = history[-1].question
        return rewritten if _a_question(rewritten, question, previous) else f"{previous} {question}"


# A standalone question is short: the rewrite stops here, and a longer one is an answer.
CONDENSE_TOKENS = 64
# How a question opens, when its rewrite drops the question mark.
_ASKING = re.compile(r"(?:what|which|who|whom|whose|why|how|where|when|is|are|was|were|do|does|did|can|could|"
                     r"would|should|has|have|list|name|give|describe|explain|compare)\b", re.I)


def _a_question(rewritten: str, question: str, previous: str) -> bool:
    """Is the model's rewrite a question, not an answer ("The answer to this question is 1.2.",
    its previous answer copied in with its citations)?
    Otherwise the follow-up is retrieved after the question before it, both as asked."""
    asks = rewritten.endswith("?") or bool(_ASKING.match(rewritten))
    return asks and not CITATION.search(rewritten) and \
        len(rewritten.split()) <= len(question.split()) + len(previous.split()) + 8


def build_answerer(pipeline: Pipeline, settings: Settings | None = None) -> Answerer:
    """The answerer on the pipeline's retriever and the configured chat model."""
    settings = settings or pipeline.settings
    chat_model, info = load_chat_model(settings)
    return Answerer(pipeline.retriever, chat_model, info, settings)
