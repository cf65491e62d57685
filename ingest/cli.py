"""``mitra ingest ...``: the offline ingestion commands.

``crawl`` downloads, ``files`` indexes local documents of any supported type (``pdf``:
local PDFs), ``run`` does repair -> crawl -> extract -> chunk -> index, ``repair`` folds
the duplicates a moved portal left, ``status`` reads the manifest. Exit codes: 0 everything done or unchanged, 1 some files failed (see the
summary), 2 nothing could start (login rejected, no credentials, bad profile, bad
arguments).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from mitra.cli.common import (
    AllowLowCoverage, Groups, JsonOption, RefuseLowCoverage, console, pipeline, print_json, split_groups, user_errors,
)

app = typer.Typer(
    name="ingest",
    help="Offline ingestion: crawl the document portal, extract, chunk and index.",
    no_args_is_help=True,
)

_PROFILE_HELP = "a site profile: a YAML path or a bundled name (local_portal, cds_keycloak)"
RayAddress = Annotated[str | None, typer.Option(
    "--ray", metavar="ADDRESS", help="extract, OCR and embed on this Ray cluster (auto, host:6379, ray://host:10001; "
    "local: start one here); this process still writes. Default: the ray_address setting")]


def _on_ray(settings, address: str | None):
    """The settings with ``--ray`` applied over the ray_address setting."""
    return settings.model_copy(update={"ray_address": address}) if address else settings


def _progress_bar():
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                    console=Console(stderr=True))


class _RichProgress:
    """The crawl's progress bar: one step per analysis page, on stderr."""

    def __init__(self) -> None:
        self.bar = _progress_bar()
        self.task = self.bar.add_task("logging in and listing analyses", total=None)
        self.counts = {"downloaded": 0, "skipped": 0, "failed": 0}

    def listed(self, analyses: int) -> None:
        self.bar.update(self.task, total=analyses, description="crawling")

    def analysis_done(self, analysis: str, files) -> None:
        for f in files:
            self.counts[f.status.value] += 1
        summary = ", ".join(f"{n} {status}" for status, n in self.counts.items())
        self.bar.update(self.task, advance=1, description=f"{analysis}: {summary}")


def _indexing_kb(refuse_low_coverage: bool = False):
    """The knowledge base, opened for a long write (memory kept flat: see ``keep_heap_flat``);
    ``refuse_low_coverage`` overrides the low_coverage setting for this run."""
    from mitra.core.memory import keep_heap_flat

    keep_heap_flat()
    kb = pipeline(with_reranker=False, writer=True).kb
    if refuse_low_coverage:
        kb.settings = kb.settings.model_copy(update={"low_coverage": "refuse"})
    return kb


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


def _repair(kb, base_url: str) -> list:
    """Duplicates a moved portal left, folded into the documents they duplicate (the
    manifest's rows from before locators given theirs on the portal at ``base_url``)."""
    from ingest.repair import repair
    from ingest.sources.identity import Identity
    from ingest.sources.manifest import Manifest
    from mitra.store.lock import writer_lock

    settings = kb.settings
    if not settings.manifest_path.is_file():
        return []
    with writer_lock(settings, "ingest repair"), Manifest.open(settings) as manifest:
        manifest.fill_locators(Identity(base_url, settings.crawl_volatile_params, manifest).locator)
        folds = repair(manifest, kb, settings.downloads_dir)
        if folds:
            kb.sync_abstracts()
    for fold in folds:
        moved = ", ".join(f"{v} -> {label}" if label else f"{v} (the same file)" for v, label in fold.versions.items())
        console.print(f"repaired: {fold.analysis_id} {fold.duplicate} folded into {fold.into} ({moved})",
                      highlight=False, soft_wrap=True)
    return folds


def _crawl(profile: str, base_url: str | None, settings):
    """The crawl with its progress bar and end summary, for `crawl` and `run` (it writes
    the manifest and the downloads: it holds the data dir's writer lock)."""
    from ingest.sources.crawl import crawl as run_crawl
    from ingest.sources.profiles import load_profile
    from mitra.store.lock import writer_lock

    progress = _RichProgress()
    with writer_lock(settings, "ingest crawl"), progress.bar:
        report = run_crawl(load_profile(profile), settings, base_url=base_url, progress=progress)
    _print_summary(report)
    return report


