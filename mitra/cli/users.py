"""``mitra users add|remove|admin|import|list``: the local users (``mitra.access.users``), in the users
file or, with MITRA_DATABASE_URL, the shared database; ``mitra users token issue|revoke|list``: their API
tokens for the MCP server (``mitra.access.tokens``)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from mitra.cli.common import Groups, JsonOption, console, print_json, split_groups, user_errors

app = typer.Typer(name="users", help="Local users (for deployments without single sign-on, and the demo).",
                  no_args_is_help=True)


def _users():
    from mitra.access.users import open_users
    from mitra.core.settings import get_settings

    return open_users(get_settings())


@app.command()
@user_errors
def add(
    name: Annotated[str, typer.Argument(help="The user name they sign in with.")],
    groups: Groups = None,
    password_stdin: Annotated[
        bool, typer.Option("--password-stdin", help="Read the password from stdin (scripts), not a prompt.")
    ] = False,
    admin: Annotated[
        bool, typer.Option("--admin", help="Make them an admin: every analysis, and the Evaluation and Ingestion pages.")
    ] = False,
) -> None:
    """Add a user, or set an existing user's password, groups and admin right."""
    if password_stdin:
        password = sys.stdin.readline().rstrip("\n")
    else:
        password = typer.prompt("password", hide_input=True, confirmation_prompt=True)
    users = _users()
    users.add(name, password, split_groups(groups), admin=admin)
    console.print(f"{name} saved in {users.where} (groups: {', '.join(split_groups(groups)) or 'none'}"
                  + ("; admin)" if admin else ")"))


@app.command("admin")
@user_errors
def set_admin(
    name: Annotated[str, typer.Argument(help="An existing user.")],
    remove: Annotated[bool, typer.Option("--remove", help="Take the admin right back instead.")] = False,
) -> None:
    """Make a user an admin (or, with --remove, no longer one); they sign in again to get it."""
    users = _users()
    users.set_admin(name, not remove)
    console.print(f"{name} is {'no longer' if remove else 'now'} an admin ({users.where})")


@app.command()
@user_errors
def remove(name: Annotated[str, typer.Argument(help="The user to remove.")]) -> None:
    """Remove a user: they cannot sign in any more."""
    users = _users()
    users.remove(name)
    console.print(f"{name} removed from {users.where}")


@app.command("import")
@user_errors
def import_users(file: Annotated[Path, typer.Argument(help="A users file (users.yaml) to copy users from.")]) -> None:
    """Copy the users of a users file here, passwords and all (into the shared database with MITRA_DATABASE_URL)."""
    from mitra.access.users import LocalUsers, UsersError

    if not file.is_file():
        raise UsersError(f"no users file {file}")
    users = _users()
    names = users.import_from(LocalUsers(file))
    console.print(f"{len(names)} users from {file} saved in {users.where}: {', '.join(names) or 'none'}")


@app.command("list")
@user_errors
def list_users(as_json: JsonOption = False) -> None:
    """The users and their groups (never their password hashes)."""
    users = _users().load()
    if as_json:
        print_json([{"user": n, "groups": u.groups, "admin": u.admin} for n, u in sorted(users.items())])
        return
    for name, user in sorted(users.items()):
        typer.echo(f"{name}\t{', '.join(user.groups)}" + ("\tadmin" if user.admin else ""))
    if not users:
        console.print("no local users")


token_app = typer.Typer(name="token", help="Members' API tokens for `mitra mcp --http` (stored hashed).",
                        no_args_is_help=True)
app.add_typer(token_app, name="token")


def _tokens():
    from mitra.access.tokens import ApiTokens
    from mitra.core.settings import get_settings

    return ApiTokens.open(get_settings())


@token_app.command("issue")
@user_errors
def issue_token(
    name: Annotated[str, typer.Argument(help="The local user the token reads as.")],
    label: Annotated[str, typer.Option(help="What the token is for (shown in listings).")] = "",
    as_json: JsonOption = False,
) -> None:
    """Issue an API token for a user; it is printed once, on stdout, and only its hash is kept."""
    record, token = _tokens().issue(_users(), name, label)
    if as_json:
        print_json({**record.model_dump(), "token": token})
        return
    typer.echo(token)
    console.print(f"token {record.id} issued for {name}: it reads what {name} may read; "
                  f"`mitra users token revoke {record.id}` withdraws it")


@token_app.command("revoke")
@user_errors
def revoke_token(token_id: Annotated[str, typer.Argument(help="The token's id (see `mitra users token list`).")]) -> None:
    """Revoke a token: the MCP server refuses it from its next request on."""
    record = _tokens().revoke(token_id)
    console.print(f"token {record.id} of {record.user} revoked")


@token_app.command("list")
@user_errors
def list_tokens(
    user: Annotated[Optional[str], typer.Option(help="Only this user's tokens.")] = None,
    as_json: JsonOption = False,
) -> None:
    """The tokens issued, live and revoked (never the tokens themselves)."""
    records = _tokens().list(user)
    if as_json:
        print_json([r.model_dump() for r in records])
        return
    for r in records:
        typer.echo(f"{r.id}\t{r.user}\t{r.label}\t{r.created_at}\t" + (f"revoked {r.revoked_at}" if r.revoked_at else "live"))
    if not records:
        console.print("no tokens")


def register(root_app: typer.Typer) -> None:
    root_app.add_typer(app, name="users")
