"""``mitra audit``: the audit trail, filtered by user, analysis, event or time."""

from __future__ import annotations

import json
import re
from datetime import date, datetime, timedelta, timezone
from typing import Annotated, Optional

import typer

from mitra.cli.common import console, user_errors
from mitra.core.errors import MitraError

_AGO = re.compile(r"(\d+)\s*([mhdw])")
_UNITS = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}
_SHOWN_ELSEWHERE = {"ts", "user", "event", "analysis"}


def parse_time(value: str | None, option: str, end_of_day: bool = False) -> datetime | None:
    """An ISO date or datetime (UTC unless it says otherwise), or an age: 30m, 2h, 3d, 1w.
    A bare date under ``end_of_day`` (``--until``) means the whole of that day."""
    if value is None:
        return None
    text = value.strip()
    if match := _AGO.fullmatch(text):
        return datetime.now(timezone.utc) - timedelta(**{_UNITS[match[2]]: int(match[1])})
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        raise MitraError(f"{option} {value!r}: give an ISO date or time (2026-11-23, 2026-11-23T14:00) "
                         "or an age (30m, 2h, 3d, 1w)") from None
    if end_of_day and _is_date(text):
        when += timedelta(days=1, microseconds=-1)
    return when if when.tzinfo else when.replace(tzinfo=timezone.utc)


def _is_date(text: str) -> bool:
    try:
        date.fromisoformat(text)
        return True
    except ValueError:
        return False


def _detail(record: dict) -> str:
    """The question if there is one, else the event's other fields, short."""
    if record.get("question"):
        return str(record["question"])
    return " ".join(f"{k}={v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)}"
                    for k, v in record.items() if k not in _SHOWN_ELSEWHERE)


@user_errors
def audit(
    user: Annotated[Optional[str], typer.Option(help="Only this user's events.")] = None,
    analysis: Annotated[Optional[str], typer.Option(help="Only events about this analysis.")] = None,
    event: Annotated[Optional[str], typer.Option(help="Only this event (login, route, lock, question, answer, …).")] = None,
    since: Annotated[Optional[str], typer.Option(help="From this time: ISO date/time (UTC), or an age (2h, 3d).")] = None,
    until: Annotated[Optional[str], typer.Option(help="Up to this time: ISO date/time (UTC), or an age.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="JSON lines on stdout.")] = False,
) -> None:
    """The audit trail: who signed in, asked what, and was served which passages."""
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    from mitra.audit import EVENTS, open_audit
    from mitra.core.settings import get_settings

    if event is not None and event not in EVENTS:
        raise MitraError(f"--event {event!r}: one of {', '.join(EVENTS)}")
    window = parse_time(since, "--since"), parse_time(until, "--until", end_of_day=True)
    log = open_audit(get_settings())
    records = log.read(user=user, analysis=analysis, event=event, since=window[0], until=window[1])
    if as_json:
        for record in records:
            typer.echo(json.dumps(record, ensure_ascii=False))
    else:
        table = Table("time (UTC)", "user", "event", "analysis", "detail")
        for r in records:  # escape(): "[redacted]" and questions must not be read as rich markup
            table.add_row(escape(str(r.get("ts", ""))[:19].replace("T", " ")), escape(str(r.get("user"))),
                          escape(str(r.get("event"))), escape(str(r.get("analysis") or "")), escape(_detail(r)[:100]))
        Console().print(table)
    if log.skipped:
        console.print(f"[yellow]{log.skipped} unreadable lines skipped[/]")


def register(app: typer.Typer) -> None:
    app.command()(audit)