@app.command()
@user_errors
def crawl(
    profile: str = typer.Option(..., "--profile", help=_PROFILE_HELP),
    base_url: str | None = typer.Option(None, "--base-url", help="override the profile's base URL"),
    as_json: JsonOption = False,
) -> None:
    """Log in to the portal, walk every analysis and download new document versions."""
    from mitra.core.settings import get_settings

    report = _crawl(profile, base_url, get_settings())
    if as_json:
        typer.echo(report.model_dump_json(indent=2))
    raise typer.Exit(0 if report.ok else 1)


@app.command("import-cookies")
@user_errors
def import_cookies(
    file: Path = typer.Argument(..., exists=True, dir_okay=False, help="Netscape cookies.txt or JSON export"),
    profile: str = typer.Option(..., "--profile", help=_PROFILE_HELP),
    base_url: str | None = typer.Option(None, "--base-url", help="override the profile's base URL"),
) -> None:
    """Use a browser's logged-in session (e.g. after two-factor SSO) for the next crawls."""
    from ingest.sources.profiles import load_profile
    from ingest.sources.login import import_cookies as save_imported
    from ingest.sources.login import session_path
    from mitra.core.settings import get_settings

    site, settings = load_profile(profile), get_settings()
    count = save_imported(file, site, settings, site.resolve_base_url(base_url))
    typer.echo(f"saved {count} cookie(s) for {site.name} to {session_path(settings, site)}")


class _PageProgress:
    """Per-file and per-page progress bars for extraction + indexing, on stderr."""

    def __init__(self, total_files: int) -> None:
        self.bar = _progress_bar()
        self.files = self.bar.add_task("files", total=total_files)
        self.pages = None

    def file(self, name: str):
        """Start a file; returns the page callback ``(done, total)`` extraction reports to."""
        if self.pages is not None:
            self.bar.remove_task(self.pages)
        self.bar.advance(self.files)  # counts files started: the current one included
        self.pages = self.bar.add_task(f"  {name}", total=None)
        return lambda done, total: self.bar.update(self.pages, completed=done, total=total)


def _print_ingest_summary(summary) -> None:
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    data = summary.as_dict()
    console = Console(stderr=True)
    left_out = ", ".join(f"{n} {kind}" for kind, n in data["left_out"].items() if n)
    left_out = f"; left out on purpose: {left_out}" if left_out else ""
    console.print(
        f"{data['analyses']} analyses, {data['documents']} documents, {data['versions']} versions indexed "
        f"({data['pages']} pages, {data['ocr_pages']} by OCR, {data['chunks']} chunks); "
        f"{data['skipped']} unchanged and skipped, {len(data['failed'])} failed{left_out}"
    )
    if data["failed"]:
        table = Table("file", "reason", title="Failed files")
        for row in data["failed"]:
            table.add_row(row["file"], row["reason"])
        console.print(table)
    if data["notes"]:
        table = Table("file", "note", title="Indexed, with a note")
        for row in data["notes"]:
            table.add_row(row["file"], row["note"])
        console.print(table)
    for line in data["flagged"]:
        console.print(f"[yellow]flagged:[/yellow] {escape(line)}", highlight=False, soft_wrap=True)


AnalysisId = Annotated[str, typer.Option("--analysis", help="the analysis id the documents belong to")]
Title = Annotated[str | None, typer.Option("--title", help="the analysis title (default: kept, or the id)")]
Abstract = Annotated[str | None, typer.Option(
    "--abstract", help="default: kept, or the first document's Abstract")]
Version = Annotated[str, typer.Option("--version", help="the documents' version label")]
ForceOcr = Annotated[bool, typer.Option("--force-ocr", help="OCR every PDF page even where the text layer is good")]


