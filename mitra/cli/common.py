"""What every ``mitra`` command shares: the error boundary, JSON output, the console
(stderr: progress and messages never mix with ``--json`` on stdout) and common options."""

from __future__ import annotations

import functools
import json
import os
import sys
from enum import Enum
from typing import Annotated, Callable

import typer
from rich.console import Console
from typer.exceptions import TyperException

from mitra.core.errors import MitraError
from mitra.core.settings import SYSTEMS

SystemChoice = Enum("SystemChoice", {name: name for name in SYSTEMS}, type=str)

console = Console(stderr=True)
JsonOption = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON on stdout.")]


def debug_from_env() -> bool:
    return os.environ.get("MITRA_DEBUG", "") not in ("", "0")


debug = {"on": debug_from_env()}  # set per invocation by the app's --debug callback


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
            console.print(
                f"[bold red]internal error:[/] {type(error).__name__}: {error} "
                "(run again with --debug or MITRA_DEBUG=1 for the traceback)",
                highlight=False, soft_wrap=True,
            )
            raise typer.Exit(1) from None

    return wrapper


def print_json(data) -> None:
    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n")


def pipeline(with_reranker: bool = True):
    from mitra.retrieval.pipeline import build_pipeline

    with console.status("loading models and stores…"):
        return build_pipeline(with_reranker=with_reranker)


AllowLowCoverage = Annotated[
    bool,
    typer.Option("--allow-low-coverage", help="Index documents even when their chunks lose text (see min_coverage)."),
]
