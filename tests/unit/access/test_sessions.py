"""Session tokens (issue 47): a refresh signs the member in again until the token expires,
is revoked at sign-out, or was signed with another key."""

import time

from itsdangerous import URLSafeTimedSerializer

from mitra.access.sessions import Sessions
from mitra.core.settings import Settings


def test_a_token_signs_in_until_revoked_or_expired(tmp_path, monkeypatch):
    settings = Settings(_env_file=None, data_dir=tmp_path, session_hours=1)
    sessions = Sessions(settings)
    token = sessions.issue("bob")
    assert Sessions(settings).user(token) == "bob"  # another process, the same key file
    assert (tmp_path / "session.key").stat().st_mode & 0o077 == 0
    assert sessions.user(token[:-2] + "xx") is None and sessions.user(None) is None
    assert sessions.user(URLSafeTimedSerializer("another key", salt="mitra-session").dumps(
        {"user": "bob", "id": "x"})) is None
    other = sessions.issue("bob")
    sessions.revoke(token)
    assert sessions.user(token) is None and sessions.user(other) == "bob"  # only the one signed out

    later = time.time() + 3601
    monkeypatch.setattr(time, "time", lambda: later)
    assert sessions.user(other) is None  # expired


def test_no_session_is_kept_with_session_hours_0(tmp_path):
    sessions = Sessions(Settings(_env_file=None, data_dir=tmp_path, session_hours=0))
    assert not sessions.enabled and sessions.user(sessions.issue("bob")) is None