def _ingest_local(intake, analysis: str, title: str | None, abstract: str | None, version: str, force_ocr: bool,
                  allow_low_coverage: bool, refuse_low_coverage: bool, groups: str | None, ray: str | None,
                  as_json: bool) -> None:
    """`ingest files` and `ingest pdf`: each file of ``intake`` one document of the analysis."""
    from ingest.pipeline import ingest_files
    from mitra.access.policy import attach_groups
    from mitra.core.types import Analysis

    kb = _indexing_kb(refuse_low_coverage)
    known = kb.get_analysis(analysis)
    target = attach_groups(Analysis(
        id=analysis,
        title=title or (known.title if known else analysis),
        abstract=abstract if abstract is not None else (known.abstract if known else ""),
        metadata=known.metadata if known else {},  # groups attached before stay attached
    ), split_groups(groups))
    progress = _PageProgress(len(intake.files))
    with progress.bar:
        summary = ingest_files(kb, _on_ray(kb.settings, ray), intake.files, target,
                               version=version, force_ocr=force_ocr, progress=lambda path: progress.file(path.name),
                               allow_low_coverage=allow_low_coverage, stamps=intake.stamps)
    summary.left_out = intake.left_out
    summary.failed = intake.refused + summary.failed
    if as_json:
        typer.echo(json.dumps(summary.as_dict(), indent=2))
    _print_ingest_summary(summary)
    raise typer.Exit(1 if summary.failed else 0)


@app.command()
@user_errors
def files(
    paths: list[Path] = typer.Argument(..., help="files, or folders walked recursively; each file becomes a document"),
    analysis: AnalysisId = ...,
    title: Title = None,
    abstract: Abstract = None,
    version: Version = "1",
    force_ocr: ForceOcr = False,
    allow_low_coverage: AllowLowCoverage = False,
    refuse_low_coverage: RefuseLowCoverage = False,
    groups: Groups = None,
    ray: RayAddress = None,
    as_json: JsonOption = False,
) -> None:
    """Read, chunk and index local documents of any supported type into one analysis.

    The reader is chosen by each file's content: PDF (a talk exported as PDF is read slide by
    slide), PowerPoint .pptx, Word .docx, a saved web page (HTML: main content only), Markdown
    or plain text. An unsupported, damaged or password-protected file is named in the summary
    and the others are indexed (exit 1), and so is a link out of the folder (never followed) or
    a file that would inflate past max_inflated_mb. Hidden files and folders, the resources
    folder a browser saves beside a page (X_files beside X.html) and second names of a file
    read already are left out and counted."""
    from ingest.sources.folder import walked_files

    _ingest_local(walked_files(paths), analysis, title, abstract, version, force_ocr, allow_low_coverage,
                  refuse_low_coverage, groups, ray, as_json)


@app.command()
@user_errors
def pdf(
    files: list[Path] = typer.Argument(..., help="PDF files, or directories of them; each file becomes a document"),
    analysis: AnalysisId = ...,
    title: Title = None,
    abstract: Abstract = None,
    version: Version = "1",
    force_ocr: ForceOcr = False,
    allow_low_coverage: AllowLowCoverage = False,
    refuse_low_coverage: RefuseLowCoverage = False,
    groups: Groups = None,
    ray: RayAddress = None,
    as_json: JsonOption = False,
) -> None:
    """Extract, chunk and index local PDF files into one analysis (`ingest files`, with a
    directory meaning the PDFs in it)."""
    from ingest.sources.folder import pdf_files

    _ingest_local(pdf_files(files), analysis, title, abstract, version, force_ocr, allow_low_coverage,
                  refuse_low_coverage, groups, ray, as_json)


