"""One conversation as a UI-free state machine; the web app and ``mitra chat`` only render it.

    NEW --submit(question)--> CHOOSING (top analyses for the question)
    CHOOSING --confirm(id)--> LOCKED, and the pending question is answered at once
    CHOOSING --none_of_these()--> SEARCHING --submit(text)--> matches by id/title
                                              (or, with no match, the text is routed again)
    CHOOSING --submit(text)--> CHOOSING (a rephrase is routed again)
    LOCKED --submit(follow-up)--> LOCKED (condensed with the history, answered in the lock)
    LOCKED --submit(q)--> OFFERING when another analysis routes clearly first for q
    OFFERING --accept_switch()--> LOCKED on that analysis, q answered there
    OFFERING --stay()--> LOCKED, q answered in the lock anyway
    OFFERING --submit(other)--> as LOCKED --submit(other) (the offer lapses)
    any --switch()--> NEW (lock and history dropped)      any --new_conversation()--> NEW, empty
    any --resume(id)--> LOCKED on the saved conversation's last analysis (NEW if it is gone)
    CHOOSING --across()--> NEW, the pending question answered from the top routed analyses
    any --across(q) / --compare(a, b, q)--> LOCKED if it was locked (the lock and its
                                            history untouched), else NEW

Every action appends typed events to ``transcript`` and returns them; an answer is an
``AnswerTurn`` (an ``AcrossTurn``, a ``CompareTurn`` of two ``AnswerTurn``s) whose tokens
are produced only when the renderer iterates it. State lives on the instance, so two
browser sessions never share a lock. With a conversation store,
every answered turn is saved as it ends, under the member's name (``resume`` reopens it).
"""

from __future__ import annotations

import re
from enum import Enum
from itertools import takewhile
from typing import Callable, Iterator, Protocol, Sequence

from mitra.answer.across import AcrossAnswer, choose, readable
from mitra.answer.answerer import Answer, Timings, build_answerer
from mitra.answer.grounding import QuestionCoverage, analysis_coverage
from mitra.answer.prompts import Prompt
from mitra.chat.events import (
    Candidates,
    Event,
    Locked,
    Notice,
    PastTurn,
    SearchPrompt,
    SearchResults,
    SwitchOffer,
    UserSaid,
)
from mitra.chat.saved import ASIDE, lead_in, recalled, restore, saved_across, saved_compare, saved_turn
from mitra.chat.turns import AcrossTurn, AnswererLike, AnswerTurn, CompareTurn, Exchange, StreamedTurn
from mitra.chat.wait import PromptSpeed
from mitra.core.errors import MitraError
from mitra.core.types import Analysis, Hit, RoutedAnalysis
from mitra.models.llm import LLMError, ModelInfo
from mitra.retrieval.pipeline import Pipeline
from mitra.store.conversations import SavedTurn


class Phase(str, Enum):
    new = "new"
    choosing = "choosing"
    searching = "searching"
    locked = "locked"
    offering = "offering"  # locked, with a switch to another analysis proposed for the last question


class SessionError(MitraError):
    """An action that does not fit the conversation's current state."""


class EmptyKnowledgeBase(MitraError):
    def __str__(self) -> str:
        return (
            "The knowledge base is empty. Index analyses first, for example "
            "`mitra index-jsonl analyses.jsonl` or an ingestion run, then ask again."
        )


class RetrievalOnly:
    """Stands in for the answerer when no chat model could be loaded: every question still
    retrieves its passages, and the turn says why there is no generated answer. An across
    question runs ``stream_across`` on it up to the model call, so its passages are the ones
    chosen for the model, from the analyses it would have read."""

    model_info = None

    def __init__(self, pipeline: Pipeline, error: MitraError):
        self.pipeline = pipeline
        self.error = error

    @property
    def retriever(self):
        return self.pipeline.retriever

    def coverage(self, analysis: Analysis, question: str) -> QuestionCoverage:
        return analysis_coverage(self.pipeline.kb, analysis, question)

    def trusted(self, hit: Hit) -> bool:
        return True  # as in ``stream``: every retrieved passage is shown

    def write(self, prompt: Prompt, timings: Timings, elapsed_ms: Callable[[], float]) -> Iterator[str]:
        raise LLMError(str(self.error), passages=prompt.sources)
        yield  # a generator like Answerer.write

    def condense(self, history: Sequence[Exchange], question: str) -> str:
        return question

    def for_pipeline(self, pipeline: Pipeline, across: bool = False) -> "RetrievalOnly":
        return RetrievalOnly(pipeline, self.error)

    def stream(self, analysis: Analysis, question: str, history: Sequence[Exchange],
               on_prompt: Callable[[Prompt, ModelInfo], None] | None = None) -> Iterator[str | Answer]:
        hits = self.pipeline.retriever.search(analysis.id, question).hits
        raise LLMError(str(self.error), passages=hits)
        yield  # a generator like Answerer.stream: nothing runs before iteration


