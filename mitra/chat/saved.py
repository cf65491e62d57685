"""A conversation's turns as the conversation store keeps them: what was asked, the
answer and its citations, and everything the member was shown with it (passages, the
checks' notes, a quoted passage sentence, per-part notes), so a reopened conversation
shows each turn as it was shown live."""

from __future__ import annotations

from typing import TYPE_CHECKING, Union

from mitra.answer.across import AcrossAnswer
from mitra.answer.answerer import Answer
from mitra.chat.events import (Candidates, Event, Locked, Notice, PastTurn, Recalled, SearchResults, SwitchOffer,
                               UserSaid)
from mitra.chat.labels import passage_label
from mitra.chat.turns import AcrossTurn, AnswererLike, AnswerTurn, CompareTurn, StreamedTurn
from mitra.core.types import Analysis, Hit
from mitra.store.conversations import Citation, SavedTurn

if TYPE_CHECKING:
    from mitra.retrieval.pipeline import Pipeline


# An across or compare turn is saved as one turn naming its analyses joined by ASIDE (ids
# never hold one: `ask --compare A,B` splits on it), so a reopened conversation shows it as
# it was, and ``resume`` locks again on the last analysis the member was locked on: such a
# turn never changed the lock.
ASIDE = ","


def _citations(answer: Answer | AcrossAnswer | None, with_analysis: bool) -> list[Citation]:
    return [Citation(n=n, label=passage_label(hit, with_analysis), chunk_id=hit.chunk.id)
            for n, hit in answer.cited_sources] if answer else []


def _shown(turn: StreamedTurn) -> dict:
    """Everything the member was shown with an ended turn: the checked answer (its notes,
    quote and parts come with it), else the passages retrieval found."""
    return {"answer": turn.answer.model_dump(mode="json") if turn.answer is not None else None,
            "passages": [] if turn.answer is not None else [h.model_dump(mode="json") for h in turn.passages]}


def saved_turn(turn: "AnswerTurn") -> SavedTurn:
    """An ended turn as the conversation store keeps it."""
    answer = turn.answer
    return SavedTurn(
        analysis_id=turn.analysis.id, analysis_title=turn.analysis.title, question=turn.question,
        standalone=turn.standalone or "", answer=answer.text if answer else "", error=turn.error,
        citations=_citations(answer, with_analysis=False), shown={"kind": "answer", **_shown(turn)},
    )


def saved_across(turn: "AcrossTurn") -> SavedTurn:
    """The across answer, its citations naming their analysis."""
    titles = turn.titles
    return SavedTurn(analysis_id=ASIDE.join(titles), analysis_title=" · ".join(titles.values()),
                     question=turn.question, answer=turn.answer.text if turn.answer else "", error=turn.error,
                     citations=_citations(turn.answer, with_analysis=True), shown={"kind": "across", **_shown(turn)})


def saved_compare(turn: "CompareTurn") -> SavedTurn:
    """Both answers, each under its analysis's id, their citations naming their analysis."""
    sides = turn.turns
    errors = [f"{side.analysis.id}: {side.error}" for side in sides if side.error]
    return SavedTurn(
        analysis_id=ASIDE.join(side.analysis.id for side in sides),
        analysis_title=" · ".join(side.analysis.title for side in sides), question=turn.question,
        answer="\n\n".join(f"**{side.analysis.id}**: {side.answer.text}" for side in sides if side.answer),
        error="; ".join(errors) or None,
        citations=[c for side in sides for c in _citations(side.answer, with_analysis=True)],
        shown={"kind": "compare", "sides": [{"analysis_id": side.analysis.id, "error": side.error, **_shown(side)}
                                            for side in sides]},
    )


def _restored(turn: StreamedTurn, shown: dict, model: type[Answer] | type[AcrossAnswer], error: str | None):
    """``turn`` ended as it was: what it showed, nothing left to stream or to save again."""
    turn.done, turn.error = True, error
    if shown.get("answer") is not None:
        turn.answer = model.model_validate(shown["answer"])
        turn.passages = list(turn.answer.sources)
        turn.quote = getattr(turn.answer, "quote", None)
    else:
        turn.passages = [Hit.model_validate(h) for h in shown.get("passages", [])]
    return turn


Restored = Union[AnswerTurn, AcrossTurn, CompareTurn]


def restore(saved: SavedTurn, pipeline: "Pipeline", answerer: AnswererLike) -> Restored | None:
    """A saved turn as the turn it was when it ended, to be drawn as it was drawn live; None
    when it was saved without what it showed, or names an analysis the member may no longer
    read (then only its saved text is shown, as before)."""
    shown = saved.shown
    ids = saved.analysis_id.split(ASIDE)
    analyses = [pipeline.kb.get_analysis(i) for i in ids]
    if shown is None or any(a is None for a in analyses):
        return None
    by_id: dict[str, Analysis] = {a.id: a for a in analyses}

    def answered(analysis_id: str, part: dict, error: str | None) -> AnswerTurn:
        turn = AnswerTurn(by_id[analysis_id], saved.question, [], answerer, standalone=saved.standalone or None)
        return _restored(turn, part, Answer, error)

    if shown["kind"] == "answer":
        return answered(saved.analysis_id, shown, saved.error)
    if shown["kind"] == "across":
        return _restored(AcrossTurn(saved.question, pipeline, answerer), shown, AcrossAnswer, saved.error)
    return CompareTurn(saved.question, [answered(side["analysis_id"], side, side["error"]) for side in shown["sides"]])


_TURNS = (AnswerTurn, AcrossTurn, CompareTurn, PastTurn)


def _lead_line(event: Event) -> dict | None:
    if isinstance(event, UserSaid):
        return {"kind": "said", "text": event.text}
    if isinstance(event, Locked):
        return {"kind": "locked", "id": event.analysis.id, "title": event.analysis.title}
    if isinstance(event, Notice):
        return {"kind": "notice", "text": event.text}
    if isinstance(event, (Candidates, SearchResults, SwitchOffer)):
        return {"kind": "line", "text": event.summary}
    return None  # the search prompt: the member's next words say what it asked


def lead_in(transcript: list[Event], turn: object) -> list[dict]:
    """What the conversation showed between the turn before ``turn`` and it (the member's
    words, the routing, the lock, a switch on offer), kept with the turn so a reopened
    conversation shows these lines too; [] when ``turn`` is no longer in ``transcript``."""
    at = next((i for i, e in enumerate(transcript) if e is turn), None)
    if at is None:
        return []
    start = max((i + 1 for i, e in enumerate(transcript[:at]) if isinstance(e, _TURNS)), default=0)
    return [line for e in transcript[start:at] if (line := _lead_line(e)) is not None]


def recalled(saved: SavedTurn) -> list[Event]:
    """The lines kept before a saved turn (``lead_in``), as events drawn as they were; the
    question alone for a turn saved before they were kept."""
    lines = (saved.shown or {}).get("lead")
    if not lines:
        return [UserSaid(saved.question)]
    kinds = {"said": lambda d: UserSaid(d["text"]), "notice": lambda d: Notice(d["text"]),
             "line": lambda d: Recalled(d["text"]),
             "locked": lambda d: Locked(Analysis(id=d["id"], title=d["title"]), [])}
    return [kinds[line["kind"]](line) for line in lines]