@app.command()
@user_errors
def run(
    profile: str = typer.Option(..., "--profile", help=_PROFILE_HELP),
    base_url: str | None = typer.Option(None, "--base-url", help="override the profile's base URL"),
    allow_low_coverage: AllowLowCoverage = False,
    refuse_low_coverage: RefuseLowCoverage = False,
    groups: Groups = None,
    ray: RayAddress = None,
    as_json: JsonOption = False,
) -> None:
    """Crawl the portal, then extract, chunk and index every new document version (duplicates a
    moved portal left are folded into the documents they duplicate first, as `ingest repair` does)."""
    from ingest.pipeline import index_manifest
    from ingest.sources.manifest import Manifest, Stage
    from ingest.sources.profiles import load_profile

    kb = _indexing_kb(refuse_low_coverage)
    site = load_profile(profile)
    folds = _repair(kb, site.resolve_base_url(base_url))  # before the crawl, which then finds one id per locator
    report = _crawl(profile, base_url, kb.settings)
    readers = [*site.groups, *split_groups(groups)]
    with Manifest.open(kb.settings) as manifest:
        progress = _PageProgress(len(manifest.pending(Stage.index)))
        with progress.bar:
            summary = index_manifest(kb, manifest, _on_ray(kb.settings, ray), allow_low_coverage=allow_low_coverage,
                                     groups=readers,
                                     progress=lambda record: progress.file(f"{record.doc_id} {record.version}"))
    if as_json:
        typer.echo(json.dumps({"repaired": [f.as_dict() for f in folds], "crawl": report.model_dump(mode="json"),
                               "ingest": summary.as_dict()}, indent=2))
    _print_ingest_summary(summary)
    raise typer.Exit(0 if report.ok and not summary.failed else 1)


@app.command()
@user_errors
def repair(
    profile: str | None = typer.Option(None, "--profile", help=f"{_PROFILE_HELP}; its base URL places the files "
                                       "fetched before document identity was kept (default: the portal's root)"),
    base_url: str | None = typer.Option(None, "--base-url", help="override the profile's base URL"),
    as_json: JsonOption = False,
) -> None:
    """Fold the duplicates a portal that moved (another host, port or scheme) left in the knowledge
    base into the documents they duplicate: the same file is dropped, a changed one becomes the
    next version. `ingest run` does this before it crawls."""
    from ingest.sources.profiles import load_profile

    kb = _indexing_kb()
    where = load_profile(profile).resolve_base_url(base_url) if profile else (base_url or "")
    folds = _repair(kb, where)
    if as_json:
        print_json({"repaired": [f.as_dict() for f in folds], "stats": kb.stats()})
    elif not folds:
        console.print("no duplicates: nothing to repair", highlight=False)


@app.command()
@user_errors
def status(as_json: JsonOption = False) -> None:
    """What the manifest holds: every document version's download, extract and index state."""
    from rich.console import Console
    from rich.table import Table

    from ingest.sources.manifest import Manifest
    from mitra.core.settings import get_settings

    settings = get_settings()
    if not settings.manifest_path.exists():
        typer.echo(f"no manifest at {settings.manifest_path}: run `mitra ingest crawl` or `mitra ingest run` first")
        raise typer.Exit(0)
    with Manifest.open(settings) as manifest:
        versions = manifest.versions()
        analyses = manifest.analyses()
    rows = [
        {
            "analysis_id": v.analysis_id, "doc_id": v.doc_id, "version": v.version, "download": v.status.value,
            "extract": v.extract_status.value, "index": v.index_status.value,
            "downloaded_at": v.downloaded_at.isoformat() if v.downloaded_at else None,
            "error": v.error or v.extract_error or v.index_error,
        }
        for v in versions
    ]
    if as_json:
        typer.echo(json.dumps({"analyses": len(analyses), "versions": rows}, indent=2))
        return
    table = Table("analysis", "document", "version", "download", "extract", "index", "error",
                  title=f"{len(analyses)} analyses, {len(rows)} document versions")
    for r in rows:
        table.add_row(r["analysis_id"], r["doc_id"], r["version"], r["download"], r["extract"], r["index"],
                      r["error"] or "")
    Console().print(table)


