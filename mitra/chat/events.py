"""What a conversation shows, in order: each user action returns some of these."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union

from mitra.chat.turns import AcrossTurn, AnswerTurn, CompareTurn
from mitra.core.types import Analysis, RoutedAnalysis
from mitra.store.catalog import DocumentRecord
from mitra.store.conversations import SavedTurn


@dataclass
class UserSaid:
    text: str


@dataclass
class Candidates:
    """The analyses a question most likely refers to, best first, for the user to confirm."""

    question: str
    options: list[RoutedAnalysis]
    margin: float
    offer_across: bool = False  # no clear first: answering across the top analyses is offered

    @property
    def summary(self) -> str:
        """The one line it leaves once answered."""
        return "Proposed: " + " · ".join(f"{o.analysis.id} ({o.confidence})" for o in self.options)


@dataclass
class SearchPrompt:
    """After "none of these": the user names the analysis, or rephrases the question."""

    question: str


@dataclass
class SearchResults:
    query: str
    matches: list[Analysis]

    @property
    def summary(self) -> str:
        return f"Matching “{self.query}”: " + " · ".join(a.id for a in self.matches)


@dataclass
class Locked:
    analysis: Analysis
    documents: list[DocumentRecord]


@dataclass
class SwitchOffer:
    """A question asked in the lock that routes clearly to another analysis: it is not
    answered from the locked one until the user says where (``accept_switch`` or ``stay``)."""

    question: str
    current: Analysis
    suggested: RoutedAnalysis
    current_score: float  # the locked analysis's routing score for the question (0 if not routed)

    @property
    def text(self) -> str:
        return (f"This looks like a question about {self.suggested.analysis.id} — {self.suggested.analysis.title} — "
                f"rather than {self.current.id}. Switch?")

    @property
    def summary(self) -> str:
        return f"Proposed switching to {self.suggested.analysis.id}."


@dataclass
class Notice:
    text: str


@dataclass
class Recalled:
    """A line a reopened conversation shows as it was shown then: a routing, a match or a
    switch that was on offer (``Candidates.summary`` and the like)."""

    text: str


@dataclass
class PastTurn:
    """A turn of a reopened conversation, as it was saved: its question, answer and citations."""

    turn: SavedTurn


Event = Union[UserSaid, Candidates, SearchPrompt, SearchResults, Locked, SwitchOffer, Notice, AnswerTurn, AcrossTurn,
              CompareTurn, PastTurn, Recalled]
