"""``mitra ingest ...``: the offline ingestion commands (crawl, cookie import, ...).

Other ingestion stages add their commands to ``app``. Exit codes of ``crawl``: 0 all
files downloaded or unchanged, 1 some files or pages failed (see the summary), 2 the
crawl could not start (login rejected, no credentials, bad profile).
"""

from __future__ import annotations

from pathlib import Path

import typer

from mitra.cli import JsonOption, user_errors

app = typer.Typer(
    name="ingest",
    help="Offline ingestion: crawl the document portal, extract, chunk and index.",
    no_args_is_help=True,
)

_PROFILE_HELP = "a site profile: a YAML path or a bundled name (local_portal, cds_keycloak)"


class _RichProgress:
    """The crawl's progress bar: one step per analysis page, on stderr."""

    def __init__(self) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self.bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                            TimeElapsedColumn(), console=Console(stderr=True))
        self.task = self.bar.add_task("logging in and listing analyses", total=None)
        self.counts = {"downloaded": 0, "skipped": 0, "failed": 0}

    def listed(self, analyses: int) -> None:
        self.bar.update(self.task, total=analyses, description="crawling")

    def analysis_done(self, analysis: str, files) -> None:
        for f in files:
            self.counts[f.status.value] += 1
        summary = ", ".join(f"{n} {status}" for status, n in self.counts.items())
        self.bar.update(self.task, advance=1, description=f"{analysis}: {summary}")


def _print_summary(report) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(stderr=True)
    console.print(
        f"{report.profile}: {len(report.analyses)} analyses, {len(report.downloaded)} downloaded, "
        f"{len(report.skipped)} unchanged, {len(report.failed)} failed; "
        + ("saved session reused" if report.session_reused else f"{report.logins} login(s)")
    )
    if report.failed:
        table = Table("analysis", "document", "version", "error", title="Failed downloads")
        for f in report.failed:
            table.add_row(f.analysis_id, f.doc_id, f.version, f.error or "")
        console.print(table)
    for error in report.errors:
        console.print(f"[red]error:[/red] {error}")


@app.command()
@user_errors
def crawl(
    profile: str = typer.Option(..., "--profile", help=_PROFILE_HELP),
    base_url: str | None = typer.Option(None, "--base-url", help="override the profile's base URL"),
    as_json: JsonOption = False,
) -> None:
    """Log in to the portal, walk every analysis and download new document versions."""
    from ingest.crawl import crawl as run_crawl
    from ingest.profiles import load_profile
    from mitra.settings import get_settings

    site = load_profile(profile)
    progress = _RichProgress()
    with progress.bar:
        report = run_crawl(site, get_settings(), base_url=base_url, progress=progress)
    if as_json:
        typer.echo(report.model_dump_json(indent=2))
    _print_summary(report)
    raise typer.Exit(0 if report.ok else 1)


@app.command("import-cookies")
@user_errors
def import_cookies(
    file: Path = typer.Argument(..., exists=True, dir_okay=False, help="Netscape cookies.txt or JSON export"),
    profile: str = typer.Option(..., "--profile", help=_PROFILE_HELP),
    base_url: str | None = typer.Option(None, "--base-url", help="override the profile's base URL"),
) -> None:
    """Use a browser's logged-in session (e.g. after two-factor SSO) for the next crawls."""
    from ingest.profiles import load_profile
    from ingest.session import import_cookies as save_imported
    from ingest.session import session_path
    from mitra.settings import get_settings

    site, settings = load_profile(profile), get_settings()
    count = save_imported(file, site, settings, site.resolve_base_url(base_url))
    typer.echo(f"saved {count} cookie(s) for {site.name} to {session_path(settings, site)}")


def register(root_app: typer.Typer) -> None:
    root_app.add_typer(app, name="ingest")