@user_errors
def index_jsonl_command(
    file: Annotated[Path, typer.Argument(help="JSONL: one analysis per line with its documents' text.")],
    allow_low_coverage: AllowLowCoverage = False,
    refuse_low_coverage: RefuseLowCoverage = False,
    groups: Groups = None,
    as_json: JsonOption = False,
) -> None:
    """Index analyses (abstract tier + full-text tier) from a JSONL file; each analysis is replaced atomically.

    Each document's text is read as Markdown, LaTeX or plain text ("format", default auto). A malformed
    file stops the run before anything is written (exit 2). An analysis with a document that yields no
    chunks or is too large is refused and named; the others are indexed (exit 1). A document whose chunks
    hold less than min_coverage of its words is indexed with what it has and flagged (refused with
    --refuse-low-coverage). Analyses already indexed with the same content are skipped, so a rerun
    indexes only what is missing."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from ingest.sources.jsonl import PartlyRefused, index_records, load_analyses

    records = load_analyses(file)  # a malformed file fails before any model loads
    kb = _indexing_kb(refuse_low_coverage)
    with Progress(  # on stderr, so it shows under --json too
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=console,
    ) as progress:
        # Two bars however many analyses: the run's, and the chunks of the one being embedded.
        overall = progress.add_task("analyses", total=records.count)
        current = progress.add_task("embedding", total=None)

        def on_analysis(analysis_id: str, n_chunks: int):
            progress.advance(overall, 1 if progress.tasks[current].total else 0)
            progress.reset(current, total=n_chunks, description=f"embedding {analysis_id}")
            return lambda n: progress.advance(current, n)

        try:
            report = index_records(kb, records, on_analysis, allow_low_coverage=allow_low_coverage,
                                   groups=split_groups(groups))
        except PartlyRefused as refused:
            report = refused.report
        progress.update(overall, completed=records.count)
    documents = [d for a in report.indexed for d in a.documents]
    coverages = [d["coverage"] for d in documents if d["coverage"] is not None]
    lowest = min(coverages, default=1.0)
    if as_json:
        print_json({
            **report.as_dict(),
            "coverage": {"min": lowest, "mean": round(sum(coverages) / len(coverages), 4) if coverages else None},
            "stats": kb.stats(),
        })
    else:
        _print_intake(report, lowest)
    raise typer.Exit(1 if report.refused else 0)


def _print_intake(report, lowest: float) -> None:
    """Per document its coverage and, on a line of its own, the words dropped on purpose
    (never counted as loss); then each refused document and why; then the totals."""
    from rich.markup import escape

    from mitra.core.types import version_label

    for analysis in report.indexed:
        for d in analysis.documents:
            coverage = "" if d["coverage"] is None else f", coverage {d['coverage']:.1%}"
            console.print(escape(f"{analysis.analysis_id} {d['doc_id']} {version_label(d['version'])} ({d['format']}): "
                                 f"{d['chunks']} chunks{coverage}"), highlight=False, soft_wrap=True)
            if d["dropped"]:
                kinds = ", ".join(f"{kind} {n:,}" for kind, n in d["dropped"].items())
                console.print(f"  dropped on purpose: {sum(d['dropped'].values()):,} words ({kinds})",
                              highlight=False, soft_wrap=True)
    for reasons in report.refused.values():
        for reason in reasons:
            console.print(f"[red]refused:[/red] {escape(reason)}", highlight=False, soft_wrap=True)
    for reasons in report.flagged.values():
        for reason in reasons:
            console.print(f"[yellow]flagged:[/yellow] {escape(reason)}", highlight=False, soft_wrap=True)
    documents = sum(len(a.documents) for a in report.indexed)
    coverage = (f"; coverage: lowest {lowest:.1%} (the share of a document's words, less those dropped on purpose, "
                "that reach a chunk)") if documents else ""
    console.print(
        f"indexed {len(report.indexed)} analyses, {documents} documents, {sum(a.chunks for a in report.indexed)} "
        f"chunks; {len(report.unchanged)} unchanged and skipped; {len(report.refused)} refused; "
        f"{sum(map(len, report.flagged.values()))} flagged below min_coverage{coverage}",
        highlight=False, soft_wrap=True,
    )


def register(root_app: typer.Typer) -> None:
    root_app.add_typer(app, name="ingest")
    root_app.command("index-jsonl")(index_jsonl_command)
