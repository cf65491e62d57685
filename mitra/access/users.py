"""Local users for small deployments and the demo: argon2id hashes, in a YAML file (the
embedded form) or the ``users`` table of the shared PostgreSQL (``MITRA_DATABASE_URL``)::

    users:
      alice: {hash: "$argon2id$v=19$...", groups: [cms-exo], admin: false}

An ``admin`` user reads every analysis and the Evaluation and Ingestion pages, like a
member of an admin group of the access policy (``mitra users add NAME --admin``).

Hashing is argon2-cffi's (``PasswordHasher`` defaults, RFC 9106), never our own; the
file is written atomically and readable by its owner only.

The file stays the embedded form because it is what an operator of one machine edits,
backs up and reads: a second copy in SQLite would be one more place to keep in step.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from abc import ABC, abstractmethod
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

import yaml
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from pydantic import BaseModel, Field, ValidationError
from sqlalchemy import Engine, delete, select

from mitra.access.policy import AccessPolicy, Principal
from mitra.core.errors import MitraError
from mitra.store import schema
from mitra.store.state import database, upsert, uses_database

if TYPE_CHECKING:
    from mitra.core.settings import Settings

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@-]{0,63}")
_hasher = PasswordHasher()


class UsersError(MitraError):
    """A users-file problem or a bad ``mitra users`` argument, said in one line."""


class LocalUser(BaseModel):
    hash: str
    groups: list[str] = Field(default_factory=list)
    admin: bool = False


class Users(ABC):
    """The users, wherever they are kept: ``add``, ``set_admin``, ``remove`` and ``verify``
    are the same for every back end; each stores one user at a time."""

    where: str  # named in messages: the file, or the database

    @abstractmethod
    def load(self) -> dict[str, LocalUser]: ...

    def configured(self) -> bool:
        """Whether local sign-in is set up here (``auth: auto`` then uses it)."""
        return bool(self.load())

    @abstractmethod
    def _put(self, name: str, user: LocalUser) -> None: ...

    @abstractmethod
    def _delete(self, name: str) -> None: ...

    def add(self, name: str, password: str, groups: list[str], admin: bool = False) -> None:
        """Adds ``name``, or replaces their password, groups and admin right."""
        if not _NAME.fullmatch(name):
            raise UsersError(f"user name '{name}' must be 1-64 letters, digits or . _ @ - (starting with a letter or digit)")
        if len(password) < 8:
            raise UsersError("a password needs at least 8 characters")
        self._put(name, LocalUser(hash=_hasher.hash(password), groups=sorted(set(groups)), admin=admin))

    def set_admin(self, name: str, admin: bool) -> None:
        """Grants or takes back ``name``'s admin right; their password and groups stay."""
        users = self.load()
        if name not in users:
            raise UsersError(f"no user '{name}' in {self.where} (add them with `mitra users add {name}`)")
        self._put(name, users[name].model_copy(update={"admin": admin}))

    def import_from(self, other: "Users") -> list[str]:
        """Copies every user of ``other`` here as they are (password hashes included), replacing
        any of the same name: moving a deployment's users file into the shared database."""
        imported = other.load()
        for name, user in imported.items():
            self._put(name, user)
        return sorted(imported)

    def remove(self, name: str) -> None:
        if name not in self.load():
            raise UsersError(f"no user '{name}' in {self.where}")
        self._delete(name)

    def verify(self, name: str, password: str) -> LocalUser | None:
        """The user, if ``password`` is theirs; None for a wrong password or unknown name
        (the same answer, and an unknown name costs a hash too, so neither leaks)."""
        user = self.load().get(name)
        try:
            _hasher.verify(user.hash if user else _dummy_hash(), password)
        except (VerificationError, InvalidHashError):
            return None
        return user


class LocalUsers(Users):
    """The YAML users file."""

    def __init__(self, path: Path):
        self.path = path
        self.where = str(path)

    def configured(self) -> bool:
        return self.path.is_file()

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

    def _put(self, name: str, user: LocalUser) -> None:
        self._save({**self.load(), name: user})

    def _delete(self, name: str) -> None:
        self._save({n: u for n, u in self.load().items() if n != name})


class DatabaseUsers(Users):
    """The ``users`` table of the shared database."""

    def __init__(self, engine: Engine):
        self.engine = engine
        self.where = f"the database {engine.url.render_as_string(hide_password=True)}"

    def load(self) -> dict[str, LocalUser]:
        with self.engine.begin() as db:
            return {r.name: LocalUser(hash=r.hash, groups=json.loads(r.groups), admin=r.admin)
                    for r in db.execute(select(schema.users))}

    def _put(self, name: str, user: LocalUser) -> None:
        with self.engine.begin() as db:
            upsert(db, schema.users, {"name": name, "hash": user.hash, "groups": json.dumps(user.groups), "admin": user.admin},
                   ["name"])

    def _delete(self, name: str) -> None:
        with self.engine.begin() as db:
            db.execute(delete(schema.users).where(schema.users.c.name == name))


def open_users(settings: "Settings") -> Users:
    """The users of this deployment: the shared database's where MITRA_DATABASE_URL is set,
    else the users file."""
    if uses_database(settings):
        return DatabaseUsers(database(settings, "members"))
    return LocalUsers(settings.users_path)


def member(settings: "Settings", name: str) -> Principal:
    """The local user ``name`` as the principal they read as, under the access policy in force."""
    users = open_users(settings)
    user = users.load().get(name)
    if user is None:
        raise UsersError(f"no such user '{name}' in {users.where} (see `mitra users list`)")
    return AccessPolicy.in_force(settings).principal(name, user.groups, user.admin)


@cache
def _dummy_hash() -> str:
    return _hasher.hash("no such user")
