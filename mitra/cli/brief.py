"""``mitra brief ANALYSIS``: an analysis at a glance, as kept with its generation (``mitra.brief``)."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console

from mitra.cli.common import JsonOption, knowledge, print_json, user_errors
from mitra.core.errors import MitraError


def _where(place) -> str:
    if place is None:
        return ""
    at = f", {place.unit} {place.page}" if place.page is not None else ""
    return f"  [{place.doc_id} v{place.version}{at}]"


@user_errors
def brief(
    analysis: Annotated[str, typer.Argument(help="The analysis id (see `mitra stats`).")],
    as_json: JsonOption = False,
) -> None:
    """What an analysis is, what it found (each value cited), how its documents are organised,
    its vocabulary and five questions to start with."""
    from mitra.brief.build import read_brief

    kept = read_brief(knowledge(), analysis)
    if kept is None:
        raise MitraError(f"no brief of '{analysis}' yet: it is built when the analysis is indexed (re-run the ingestion)")
    if as_json:
        print_json(kept.model_dump())
        return
    out = Console(highlight=False, soft_wrap=True, markup=False)
    out.print(f"{kept.analysis_id} — {kept.title}", style="bold")
    for d in kept.documents:
        out.print(f"  {d.kind}: {d.title} (v{d.version}{', of ' + ', '.join(d.versions) if len(d.versions) > 1 else ''})")
    if kept.abstract:
        out.print(f"\n{kept.abstract}")
    out.print("\nWhat it found", style="bold")
    for v in kept.values:
        changed = f" (changed: was {v.changed_from})" if v.changed_from else ""
        label = f" [{v.label}]" if v.label else ""
        out.print(f"  {v.written}{label}{changed}: “{v.sentence}”{_where(v.place)}")
    out.print("\nHow it is organised", style="bold")
    for tree in kept.trees:
        out.print(f"  {tree.title} (v{tree.version})")
        for s in tree.sections:
            out.print(f"  {'  ' * len(s.path)}{s.path[-1]}: {s.line}{_where(s.place)}")
    out.print("\nIts vocabulary", style="bold")
    for t in kept.vocabulary:
        out.print(f"  {t.short} — {t.long}{_where(t.place)}")
    out.print("\nWhere to start", style="bold")
    for q in kept.questions:
        out.print(f"  mitra ask --analysis {kept.analysis_id} \"{q}\"")


def register(app: typer.Typer) -> None:
    app.command()(brief)
