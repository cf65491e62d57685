"""Members' API tokens: what an agent presents to ``mitra mcp --http`` instead of a
password (``mitra users token issue|revoke|list``).

A token is ``mitra_<id>_<secret>``: ``id`` is public (listings, revocation), the secret
32 random bytes. Only the SHA-256 of the whole token is kept, in ``tokens.sqlite`` or the
shared database's ``api_tokens`` table: a slow password hash buys nothing against 256
random bits, and a lookup by hash costs one indexed read per request. A token reads as
its member, with their groups as the users store has them; a revoked token is refused
from the next request on.
"""

from __future__ import annotations

import hashlib
import secrets

from pydantic import BaseModel
from sqlalchemy import select, update

from mitra.access.users import Users, UsersError
from mitra.store import schema
from mitra.store.state import SqlStore, now

PREFIX = "mitra_"


class TokenRecord(BaseModel):
    id: str
    user: str
    label: str
    created_at: str
    revoked_at: str | None = None


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class ApiTokens(SqlStore):
    branch = "tokens"

    def issue(self, users: Users, user: str, label: str = "") -> tuple[TokenRecord, str]:
        """A new token for ``user``, one of ``users``: its record and the token, shown once."""
        if user not in users.load():
            raise UsersError(f"no user '{user}': a token reads as a local user (add them with `mitra users add {user}`)")
        token_id = secrets.token_hex(4)
        token = f"{PREFIX}{token_id}_{secrets.token_urlsafe(32)}"
        record = TokenRecord(id=token_id, user=user, label=label, created_at=now())
        with self.engine.begin() as db:
            db.execute(schema.api_tokens.insert().values(**record.model_dump(), hash=_digest(token)))
        return record, token

    def revoke(self, token_id: str) -> TokenRecord:
        with self.engine.begin() as db:
            done = db.execute(update(schema.api_tokens).where(schema.api_tokens.c.id == token_id,
                                                              schema.api_tokens.c.revoked_at.is_(None))
                              .values(revoked_at=now()))
        if done.rowcount == 0:
            raise UsersError(f"no live token '{token_id}' (see `mitra users token list`)")
        return next(r for r in self.list() if r.id == token_id)

    def list(self, user: str | None = None) -> list[TokenRecord]:
        query = select(*(schema.api_tokens.c[f] for f in TokenRecord.model_fields)).order_by(schema.api_tokens.c.created_at)
        if user is not None:
            query = query.where(schema.api_tokens.c.user == user)
        with self.engine.connect() as db:
            return [TokenRecord(**row) for row in db.execute(query).mappings()]

    def verify(self, token: str) -> TokenRecord | None:
        """The live token's record; None for a revoked, unknown or malformed one."""
        if not token.startswith(PREFIX) or len(token) > 200:
            return None
        query = select(*(schema.api_tokens.c[f] for f in TokenRecord.model_fields)).where(
            schema.api_tokens.c.hash == _digest(token), schema.api_tokens.c.revoked_at.is_(None))
        with self.engine.connect() as db:
            row = db.execute(query).mappings().first()
        return TokenRecord(**row) if row else None
