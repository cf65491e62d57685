"""What every ``mitra`` command shares: the error boundary, JSON output, the console
(stderr: progress and messages never mix with ``--json`` on stdout) and common options."""

from __future__ import annotations

import functools
import json
import os
import sys
from enum import Enum
from typing import Annotated, Callable, Optional

import typer
from rich.console import Console
from typer.exceptions import TyperException

from mitra.core.errors import MitraError, unavailable_service
from mitra.core.settings import SYSTEMS

SystemChoice = Enum("SystemChoice", {name: name for name in SYSTEMS}, type=str)

console = Console(stderr=True)
JsonOption = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON on stdout.")]


def debug_from_env() -> bool:
    return os.environ.get("MITRA_DEBUG", "") not in ("", "0")


debug = {"on": debug_from_env()}  # set per invocation by the app's --debug callback
acting_as: dict[str, str | None] = {"user": None}  # set per invocation by the app's --as option


def user_errors(command: Callable) -> Callable:
    """The CLI boundary: a MitraError (bad input, a failure the user can fix) is one red
    line and exit 2; anything else is one line and exit 1, its traceback shown only with
    ``--debug`` or ``MITRA_DEBUG=1``."""

    @functools.wraps(command)
    def wrapper(*args, **kwargs):
        try:
            return command(*args, **kwargs)
        except MitraError as error:
            if debug["on"]:
                raise
            console.print(f"[bold red]error:[/] {error}", highlight=False, soft_wrap=True)
            raise typer.Exit(2) from None
        except (typer.Exit, typer.Abort, TyperException, KeyboardInterrupt):
            raise  # exit codes and usage errors: typer reports them itself
        except Exception as error:
            if debug["on"]:
                raise
            if (down := unavailable_service(error)) is not None:
                console.print(f"[bold red]error:[/] {down}", highlight=False, soft_wrap=True)
                raise typer.Exit(2) from None
            console.print(
                f"[bold red]internal error:[/] {type(error).__name__}: {error} "
                "(run again with --debug or MITRA_DEBUG=1 for the traceback)",
                highlight=False, soft_wrap=True,
            )
            raise typer.Exit(1) from None

    return wrapper


def print_json(data) -> None:
    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n")


def principal():
    """Who this command reads as: the local user named by ``--as`` (or settings.principal),
    with their groups, under the access policy; else the operator, who reads everything
    (whoever runs the CLI on the server can read its data dir anyway)."""
    from mitra.access.policy import Principal
    from mitra.access.users import member
    from mitra.core.settings import get_settings

    settings = get_settings()
    name = acting_as["user"] or settings.principal
    return Principal.operator() if name is None else member(settings, name)


def knowledge():
    """The knowledge base as ``principal()`` reads it, with no model loaded."""
    from mitra.access.scoped import scope
    from mitra.core.settings import get_settings
    from mitra.store.knowledge_base import KnowledgeBase

    kb, who = KnowledgeBase(get_settings()), principal()
    return kb if who.open else scope(kb, who)


def pipeline(with_reranker: bool = True, writer: bool = False):
    """The models and stores, read as ``principal()``; a ``writer`` (indexing, adapt)
    needs the whole store, so only the operator or an admin may run one."""
    from mitra.retrieval.pipeline import build_pipeline

    who = principal()
    if writer and not who.admin:
        raise MitraError(f"{who.user} is not an admin: only admins index or adapt")
    with console.status("loading models and stores…"):
        return build_pipeline(with_reranker=with_reranker, principal=None if who.open or writer else who)


AllowLowCoverage = Annotated[
    bool,
    typer.Option("--allow-low-coverage", help="Index documents even when they yield no chunks, or lose text under "
                 "--refuse-low-coverage (see min_coverage)."),
]
RefuseLowCoverage = Annotated[
    bool,
    typer.Option("--refuse-low-coverage", help="Refuse a document below min_coverage instead of indexing it with what "
                 "it has and flagging it (the low_coverage setting)."),
]


def split_groups(value: str | None) -> list[str]:
    return [g.strip() for g in (value or "").split(",") if g.strip()]


Groups = Annotated[
    Optional[str],
    typer.Option("--groups", help="Comma-separated groups that may read these analyses (beside the access policy)."),
]
