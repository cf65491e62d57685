"""``mitra settings``: every setting by section, with its value here and what it does."""

from __future__ import annotations

import typer
from rich.console import Console
from rich.table import Table

from mitra.cli.common import JsonOption, print_json, user_errors


@user_errors
def settings_command(as_json: JsonOption = False) -> None:
    """Every setting (MITRA_<NAME>), by section: its value here, its default and what it does."""
    from mitra.core.settings import Settings, get_settings

    current = get_settings()
    sections = {
        section: [{"name": name, "env": f"MITRA_{name.upper()}", "value": getattr(current, name), "default": default,
                   "description": description} for name, default, description in fields]
        for section, fields in Settings.described().items()
    }
    if as_json:
        print_json(sections)
        return
    out = Console()
    for section, fields in sections.items():
        table = Table("setting", "value", "what it does", title=section, title_justify="left")
        for f in fields:
            table.add_row(f["env"], str(f["value"]), f["description"])
        out.print(table)


def register(app: typer.Typer) -> None:
    app.command("settings")(settings_command)
