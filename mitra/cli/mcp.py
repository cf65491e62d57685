"""``mitra mcp``: MITRA as an MCP server (``mitra.mcp``), over stdio for one member or
streamable HTTP for a deployment."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from mitra.cli.common import acting_as, console, user_errors
from mitra.core.errors import MitraError


@user_errors
def mcp(
    stdio: Annotated[bool, typer.Option("--stdio", help="Serve one member over stdin/stdout (an editor or "
                                        "agent starts this command).")] = False,
    http: Annotated[bool, typer.Option("--http", help="Serve over streamable HTTP at /mcp: every request "
                                       "names its member with an API token or an OIDC bearer token.")] = False,
    user: Annotated[Optional[str], typer.Option(help="--stdio: the local user to read as (default: --as, "
                                                "or the principal setting).")] = None,
    host: Annotated[str, typer.Option(help="--http: the address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="--http: the port.")] = 8765,
) -> None:
    """Serve MITRA's tools (list_analyses, find_analysis, search, ask, read_passage) and its analyses as
    resources to MCP clients, each call read as its member and written to the audit trail."""
    from mitra.core.settings import get_settings

    if stdio == http:
        raise MitraError("mcp takes exactly one of --stdio or --http")
    settings = get_settings()
    if stdio:
        from mitra.mcp.identity import stdio_caller
        from mitra.mcp.server import build_server

        name = user or acting_as["user"] or settings.principal
        if name is None:
            raise MitraError("mcp --stdio reads as one member: name them with --user NAME (a local user)")
        build_server(settings, stdio_caller(settings, name)).run("stdio")
        return
    if user is not None:
        raise MitraError("--user goes with --stdio: over HTTP each request's token names its member")
    import uvicorn

    from mitra.mcp.server import http_app

    console.print(f"MCP over streamable HTTP at http://{host}:{port}/mcp (bearer tokens required)")
    uvicorn.run(http_app(settings, host, port), host=host, port=port, log_level="warning")


def register(app: typer.Typer) -> None:
    app.command()(mcp)
