"""The ``mitra`` command line: the app and its registry.

Each topic keeps its commands in its own module with a ``register(app)`` function,
listed in ``COMMAND_MODULES``; the offline pipeline's commands (``mitra ingest …``,
``mitra index-jsonl``) come from ``ingest.cli`` the same way, so ``mitra`` never imports
``ingest`` otherwise. Heavy imports stay inside the commands: ``mitra --help`` is instant.
"""

from __future__ import annotations

import functools
import importlib
from typing import Annotated, Optional

import typer
from typer.main import get_command_name

from mitra.cli import common

app = typer.Typer(
    name="mitra",
    help="MITRA: private question answering over a collaboration's analysis documents.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
COMMAND_MODULES: list[str] = [
    "mitra.cli.search", "mitra.cli.adapt", "mitra.cli.answer", "mitra.cli.chat", "mitra.cli.config", "mitra.cli.users",
    "mitra.cli.policy", "mitra.cli.audit", "mitra.cli.state", "mitra.cli.brief", "mitra.cli.mcp",
    "ingest.cli",
]


@app.callback()
def _options(
    debug: Annotated[bool, typer.Option("--debug", help="Show the traceback of an unexpected error.")] = False,
    as_user: Annotated[
        Optional[str], typer.Option("--as", help="Read as this local user: only the analyses they may read.")
    ] = None,
) -> None:
    common.debug["on"] = debug or common.debug_from_env()  # per invocation
    common.acting_as["user"] = as_user


def _audited(name: str, command):
    """``command``, recording in the audit trail what a member (``--as NAME``, or
    settings.principal) runs, with its arguments, before it reads anything."""

    @functools.wraps(command)
    def wrapper(*args, **kwargs):
        common.user_errors(_record)(name, kwargs)
        return command(*args, **kwargs)

    return wrapper


def _record(name: str, arguments: dict) -> None:
    from mitra.audit import open_audit
    from mitra.core.settings import get_settings

    settings = get_settings()
    if (common.acting_as["user"] or settings.principal) is None:
        return  # the operator: whoever runs the CLI on the server reads the data dir anyway
    who = common.principal()  # an unknown --as NAME stops here, with its one-line error
    fields = {k: getattr(v, "value", v) for k, v in arguments.items() if v is not None}
    open_audit(settings).write("command", who.user, command=name, **fields)


@functools.cache
def register_commands() -> typer.Typer:
    """The app with every topic's commands added (once per process); its own commands
    (the reads: ask, search, route, chat, …) are audited when run as a member."""
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(app)
    for info in app.registered_commands:
        info.callback = _audited(info.name or get_command_name(info.callback.__name__), info.callback)
    return app


def main() -> None:
    register_commands()()
