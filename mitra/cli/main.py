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

from mitra.cli import common

app = typer.Typer(
    name="mitra",
    help="MITRA: private question answering over a collaboration's analysis documents.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
COMMAND_MODULES: list[str] = [
    "mitra.cli.search", "mitra.cli.adapt", "mitra.cli.answer", "mitra.cli.chat", "mitra.cli.config", "mitra.cli.users", "mitra.cli.audit",
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


@functools.cache
def register_commands() -> typer.Typer:
    """The app with every topic's commands added (once per process)."""
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(app)
    return app


def main() -> None:
    register_commands()()
