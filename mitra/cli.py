"""The ``mitra`` command line.

Core retrieval commands live here; other stages add theirs through a
``register(app)`` function in their own module (listed in ``_COMMAND_MODULES``),
so each stage keeps its CLI next to its code. Heavy imports stay inside the
commands so that ``mitra --help`` is instant.
"""

from __future__ import annotations

import importlib

import typer

app = typer.Typer(
    name="mitra",
    help="MITRA: private question answering over a collaboration's analysis documents.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)

_COMMAND_MODULES: list[str] = []


def main() -> None:
    for name in _COMMAND_MODULES:
        importlib.import_module(name).register(app)
    app()