def load_answerer(pipeline: Pipeline) -> AnswererLike:
    """The configured answerer, or retrieval only (with the reason) when its model cannot load."""
    try:
        return build_answerer(pipeline)
    except MitraError as error:
        return RetrievalOnly(pipeline, error)


class AuditTrail(Protocol):
    """What the session records its steps to (``mitra.audit.AuditLog``)."""

    def write(self, event: str, user: str, **fields) -> None: ...


def _served(answer: Answer | AcrossAnswer) -> dict:
    """What was served, by which model, how fast."""
    return {
        "chunks": [hit.chunk.id for hit in answer.sources],
        "cited": answer.cited,
        "model": answer.model.model if answer.model else None,
        "backend": answer.model.backend if answer.model else None,
        "timings_ms": {k: round(v) for k, v in answer.timings.model_dump().items() if v is not None},
        "withheld": answer.withheld,
    }


def answer_record(answer: Answer) -> dict:
    """An answer as the audit trail keeps it."""
    return {"analysis": answer.analysis_id, **_served(answer), "abstained": answer.abstain_reason}


def across_record(answer: AcrossAnswer) -> dict:
    """An across answer as the audit trail keeps it: every analysis it drew on."""
    return {"mode": "across", "analyses": [part.analysis_id for part in answer.parts], **_served(answer),
            "abstained": "no-relevant-passage" if answer.abstained else None}


class ConversationLog(Protocol):
    """Where the session saves its turns (``mitra.store.conversations.ConversationStore``)."""

    def start(self, owner: str, title: str) -> str: ...

    def add_turn(self, conversation_id: str, owner: str, turn: SavedTurn) -> None: ...

    def turns(self, conversation_id: str, owner: str) -> list[SavedTurn]: ...


