"""Admins from the users file: `mitra users add NAME --admin`, `mitra users admin NAME [--remove]`,
and the admin pages open to such a user (and say how the right is granted to anyone else)."""

from __future__ import annotations

import json

import pytest

from tests.conftest import REPO

PASSWORD = "correct horse battery"


def test_the_cli_grants_and_takes_back_the_admin_right(cli):
    added = cli("users", "add", "ada", "--groups", "orion", "--admin", "--password-stdin", input=f"{PASSWORD}\n")
    assert added.exit_code == 0 and "admin" in added.output
    cli("users", "add", "bob", "--password-stdin", input=f"{PASSWORD}\n")
    assert json.loads(cli("users", "list", "--json").stdout) == [
        {"user": "ada", "groups": ["orion"], "admin": True}, {"user": "bob", "groups": [], "admin": False}]
    assert cli("users", "admin", "bob").exit_code == 0
    assert cli("users", "admin", "ada", "--remove").exit_code == 0
    assert [u["admin"] for u in json.loads(cli("users", "list", "--json").stdout)] == [False, True]
    missing = cli("users", "admin", "mallory")
    assert missing.exit_code == 2 and "no user 'mallory'" in missing.output


def test_an_admin_user_is_an_admin_principal_whatever_the_policy(tmp_path):
    from mitra.access.policy import AccessPolicy
    from mitra.access.users import LocalUsers

    users = LocalUsers(tmp_path / "users.yaml")
    users.add("ada", PASSWORD, ["orion"], admin=True)
    user = users.verify("ada", PASSWORD)
    assert AccessPolicy(admins=["mitra-admins"]).principal("ada", user.groups, user.admin).admin
    assert not AccessPolicy(admins=["mitra-admins"]).principal("ada", user.groups).admin


@pytest.mark.parametrize("page", ["pages/2_Evaluation.py", "pages/3_Ingestion.py"])
def test_admin_pages_open_to_an_admin_user_and_say_how_to_become_one(app_env, tmp_path, monkeypatch, page):
    from streamlit.testing.v1 import AppTest

    from mitra.access.users import LocalUsers

    app_env(auth="local")
    monkeypatch.setenv("MITRA_USERS_FILE", str(tmp_path / "users.yaml"))
    users = LocalUsers(tmp_path / "users.yaml")
    users.add("ada", PASSWORD, ["orion"], admin=True)
    users.add("bob", PASSWORD, ["orion"])

    def signed_in(name: str) -> AppTest:
        at = AppTest.from_file(str(REPO / page), default_timeout=120).run()
        at.text_input[0].input(name)
        at.text_input[1].input(PASSWORD)
        at.button[0].click().run()
        assert not at.exception, at.exception
        return at

    refusal = signed_in("bob").error[0].value
    assert "for admins only" in refusal and "mitra users admin NAME" in refusal and "admins:" in refusal
    assert not [e for e in signed_in("ada").error if "for admins only" in e.value]
