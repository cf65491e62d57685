"""Local users for small deployments and the demo: a YAML file of argon2id hashes.

    users:
      alice: {hash: "$argon2id$v=19$...", groups: [cms-exo], admin: false}

An ``admin`` user reads every analysis and the Evaluation and Ingestion pages, like a
member of an admin group of the access policy (``mitra users add NAME --admin``).

Hashing is argon2-cffi's (``PasswordHasher`` defaults, RFC 9106), never our own; the
file is written atomically and readable by its owner only.
"""

from __future__ import annotations

import os
import re
import tempfile
from functools import cache
from pathlib import Path

import yaml
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from pydantic import BaseModel, Field, ValidationError

from mitra.core.errors import MitraError

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@-]{0,63}")
_hasher = PasswordHasher()


class UsersError(MitraError):
    """A users-file problem or a bad ``mitra users`` argument, said in one line."""


class LocalUser(BaseModel):
    hash: str
    groups: list[str] = Field(default_factory=list)
    admin: bool = False


class LocalUsers:
    def __init__(self, path: Path):
        self.path = path

    def load(self) -> dict[str, LocalUser]:
        if not self.path.is_file():
            return {}
        try:
            raw = yaml.safe_load(self.path.read_text(encoding="utf-8")) or {}
            return {name: LocalUser.model_validate(user) for name, user in (raw.get("users") or {}).items()}
        except (yaml.YAMLError, ValidationError, AttributeError, UnicodeDecodeError) as error:
            first = str(error).splitlines()[0] if str(error) else type(error).__name__
            raise UsersError(f"users file {self.path} is not valid: {first}") from error

    def _save(self, users: dict[str, LocalUser]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        text = yaml.safe_dump({"users": {n: u.model_dump() for n, u in sorted(users.items())}}, sort_keys=False)
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".users-")
        with os.fdopen(fd, "w", encoding="utf-8") as out:  # mkstemp's file is 0600 already
            out.write(text)
        os.replace(tmp, self.path)

    def add(self, name: str, password: str, groups: list[str], admin: bool = False) -> None:
        """Adds ``name``, or replaces their password, groups and admin right."""
        if not _NAME.fullmatch(name):
            raise UsersError(f"user name '{name}' must be 1-64 letters, digits or . _ @ - (starting with a letter or digit)")
        if len(password) < 8:
            raise UsersError("a password needs at least 8 characters")
        users = self.load()
        users[name] = LocalUser(hash=_hasher.hash(password), groups=sorted(set(groups)), admin=admin)
        self._save(users)

    def set_admin(self, name: str, admin: bool) -> None:
        """Grants or takes back ``name``'s admin right; their password and groups stay."""
        users = self.load()
        if name not in users:
            raise UsersError(f"no user '{name}' in {self.path} (add them with `mitra users add {name}`)")
        users[name] = users[name].model_copy(update={"admin": admin})
        self._save(users)

    def remove(self, name: str) -> None:
        users = self.load()
        if name not in users:
            raise UsersError(f"no user '{name}' in {self.path}")
        del users[name]
        self._save(users)

    def verify(self, name: str, password: str) -> LocalUser | None:
        """The user, if ``password`` is theirs; None for a wrong password or unknown name
        (the same answer, and an unknown name costs a hash too, so neither leaks)."""
        user = self.load().get(name)
        try:
            _hasher.verify(user.hash if user else _dummy_hash(), password)
        except (VerificationError, InvalidHashError):
            return None
        return user


@cache
def _dummy_hash() -> str:
    return _hasher.hash("no such user")
