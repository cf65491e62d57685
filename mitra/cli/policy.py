"""``mitra policy import|show``: the access policy in force (``mitra.access.policy``): the
policy file, or with MITRA_DATABASE_URL the one stored in the shared database."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from mitra.cli.common import JsonOption, console, print_json, user_errors

app = typer.Typer(name="policy", help="The access policy: which groups read which analyses.", no_args_is_help=True)


@app.command("import")
@user_errors
def import_policy(
    file: Annotated[Path, typer.Argument(help="A policy YAML file (admins, unlisted, analyses).")],
) -> None:
    """Check a policy file and put it in force (in the shared database with MITRA_DATABASE_URL)."""
    from mitra.access.policy import AccessPolicy, PolicyError
    from mitra.core.settings import get_settings

    if not file.is_file():
        raise PolicyError(f"no policy file {file}")
    policy = AccessPolicy.load(file)
    where = policy.save(get_settings())
    console.print(f"policy from {file} in force ({where}): {len(policy.analyses)} rules, "
                  f"admin groups: {', '.join(policy.admins) or 'none'}")


@app.command()
@user_errors
def show(as_json: JsonOption = False) -> None:
    """The policy in force, as YAML (what `mitra policy import` takes)."""
    import yaml

    from mitra.access.policy import AccessPolicy
    from mitra.core.settings import get_settings

    policy = AccessPolicy.in_force(get_settings()).model_dump()
    if as_json:
        print_json(policy)
    else:
        typer.echo(yaml.safe_dump(policy, sort_keys=False), nl=False)


def register(root_app: typer.Typer) -> None:
    root_app.add_typer(app, name="policy")
