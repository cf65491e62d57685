"""Members' conversations, kept as they happen: each answered turn (the question, the
analysis it was locked on, the answer and its citations) is one row, so a conversation
survives an app restart and can be reopened, by its owner only.

Embedded in ``<data_dir>/conversations.sqlite``; with ``MITRA_DATABASE_URL`` in the
shared PostgreSQL, so a member's history is there on every replica.
"""

from __future__ import annotations

import json
import uuid

from pydantic import BaseModel, Field
from sqlalchemy import func, insert, select, update

from mitra.core.errors import MitraError
from mitra.store.schema import conversations, turns
from mitra.store.state import SqlStore, now


class UnknownConversation(MitraError):
    """No such conversation of this member's (someone else's is the same answer: nothing leaks)."""


class Citation(BaseModel):
    n: int = Field(description="the passage's number in the answer, [n]")
    label: str = Field(description="where it is from: analysis, document version, section, page")
    chunk_id: str


class SavedTurn(BaseModel):
    """One answered (or failed) question of a conversation."""

    analysis_id: str
    analysis_title: str = ""
    question: str
    standalone: str = Field("", description="the condensed query retrieval saw; empty = the question")
    answer: str = ""
    citations: list[Citation] = Field(default_factory=list)
    error: str | None = None
    created_at: str = ""
    shown: dict | None = Field(None, description="what the member was shown (the checked answer with its passages, "
                                                 "notes and quote), as the chat layer writes it; None before it was kept")


class ConversationSummary(BaseModel):
    id: str
    title: str
    created_at: str
    updated_at: str


class ConversationStore(SqlStore):
    """The conversations (see ``SqlStore``)."""

    branch = "conversations"

    def start(self, owner: str, title: str) -> str:
        """A new, empty conversation of ``owner``'s; its id."""
        conversation_id, when = uuid.uuid4().hex, now()
        with self.engine.begin() as db:
            db.execute(insert(conversations).values(id=conversation_id, owner=owner, title=title.strip()[:200],
                                                    created_at=when, updated_at=when))
        return conversation_id

    def add_turn(self, conversation_id: str, owner: str, turn: SavedTurn) -> None:
        """Appends ``turn`` to ``owner``'s conversation."""
        when = now()
        with self.engine.begin() as db:
            self._check(db, conversation_id, owner)
            seq = db.scalar(select(func.coalesce(func.max(turns.c.seq), 0) + 1)
                            .where(turns.c.conversation_id == conversation_id))
            db.execute(insert(turns).values(
                conversation_id=conversation_id, seq=seq, created_at=when, analysis_id=turn.analysis_id,
                analysis_title=turn.analysis_title, question=turn.question, standalone=turn.standalone,
                answer=turn.answer, citations=json.dumps([c.model_dump() for c in turn.citations]), error=turn.error,
                shown=json.dumps(turn.shown) if turn.shown is not None else None,
            ))
            db.execute(update(conversations).where(conversations.c.id == conversation_id).values(updated_at=when))

    def list(self, owner: str, limit: int = 50) -> list[ConversationSummary]:
        """``owner``'s conversations, the most recently continued first."""
        with self.engine.begin() as db:
            rows = db.execute(select(conversations).where(conversations.c.owner == owner)
                              .order_by(conversations.c.updated_at.desc(), conversations.c.created_at.desc())
                              .limit(limit)).mappings().all()
        return [ConversationSummary(**{k: r[k] for k in ConversationSummary.model_fields}) for r in rows]

    def turns(self, conversation_id: str, owner: str) -> list[SavedTurn]:
        """The turns of ``owner``'s conversation, in order."""
        with self.engine.begin() as db:
            self._check(db, conversation_id, owner)
            rows = db.execute(select(turns).where(turns.c.conversation_id == conversation_id)
                              .order_by(turns.c.seq)).mappings().all()
        return [SavedTurn(**{**{k: r[k] for k in SavedTurn.model_fields if k not in ("citations", "shown")},
                             "citations": json.loads(r["citations"]),
                             "shown": json.loads(r["shown"]) if r["shown"] else None}) for r in rows]

    @staticmethod
    def _check(db, conversation_id: str, owner: str) -> None:
        found = db.scalar(select(conversations.c.owner).where(conversations.c.id == conversation_id))
        if found != owner:
            raise UnknownConversation(f"no conversation {conversation_id} of {owner}'s")
