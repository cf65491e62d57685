"""Members' API tokens (``mitra.access.tokens``) on the embedded SQLite file and on a real
PostgreSQL: issued for a known member only, kept as a hash, found by the token and refused
once revoked."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from mitra.access.tokens import ApiTokens
from mitra.access.users import UsersError, open_users
from mitra.core.settings import Settings
from mitra.store import schema


@pytest.fixture
def state(tmp_path, database_url) -> Settings:
    settings = Settings(_env_file=None, data_dir=tmp_path / "kb", database_url=database_url)
    open_users(settings).add("alice", "correct horse battery", ["exo"])
    return settings


def test_a_token_is_kept_hashed_found_by_itself_and_refused_once_revoked(state):
    tokens, users = ApiTokens.open(state), open_users(state)
    record, token = tokens.issue(users, "alice", "laptop")
    other, _ = tokens.issue(users, "alice")
    assert token.startswith(f"mitra_{record.id}_") and len(token) > 40
    with tokens.engine.connect() as db:
        kept = db.execute(select(schema.api_tokens)).mappings().all()
    secret = token.split("_", 2)[2]
    assert len(kept) == 2 and not any(secret in str(dict(row)) for row in kept)
    assert tokens.verify(token) == record and tokens.verify(token + "x") is None and tokens.verify("eyJ.x.y") is None
    assert tokens.revoke(record.id).revoked_at is not None
    assert tokens.verify(token) is None
    assert {(t.id, t.revoked_at is None) for t in tokens.list("alice")} == {(record.id, False), (other.id, True)}
    with pytest.raises(UsersError, match="no live token"):
        tokens.revoke(record.id)
    with pytest.raises(UsersError, match="no user 'mallory'"):
        tokens.issue(users, "mallory")
