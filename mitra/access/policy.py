"""Who reads which analysis: the principal a request runs as, and the access policy.

The policy file (YAML, ``settings.policy_path``)::

    admins: [mitra-admins]            # read everything; the Ingestion and Evaluation pages
    unlisted: deny                    # an analysis no rule names: deny (default) or members
    analyses:
      - match: "EXO-*"                # an analysis id or a glob pattern
        groups: [cms-exo]
      - match: SMP-24-002
        groups: [cms-smp, cms-ewk]

An analysis is readable by the union of the groups of every rule that matches it and
the groups attached to it at ingestion (``--groups``). Without a policy file every
signed-in member reads every analysis that ingestion did not restrict.

With ``MITRA_DATABASE_URL`` the policy in force is the one ``mitra policy import FILE``
stored in the shared database (every replica reads the same), not a file; embedded, it
stays the file an operator edits by hand.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Literal

import yaml
from pydantic import BaseModel, Field, ValidationError
from sqlalchemy import select

from mitra.core.errors import MitraError
from mitra.core.types import Analysis
from mitra.store.schema import access_policy
from mitra.store.state import database, now, upsert, uses_database

if TYPE_CHECKING:
    from mitra.core.settings import Settings

GROUPS_KEY = "groups"  # Analysis.metadata key holding the groups attached at ingestion


class PolicyError(MitraError):
    """The access policy file cannot be read: nothing is served until it is fixed."""


@dataclass(frozen=True)
class Principal:
    """Who a request runs as. ``admin`` reads every analysis; ``open`` marks the
    explicit no-login mode (MITRA_AUTH=none) and the CLI's operator."""

    user: str
    groups: frozenset[str] = field(default_factory=frozenset)
    admin: bool = False
    open: bool = False

    @classmethod
    def operator(cls, user: str = "operator") -> "Principal":
        return cls(user=user, admin=True, open=True)


class Rule(BaseModel):
    match: str
    groups: list[str] = Field(default_factory=list)


class AccessPolicy(BaseModel):
    admins: list[str] = Field(default_factory=list)
    unlisted: Literal["deny", "members"] = "deny"
    analyses: list[Rule] = Field(default_factory=list)

    @classmethod
    def load(cls, path: Path) -> "AccessPolicy":
        """The policy at ``path``; where there is none, every member reads every analysis."""
        if not path.is_file():
            return cls(unlisted="members")
        try:
            return cls.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")) or {})
        except (yaml.YAMLError, ValidationError, UnicodeDecodeError) as error:
            first = str(error).splitlines()[0] if str(error) else type(error).__name__
            raise PolicyError(f"access policy {path} is not valid: {first}") from error

    @classmethod
    def in_force(cls, settings: "Settings") -> "AccessPolicy":
        """The deployment's policy: the shared database's where MITRA_DATABASE_URL is set (every
        member reads everything until one is imported), else the policy file."""
        if not uses_database(settings):
            return cls.load(settings.policy_path)
        with database(settings, "members").begin() as db:
            body = db.scalar(select(access_policy.c.body).where(access_policy.c.id == 1))
        return cls(unlisted="members") if body is None else cls.model_validate_json(body)

    def save(self, settings: "Settings") -> str:
        """Puts this policy in force (``mitra policy import``); returns where it went."""
        if not uses_database(settings):
            path = settings.policy_path
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(yaml.safe_dump(self.model_dump(), sort_keys=False), encoding="utf-8")
            return str(path)
        engine = database(settings, "members")
        with engine.begin() as db:
            upsert(db, access_policy, {"id": 1, "body": self.model_dump_json(), "updated_at": now()}, ["id"])
        return f"the database {engine.url.render_as_string(hide_password=True)}"

    def principal(self, user: str, groups: frozenset[str] | set[str] | list[str] = (), admin: bool = False) -> Principal:
        """A signed-in user, an admin where one of their groups is an admin group or the
        users file makes them one (``admin``)."""
        groups = frozenset(groups)
        return Principal(user=user, groups=groups, admin=admin or bool(groups & set(self.admins)))

    def readers(self, analysis: Analysis) -> set[str] | None:
        """The groups that may read ``analysis``; None = every member."""
        rules = [rule for rule in self.analyses if fnmatchcase(analysis.id, rule.match)]
        groups = {g for rule in rules for g in rule.groups} | set(attached_groups(analysis))
        if not rules and not groups and self.unlisted == "members":
            return None
        return groups

    def can_read(self, principal: Principal, analysis: Analysis) -> bool:
        if principal.admin:
            return True
        readers = self.readers(analysis)
        return readers is None or bool(readers & principal.groups)


def attached_groups(analysis: Analysis) -> list[str]:
    """The groups ingestion attached to ``analysis``."""
    return [g.strip() for g in analysis.metadata.get(GROUPS_KEY, "").split(",") if g.strip()]


def attach_groups(analysis: Analysis, groups: Iterable[str] | None) -> Analysis:
    """``analysis`` restricted at ingestion to ``groups`` (added to any it already has)."""
    groups = list(groups or [])
    if not groups:
        return analysis
    merged = ",".join(dict.fromkeys([*attached_groups(analysis), *groups]))
    return analysis.model_copy(update={"metadata": {**analysis.metadata, GROUPS_KEY: merged}})
