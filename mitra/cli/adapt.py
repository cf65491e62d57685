"""``mitra adapt``: train a reranker on the knowledge base's own text."""

from __future__ import annotations

from enum import Enum
from typing import Annotated, Optional

import typer

from mitra.cli.common import JsonOption, console, pipeline, print_json, user_errors

EnableChoice = Enum("EnableChoice", {name: name for name in ("auto", "always", "never")}, type=str)


@user_errors
def adapt(
    minutes: Annotated[Optional[float], typer.Option(min=0.1, help="Time budget for the whole run (default 10).")] = None,
    llm_share: Annotated[Optional[float], typer.Option(
        min=0, max=1, help="Share of the budget for LLM-written questions (0: none) (default 0.5).")] = None,
    llm_questions: Annotated[Optional[int], typer.Option(min=0, help="At most this many LLM-written questions (default 400).")] = None,
    max_steps: Annotated[Optional[int], typer.Option(min=1, help="Stop training after this many steps.")] = None,
    enable: Annotated[Optional[EnableChoice], typer.Option(
        help="auto: switch on only where it beats fusion on held-out questions (default auto).")] = None,
    as_json: JsonOption = False,
) -> None:
    """Train a reranker on this knowledge base's own text (no labels, nothing downloaded).

    Questions come from the indexed passages (section headings, figure and table captions,
    passages' distinctive sentences as questions or key terms, and questions the configured
    LLM writes about passages when it writes enough in its share); the model is validated on
    held-out questions and used by default only where it beats the fused ranking there. A
    killed run resumes where it stopped."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from mitra.adapt.train import AdaptOptions, run_adaptation

    given = {"minutes": minutes, "llm_share": llm_share, "llm_questions": llm_questions, "max_steps": max_steps,
             "enable": enable.value if enable else None}
    options = AdaptOptions(**{name: value for name, value in given.items() if value is not None})
    p = pipeline(with_reranker=False, writer=True)
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=console) as bars:
        tasks: dict[str, int] = {}

        def report(stage: str, done: int, total: int | None) -> None:
            if stage not in tasks:
                tasks[stage] = bars.add_task(stage, total=total)
            bars.update(tasks[stage], completed=done, total=total)

        manifest = run_adaptation(p, options, progress=report)
    if as_json:
        print_json(manifest.model_dump())
    else:
        console.print(manifest.summary())
        console.print(f"{manifest.reason}; {manifest.steps} training steps, {manifest.seconds['total']:.0f} s")


def register(app: typer.Typer) -> None:
    app.command()(adapt)
