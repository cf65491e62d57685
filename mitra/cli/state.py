"""``mitra state copy DATA_DIR``: a one-machine deployment's state moved into the shared
database (MITRA_DATABASE_URL), for the move to the cluster form."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from mitra.cli.common import JsonOption, console, print_json, user_errors

app = typer.Typer(name="state", help="The shared state (PostgreSQL with MITRA_DATABASE_URL).", no_args_is_help=True)


@app.command()
@user_errors
def copy(
    data_dir: Annotated[Path, typer.Argument(help="The one-machine data dir whose state to copy.")],
    as_json: JsonOption = False,
) -> None:
    """Copy a data dir's users, access policy, audit trail, feedback and conversations into
    the database MITRA_DATABASE_URL names. Rows the database holds already are left as
    they are, so running it again copies nothing twice. The catalog is not copied: it
    names collections of that data dir's embedded Chroma; re-index with the cluster's
    MITRA_CHROMA_HOST set."""
    from mitra.access.policy import AccessPolicy
    from mitra.access.users import LocalUsers, open_users
    from mitra.audit import AuditLog, open_audit
    from mitra.core.jsonl import InputError
    from mitra.core.settings import get_settings
    from mitra.store import schema
    from mitra.store.state import copy_rows, database

    settings = get_settings()
    if settings.database_url is None:
        raise InputError("state copy moves a data dir's state into PostgreSQL: set MITRA_DATABASE_URL")
    if not data_dir.is_dir():
        raise InputError(f"{data_dir}: no such data dir")
    source = settings.model_copy(update={"data_dir": data_dir, "database_url": None, "users_file": None,
                                         "access_policy": None, "audit_file": None})
    copied: dict[str, dict[str, int]] = {}
    if source.users_path.is_file():
        names = open_users(settings).import_from(LocalUsers(source.users_path))
        copied["users"] = {"copied": len(names), "present": 0}
    if source.policy_path.is_file():
        AccessPolicy.load(source.policy_path).save(settings)
        copied["policy"] = {"copied": 1, "present": 0}
    copied["audit"] = dict(zip(("copied", "present"), open_audit(settings).copy_from(AuditLog(source))))
    tables = {"feedback": (schema.feedback, ["created_at", "analysis_id", "question", "answer", "rating"]),
              "conversations": (schema.conversations, ["id"]), "turns": (schema.turns, ["conversation_id", "seq"])}
    for name, (table, identity) in tables.items():
        branch = "feedback" if name == "feedback" else "conversations"
        if source.feedback_path.is_file() if branch == "feedback" else source.conversations_path.is_file():
            counts = copy_rows(database(source, branch), database(settings, branch), table, identity)
            copied[name] = dict(zip(("copied", "present"), counts))
    if as_json:
        print_json(copied)
        return
    for name, counts in copied.items():
        console.print(f"{name}: {counts['copied']} copied, {counts['present']} already there")
    console.print("not copied: the catalog (its passages live in that data dir's embedded Chroma): re-index "
                  "with MITRA_CHROMA_HOST set")


def register(root_app: typer.Typer) -> None:
    root_app.add_typer(app, name="state")
