"""Sign-in sessions that survive a browser refresh, for a bounded time: a member signed in
with a local password gets a cookie holding a signed, expiring token (itsdangerous: HMAC
with a server key), which signs them in again when the page loads anew, until it expires
(``session_hours``) or they sign out, which revokes it here and not only in that browser.

The key is ``session_secret``, else ``<data_dir>/session.key`` (made on first use, 0600).
Revoked tokens are listed in ``<data_dir>/sessions-revoked`` until they would expire anyway.
"""

from __future__ import annotations

import os
import secrets
import time
from pathlib import Path

from itsdangerous import BadSignature, URLSafeTimedSerializer

from mitra.core.settings import Settings

COOKIE = "mitra_session"


class Sessions:
    def __init__(self, settings: Settings):
        self.max_age = int(settings.session_hours * 3600)
        secret = settings.session_secret.get_secret_value() if settings.session_secret else _key(settings.data_dir)
        self._signer = URLSafeTimedSerializer(secret, salt="mitra-session")
        self._revoked = settings.data_dir / "sessions-revoked"

    @property
    def enabled(self) -> bool:
        return self.max_age > 0

    def issue(self, user: str) -> str:
        """A token for ``user``, valid for ``session_hours``."""
        return self._signer.dumps({"user": user, "id": secrets.token_urlsafe(12)})

    def user(self, token: str | None) -> str | None:
        """Whom ``token`` signs in: None when it is missing, forged, expired or revoked."""
        if not token or not self.enabled:
            return None
        try:
            claims = self._signer.loads(token, max_age=self.max_age)
        except BadSignature:  # expired tokens too (SignatureExpired is one)
            return None
        return None if claims["id"] in self._revoked_ids() else claims["user"]

    def revoke(self, token: str | None) -> None:
        """Signs ``token`` out everywhere it was copied to; expired entries are dropped."""
        try:
            claims = self._signer.loads(token or "", max_age=self.max_age)
        except BadSignature:
            return  # nothing to revoke: it signs no one in
        now = time.time()
        kept = [line for line in self._lines() if float(line.split()[1]) > now]
        self._revoked.parent.mkdir(parents=True, exist_ok=True)
        self._revoked.write_text("".join(f"{line}\n" for line in [*kept, f"{claims['id']} {now + self.max_age}"]))

    def _lines(self) -> list[str]:
        return self._revoked.read_text().splitlines() if self._revoked.is_file() else []

    def _revoked_ids(self) -> set[str]:
        return {line.split()[0] for line in self._lines()}


def _key(data_dir: Path) -> str:
    """The data dir's session key, made on first use, readable by its owner only."""
    path = data_dir / "session.key"
    if not path.is_file():
        data_dir.mkdir(parents=True, exist_ok=True)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:  # another process made it first
            return path.read_text().strip()
        with os.fdopen(fd, "w") as out:
            out.write(secrets.token_hex(32))
    return path.read_text().strip()
