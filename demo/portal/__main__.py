"""``python -m demo.portal --corpus DIR --port N``: serve a corpus on a local portal."""

from __future__ import annotations

from pathlib import Path

import typer

from demo.portal.app import PortalConfig
from demo.portal.corpus import CorpusIndex
from demo.portal.server import run_portal


def main(
    corpus: Path = typer.Option(..., "--corpus", help="directory written by demo/make_corpus.py"),
    port: int = typer.Option(8770, "--port"),
    host: str = typer.Option("127.0.0.1", "--host"),
    user: str = typer.Option("physicist", "--user", envvar="MITRA_PORTAL_USER"),
    password: str = typer.Option("orion-demo", "--password", envvar="MITRA_PORTAL_PASSWORD", show_default=False),
    session_ttl_s: float = typer.Option(3600.0, "--session-ttl", help="seconds a login stays valid"),
    page_size: int = typer.Option(2, "--page-size", help="analyses per list page"),
    faults: bool = typer.Option(False, "--faults", help="add slow / 500 / 404 / non-PDF documents"),
) -> None:
    try:
        CorpusIndex.load(corpus)
    except FileNotFoundError as exc:
        raise typer.BadParameter(str(exc), param_hint="--corpus") from exc
    config = PortalConfig(
        corpus_dir=corpus, username=user, password=password, session_ttl_s=session_ttl_s,
        page_size=page_size, faults=faults,
    )
    typer.echo(f"Portal on http://{host}:{port}  (user {user!r})")
    run_portal(config, host, port)


if __name__ == "__main__":
    typer.run(main)