# ---------------------------------------------------------------- catalog search
def _tokens(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def find_analyses(text: str, analyses: list[Analysis]) -> list[Analysis]:
    """Analyses whose id or title match ``text``: the exact id first, then id or title
    substrings, then those where every word starts a word of the id or title ("muon"
    finds "muons"). Precise on purpose: a vaguer text is routed as a question instead."""
    query = text.strip().lower()
    words = _tokens(query)
    if not words:
        return []

    def rank(a: Analysis) -> int:
        if query == a.id.lower():
            return 3
        if query in a.id.lower() or query in a.title.lower():
            return 2
        own = _tokens(f"{a.id} {a.title}")
        return int(all(any(w.startswith(q) for w in own) for q in words))

    ranked = [(rank(a), a) for a in analyses]
    return [a for r, a in sorted(ranked, key=lambda p: -p[0]) if r > 0]


# ---------------------------------------------------------------- the conversation
def _question(text: str) -> str:
    text = text.strip()
    if not text:
        raise SessionError("Type a question first.")
    return text


class Session:
    """One conversation: its state (new -> choosing -> locked), the analysis it is locked
    on and its history. Every user action is a method that returns the events a UI draws;
    the Streamlit app and `mitra chat` are both thin renderers of it."""

    def __init__(self, pipeline: Pipeline, answerer: AnswererLike, audit: AuditTrail | None = None,
                 speed: PromptSpeed | None = None, conversations: ConversationLog | None = None):
        self.pipeline = pipeline
        self.answerer = answerer
        self.audit = audit
        self.speed = speed or PromptSpeed()  # the app passes one per process: one model serves every session
        self.conversations = conversations
        self.conversation_id: str | None = None  # saved from its first ended turn on
        self.phase = Phase.new
        self.transcript: list[Event] = []
        self.pending_question: str | None = None  # the question waiting for an analysis
        self.choices: list[Analysis] = []  # what confirm() may pick besides any catalog id
        self.analysis: Analysis | None = None
        self.history: list[Exchange] = []
        self.offer: SwitchOffer | None = None

    # -------------------------------------------------------------- actions
    def submit(self, text: str) -> list[Event]:
        """What the user typed: a question, a rephrase, a search for an analysis, or a follow-up."""
        text = _question(text)
        if self.phase is Phase.offering:  # a new question instead of an answer to the offer
            self.phase, self.offer, self.pending_question = Phase.locked, None, None
        if self.phase is Phase.locked:
            offer = self._switch_offer(text)
            if offer is not None:
                self.phase, self.offer, self.pending_question = Phase.offering, offer, text
                return self._emit(UserSaid(text), offer)
            return self._emit(UserSaid(text), self._answer(text))
        if self.phase is Phase.searching:
            matches = find_analyses(text, self.pipeline.kb.analyses())
            if matches:
                self.choices = matches
                return self._emit(UserSaid(text), SearchResults(text, matches))
        return self._emit(UserSaid(text), *self._route(text))

    def confirm(self, analysis_id: str) -> list[Event]:
        """Lock on an analysis (a proposed one or any other) and answer the pending question."""
        if self.phase not in (Phase.choosing, Phase.searching) or self.pending_question is None:
            raise SessionError("There is no question waiting for an analysis: ask one first.")
        analysis = next((a for a in self.choices if a.id == analysis_id), None) or self.pipeline.kb.get_analysis(
            analysis_id
        )
        if analysis is None:
            raise SessionError(f"No analysis '{analysis_id}' in the knowledge base.")
        self.phase, self.analysis, self.history, self.choices = Phase.locked, analysis, [], []
        question, self.pending_question = self.pending_question, None
        return self._emit(self._locked(), self._answer(question))

    def lock(self, analysis_id: str) -> list[Event]:
        """Start locked on an analysis chosen by name (the Library's "ask about this analysis")."""
        analysis = self.pipeline.kb.get_analysis(analysis_id)
        if analysis is None:
            raise SessionError(f"No analysis '{analysis_id}' in the knowledge base.")
        self._reset()
        self.phase, self.analysis = Phase.locked, analysis
        return self._emit(self._locked())

    def accept_switch(self) -> list[Event]:
        """Lock on the analysis the offer proposed and answer the question there."""
        offer, question = self._take_offer()
        self.phase, self.analysis, self.history = Phase.locked, offer.suggested.analysis, []
        return self._emit(self._locked(), self._answer(question))

    def stay(self) -> list[Event]:
        """Keep the lock and answer the question from it after all."""
        offer, question = self._take_offer()
        self.phase = Phase.locked
        return self._emit(Notice(f"Answering from {offer.current.id}, as asked."), self._answer(question))

    def across(self, question: str | None = None) -> list[Event]:
        """Answer ``question``, or the one waiting for an analysis ("answer across these"),
        from the top routed analyses the member may read. The lock, if any, stays as it was."""
        if question is None:
            if self.phase is not Phase.choosing or self.pending_question is None:
                raise SessionError("There is no question waiting for an analysis: ask one first.")
            question, said = self.pending_question, []
        else:
            question = _question(question)
            said = [UserSaid(question)]
        self._aside()
        self._record("question", mode="across", question=question)

        def done(turn: AcrossTurn) -> None:
            self._save(saved_across(turn), turn)
            if not isinstance(turn.answer, AcrossAnswer):  # failed or interrupted: what was served still counts
                self._record("answer", mode="across", analyses=list(turn.titles),
                             chunks=[h.chunk.id for h in turn.passages], error=turn.error)
                return
            self._record("refusal" if turn.answer.abstained or turn.answer.withheld else "answer",
                         **across_record(turn.answer))

        return self._emit(*said, AcrossTurn(question, self.pipeline, self.answerer, on_done=done, speed=self.speed))

    def compare(self, first: str, second: str, question: str) -> list[Event]:
        """Answer ``question`` in each of two analyses' locks, side by side. Both are checked
        first, as the member may read them: a forbidden one is refused exactly like a missing
        one, before any model call. The lock, if any, stays as it was."""
        question = _question(question)
        if first == second:
            raise SessionError("Pick two different analyses to compare.")
        analyses = readable(self.pipeline, [first, second])
        self._aside()
        self._record("question", mode="compare", analyses=[a.id for a in analyses], question=question)

        def done(turn: AnswerTurn) -> None:
            self._served(turn, mode="compare")
            if compared.done:  # saved once, with both answers
                self._save(saved_compare(compared), compared)

        compared = CompareTurn(question, [AnswerTurn(a, question, [], self.answerer, on_done=done, speed=self.speed)
                                          for a in analyses])
        return self._emit(UserSaid(question), compared)

    def none_of_these(self) -> list[Event]:
        if self.phase is not Phase.choosing:
            raise SessionError("There are no proposed analyses to reject.")
        self.phase, self.choices = Phase.searching, []
        return self._emit(SearchPrompt(self.pending_question or ""))

    def switch(self) -> list[Event]:
        """Leave the locked analysis; the next question is routed afresh."""
        left = self.analysis
        self.phase, self.analysis, self.history, self.choices, self.pending_question = Phase.new, None, [], [], None
        self.offer = None
        text = f"Left {left.id}. Ask a question to choose another analysis." if left else "Ask a question to choose an analysis."
        return self._emit(Notice(text))

    def new_conversation(self) -> list[Event]:
        self._reset()
        return []

    def resume(self, conversation_id: str) -> list[Event]:
        """Reopen one of this member's saved conversations: its turns as they were, locked
        again on the analysis of its last turn (if the member may still read it), with the
        turns asked there as the follow-ups' history; new turns are saved to it."""
        if self.conversations is None:
            raise SessionError("Conversations are not saved here.")
        saved = self.conversations.turns(conversation_id, self.pipeline.principal_name)
        self._reset()
        self.conversation_id = conversation_id
        for t in saved:
            turn = restore(t, self.pipeline, self.answerer)
            self._emit(*((*recalled(t), turn) if turn is not None else (PastTurn(t),)))
        in_lock = [t for t in saved if ASIDE not in t.analysis_id]  # across and compare turns left the lock as it was
        last = self.pipeline.kb.get_analysis(in_lock[-1].analysis_id) if in_lock else None
        if last is None:
            return list(self.transcript)
        self.phase, self.analysis = Phase.locked, last
        # The lock's history: the answered turns since the conversation was last elsewhere.
        run = list(takewhile(lambda t: t.analysis_id == last.id, reversed(in_lock)))[::-1]
        self.history = [Exchange(t.standalone or t.question, t.answer) for t in run if t.error is None]
        return list(self.transcript)

    # -------------------------------------------------------------- internals
    def _reset(self) -> None:
        """An empty conversation (a new one, not yet saved), with the same models and stores."""
        self.__init__(self.pipeline, self.answerer, self.audit, self.speed, self.conversations)

    def _save(self, turn: SavedTurn, shown_as: object) -> None:
        """Saves ``turn``, with the lines shown before ``shown_as`` (its event) since the turn before."""
        if self.conversations is None:
            return
        if turn.shown is not None:
            turn.shown["lead"] = lead_in(self.transcript, shown_as)
        owner = self.pipeline.principal_name
        if self.conversation_id is None:
            self.conversation_id = self.conversations.start(owner, turn.question)
        self.conversations.add_turn(self.conversation_id, owner, turn)

    def _aside(self) -> None:
        """An across or compare question: a question waiting for an analysis, or a switch on
        offer, lapses; the lock and its history are kept for the next follow-up."""
        self.phase = Phase.locked if self.analysis is not None else Phase.new
        self.pending_question, self.choices, self.offer = None, [], None

    def _served(self, turn: AnswerTurn, **fields) -> None:
        """The audit record of an ended answer in one analysis's lock: what was served."""
        if turn.answer is None:  # the model failed or the turn was interrupted: what was served still counts
            self._record("answer", analysis=turn.analysis.id, chunks=[h.chunk.id for h in turn.passages],
                         error=turn.error, **fields)
            return
        self._record("refusal" if turn.answer.abstained or turn.answer.withheld else "answer",
                     **answer_record(turn.answer), **fields)

    def _emit(self, *events: Event) -> list[Event]:
        for event in self.transcript:  # a turn a rerun left unanswered: the member has moved on
            if isinstance(event, (StreamedTurn, CompareTurn)):
                event.abandon()
        self.transcript.extend(events)
        return list(events)

    def _record(self, event: str, **fields) -> None:
        if self.audit is not None:
            self.audit.write(event, self.pipeline.principal_name, **fields)

    def _locked(self) -> Locked:
        assert self.analysis is not None
        self._record("lock", analysis=self.analysis.id)
        return Locked(self.analysis, self.pipeline.kb.documents(self.analysis.id))

    def _route(self, question: str) -> list[Event]:
        routing = self.pipeline.router.route(question, top_n=self.pipeline.settings.route_top_n)
        if not routing.candidates:
            raise EmptyKnowledgeBase()
        self.phase, self.pending_question = Phase.choosing, question
        self.choices = [c.analysis for c in routing.candidates]
        self._record("route", question=question, analyses=[c.analysis.id for c in routing.candidates])
        return [Candidates(question, routing.candidates, routing.margin,
                           self._offer_across(routing.candidates, routing.margin))]

    def _offer_across(self, routed: list[RoutedAnalysis], margin: float) -> bool:
        """Whether to offer answering across the candidates: an across answer would draw on
        several (``across_score_share``) and none is a clear first, i.e. the first is a weak
        match (a strong one, first by two signals or named, is right 69 % of the time on the
        Rivet routing set, a weak one 32 %) or leads the second by less than ``switch_margin``,
        the lead that makes another analysis clearly first for a switch offer."""
        s = self.pipeline.settings
        unclear = routed[0].confidence != "strong" or (s.switch_margin is not None and margin < s.switch_margin)
        return unclear and len(choose(routed, s.across_k, s.across_score_share)) > 1

    def _take_offer(self) -> tuple[SwitchOffer, str]:
        if self.phase is not Phase.offering or self.offer is None or self.pending_question is None:
            raise SessionError("No switch to another analysis is on offer.")
        offer, question = self.offer, self.pending_question
        self.offer, self.pending_question = None, None
        return offer, question

    def _switch_offer(self, question: str) -> SwitchOffer | None:
        """Route the question as if nothing were locked. Another analysis is offered when it
        comes first, the locked one trails it by ``switch_margin`` (0 when not routed at all),
        and it uses more of the question's words than the locked one, and enough of them
        not to be off-topic itself: routing scores alone, min-max scaled over few analyses,
        proposed a switch for 6 of 15 demo questions the locked analysis answers."""
        settings, kb = self.pipeline.settings, self.pipeline.kb
        if settings.switch_margin is None or self.analysis is None:
            return None
        routed = self.pipeline.router.route(question, top_n=settings.route_k).candidates
        if not routed or routed[0].analysis.id == self.analysis.id:
            return None
        current = next((c.score for c in routed if c.analysis.id == self.analysis.id), 0.0)
        if routed[0].score - current < settings.switch_margin:
            return None
        theirs = analysis_coverage(kb, routed[0].analysis, question).share
        if theirs <= analysis_coverage(kb, self.analysis, question).share or theirs < (settings.min_question_coverage or 0):
            return None
        self._record("switch", analysis=self.analysis.id, offered=routed[0].analysis.id, question=question)
        return SwitchOffer(question, self.analysis, routed[0], current)

    def _answer(self, question: str) -> AnswerTurn:
        assert self.analysis is not None
        # Bound to this lock's history list: switch() and confirm() start a new list, so a
        # turn still streaming from an old lock can never leak into the new one.
        history = self.history
        self._record("question", analysis=self.analysis.id, question=question)

        def done(turn: AnswerTurn) -> None:
            self._save(saved_turn(turn), turn)
            self._served(turn)
            if turn.answer is not None:  # as retrieval read it: the next follow-up may swap its qualifiers again
                history.append(Exchange(turn.standalone or turn.question, turn.answer.text))

        return AnswerTurn(self.analysis, question, list(history), self.answerer, on_done=done, speed=self.speed)
