"""Members only, in a real browser: the app (``streamlit run``) signs members in through a
real OpenID Connect provider process on 127.0.0.1 (``oidc-provider-mock``) or the local
users file, shows a visitor nothing but the sign-in, scopes everything to the member's
groups, writes the audit trail, and refuses to serve at all when no sign-in is set up."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import REPO, app_environment, closed_port
from tests.fixtures.browser import open_tab, serve_app
from tests.fixtures.servers import running_oidc_provider

HIGGS = "What is the dominant background in the dimuon Higgs search?"
POLICY = """
admins: [mitra-admins]
analyses:
  - {match: "EXO-*", groups: [exo]}
  - {match: "HIG-*", groups: [higgs]}
  - {match: SMP-24-003, groups: [exo, smp]}
"""
CLIENT_SECRET = "client-secret-never-logged-4711"
COOKIE_SECRET = "cookie-secret-never-logged-0815"
PASSWORD = "correct horse battery"


@pytest.fixture(scope="module")
def oidc_provider(tmp_path_factory):
    """A real OIDC provider process with alice (group exo) predefined."""
    alice = {"sub": "alice", "email": "alice@orion.example", "groups": ["exo"]}
    with running_oidc_provider(tmp_path_factory.mktemp("oidc") / "oidc.log", alice) as url:
        yield url


def app(data_dir: Path, tmp: Path, auth: str, *args: str, port: int | None = None, **env):
    """The app with ``auth`` and extra ``MITRA_*``/Streamlit settings; a context yielding its URL."""
    return serve_app({**app_environment(data_dir, auth=auth), **env}, tmp, *args, port=port)


@pytest.fixture(scope="module")
def secured(app_data_dir, tmp_path_factory):
    """A policy file and an audit file beside the shared sample KB (which stays read-only)."""
    tmp = tmp_path_factory.mktemp("secured")
    (tmp / "access.yaml").write_text(POLICY)
    return tmp, {"MITRA_ACCESS_POLICY": str(tmp / "access.yaml"), "MITRA_AUDIT_FILE": str(tmp / "audit.jsonl"),
                 "MITRA_USERS_FILE": str(tmp / "users.yaml")}


def _audit(tmp: Path) -> list[dict]:
    path = tmp / "audit.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_sso_member_sees_only_the_sign_in_then_only_their_groups(browser, app_data_dir, secured, oidc_provider):
    from selenium.webdriver.common.by import By

    tmp, env = secured
    port = closed_port()
    secrets = tmp / "secrets.toml"
    secrets.write_text(
        "[auth]\n"
        f'redirect_uri = "http://127.0.0.1:{port}/oauth2callback"\n'
        f'cookie_secret = "{COOKIE_SECRET}"\n'
        'client_id = "mitra-tests"\n'
        f'client_secret = "{CLIENT_SECRET}"\n'
        f'server_metadata_url = "{oidc_provider}/.well-known/openid-configuration"\n'
    )
    # auto finds the [auth] section; the redirect URI names the app's port, so it serves there
    with app(app_data_dir, tmp, "auto", "--secrets.files", str(secrets), port=port, **env) as url:
        tab = open_tab(browser, url, new=False)
        tab.click_label("Sign in")  # a visitor sees the sign-in and nothing else
        assert not browser.find_elements(By.CSS_SELECTOR, "[data-testid=stChatInputTextArea]")
        tab._wait(lambda d: d.find_elements(By.XPATH, "//button[@value='alice']"), "the provider's form")[0].click()
        tab.ask(HIGGS)
        offered = [e.get_attribute("class") for e in tab.find("[class*='st-key-pick-']")]
        assert offered and not [c for c in offered if "HIG-24-001" in c]
        assert "alice@orion.example" in tab.text("[data-testid=stSidebar]")
        tab.pick("EXO-24-002")  # her group's analysis: locked and answered from
        assert "EXO-24-002" in tab.text(".st-key-lock-banner")
        tab._wait(lambda d: [e for e in _audit(tmp) if e["event"] in ("answer", "refusal")], "the answer's audit line")

        browser.get(f"{url}/Library")  # a new Streamlit session: the OIDC sign-in is a cookie
        # The page draws its analyses one by one: read it once the last of hers is there.
        library = tab._wait(lambda d: [e.text for e in d.find_elements(By.CSS_SELECTOR, "[data-testid=stMain]")
                                       if "SMP-24-003" in e.text], "both of alice's analyses")[0]
        assert "EXO-24-002" in library and "SMP-24-003" in library and "HIG-24-001" not in library
        browser.get(f"{url}/Evaluation")
        assert "for admins only" in tab.text("[data-testid=stAlert]")

        browser.get(url)
        tab.click_label("Sign out")  # then the provider ends its session and sends us back
        tab._wait(lambda d: d.find_elements(By.XPATH, "//button[text()='End session']"), "the provider")[0].click()
        tab.click_label("Sign in")
    events = _audit(tmp)
    alice = [e for e in events if e["user"] == "alice@orion.example"]
    assert {"login", "route", "lock", "question", "logout"} <= {e["event"] for e in alice}
    served = [e for e in alice if e["event"] in ("answer", "refusal")]
    assert served and all(e["analysis"] == "EXO-24-002" for e in served)
    trail = (tmp / "audit.jsonl").read_text()
    assert CLIENT_SECRET not in trail and COOKIE_SECRET not in trail and "eyJ" not in trail



def test_local_user_signs_in_with_the_right_password_only(browser, app_data_dir, secured):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    from mitra.access.users import LocalUsers

    tmp, env = secured
    LocalUsers(tmp / "users.yaml").add("bob", PASSWORD, ["smp"])
    with app(app_data_dir, tmp, "auto", **env) as url:
        tab = open_tab(browser, url, new=False)

        def sign_in(password: str) -> None:
            fields = tab.find("[data-testid=stTextInput] input")
            for field, value in zip(fields, ("bob", password)):
                field.send_keys(Keys.CONTROL, "a")  # React does not see Selenium's clear()
                field.send_keys(Keys.DELETE, value)
            tab.click_label("Sign in")

        sign_in("wrong password")
        assert "Wrong user name or password" in tab.text("[data-testid=stAlert]")
        assert not browser.find_elements(By.CSS_SELECTOR, "[data-testid=stChatInputTextArea]")
        sign_in(PASSWORD)
        tab.find("[data-testid=stChatInputTextArea]")
        assert "bob · smp" in tab.text("[data-testid=stSidebar]")
    outcomes = [(e["event"], e["user"]) for e in _audit(tmp) if e["event"] in ("login", "login_failed")]
    assert ("login_failed", "bob") in outcomes and ("login", "bob") in outcomes
    assert PASSWORD not in (tmp / "audit.jsonl").read_text()


def test_a_refresh_keeps_the_member_signed_in_until_the_session_ends(browser, app_data_dir, secured):
    """Issue 47: a refresh signed the member out, silently. Now it keeps them signed in, until
    sign-out (which revokes the session) or session_hours, whichever comes first."""
    import time

    from selenium.webdriver.common.keys import Keys

    from mitra.access.users import LocalUsers

    tmp, env = secured
    LocalUsers(tmp / "users.yaml").add("carol", PASSWORD, ["smp"])
    hours = 8 / 3600  # an 8-second session
    with app(app_data_dir, tmp, "auto", **env, MITRA_SESSION_HOURS=str(hours), MITRA_SESSION_SECRET="s3cret") as url:
        tab = open_tab(browser, url, new=False)

        def sign_in() -> float:
            fields = tab.find("[data-testid=stTextInput] input")
            for field, value in zip(fields, ("carol", PASSWORD)):
                field.send_keys(Keys.CONTROL, "a")
                field.send_keys(Keys.DELETE, value)
            tab.click_label("Sign in")
            tab.find("[data-testid=stChatInputTextArea]")
            tab._wait(lambda d: d.get_cookie("mitra_session"), "the session cookie")
            return time.monotonic()

        def refreshed_signed_in() -> bool:
            browser.refresh()
            tab._wait(lambda d: d.find_elements("css selector", "[data-testid=stChatInputTextArea], "
                                                "[data-testid=stTextInput]"), "the chat or the sign-in")
            return "carol · smp" in tab.text("[data-testid=stSidebar]") if browser.find_elements(
                "css selector", "[data-testid=stChatInputTextArea]") else False

        signed = sign_in()
        assert refreshed_signed_in()  # the refresh keeps her signed in
        time.sleep(max(0.0, signed + 8.5 - time.monotonic()))
        assert not refreshed_signed_in()  # the session ended: the sign-in again
        sign_in()
        tab.click_label("Sign out")
        tab.find("[data-testid=stTextInput]")
        assert not refreshed_signed_in()  # signed out: a refresh does not sign her back in
    resumed = [e for e in _audit(tmp) if e["event"] == "login" and e.get("method") == "session"]
    assert [e["user"] for e in resumed] == ["carol"]


@pytest.mark.parametrize("page", ["app.py", "pages/1_Library.py", "pages/2_Evaluation.py", "pages/3_Ingestion.py"])
def test_without_any_sign_in_configured_no_page_serves_anything(app_env, tmp_path, monkeypatch, page):
    from streamlit.testing.v1 import AppTest

    app_env(auth="auto")
    monkeypatch.setenv("MITRA_USERS_FILE", str(tmp_path / "no-users.yaml"))
    at = AppTest.from_file(str(REPO / page), default_timeout=120).run()
    assert not at.exception, at.exception
    assert "No sign-in is configured" in at.error[0].value and "MITRA_AUTH=none" in at.error[0].value
    assert not at.chat_input and not at.expander and not at.dataframe and not at.metric


def test_open_mode_says_so_on_every_page(app_env):
    from tests.fixtures.app_pages import app_page

    app_env()  # MITRA_AUTH=none
    at = app_page("1_Library.py")
    assert "Open mode (MITRA_AUTH=none)" in at.warning[0].value
    assert "HIG-24-001" in " ".join(e.label for e in at.expander)
