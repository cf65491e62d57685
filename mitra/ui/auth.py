"""The sign-in gate every page passes first: ``signed_in()`` returns who is signed in,
or draws the sign-in and stops the page, so nothing else renders to a visitor.

Modes (settings.auth): ``oidc`` (Streamlit's built-in ``st.login``, configured in
``.streamlit/secrets.toml``), ``local`` (the users file), ``none`` (open, on purpose
only: a banner says so) and ``auto`` (OIDC where secrets configure it, else the users
file where it exists, else the app refuses to serve).
"""

from __future__ import annotations

import json
import time

import streamlit as st
from streamlit.errors import StreamlitSecretNotFoundError

from mitra.access.policy import AccessPolicy, Principal
from mitra.access.sessions import COOKIE, Sessions
from mitra.access.users import open_users
from mitra.core.settings import Settings

_KEY = "principal"
_TOKEN = "session-token"  # the session cookie's token, revoked at sign-out
_SET_COOKIE = "session-cookie-to-set"  # the value the browser's cookie takes on the next draw ("" removes it)


def _oidc_configured() -> bool:
    try:
        return "auth" in st.secrets
    except StreamlitSecretNotFoundError:  # no secrets file at all
        return False


def auth_mode(settings: Settings) -> str:
    """The mode in force; ``unconfigured`` when ``auto`` finds no way to sign in."""
    if settings.auth != "auto":
        return settings.auth
    if _oidc_configured():
        return "oidc"
    return "local" if open_users(settings).configured() else "unconfigured"


def _groups(claim: object) -> list[str]:
    """A token's groups claim: a list, or one comma- or space-separated string."""
    if isinstance(claim, str):
        return claim.replace(",", " ").split()
    return [str(g) for g in claim] if isinstance(claim, (list, tuple)) else []


def _refuse(settings: Settings) -> None:
    st.error(
        "No sign-in is configured, so MITRA will not serve anyone. Configure single sign-on in "
        "`.streamlit/secrets.toml` ([auth]), or add local users with `mitra users add NAME`, "
        f"(users: {open_users(settings).where}); or set `MITRA_AUTH=none` to run open on purpose.",
        icon=":material/lock:",
    )
    st.stop()


def _local_sign_in(settings: Settings, audit) -> None:
    st.title(":material/lock: MITRA")
    with st.form("sign-in"):
        name = st.text_input("User name")
        password = st.text_input("Password", type="password")
        submitted = st.form_submit_button("Sign in")
    if submitted:
        user = open_users(settings).verify(name, password)
        if user is None:
            audit("login_failed", name or "?", method="local")
            st.error("Wrong user name or password.")
        else:
            policy = AccessPolicy.in_force(settings)
            st.session_state[_KEY] = principal = policy.principal(name, user.groups, user.admin)
            audit("login", principal.user, method="local", groups=sorted(principal.groups))
            sessions = Sessions(settings)
            if sessions.enabled:
                st.session_state[_TOKEN] = st.session_state[_SET_COOKIE] = sessions.issue(name)
            st.rerun()
    st.stop()


def _resumed(settings: Settings, audit) -> Principal | None:
    """The member the browser's session cookie signs in again (a refresh, a new tab), if any."""
    token = st.context.cookies.get(COOKIE)
    name = Sessions(settings).user(token)
    user = open_users(settings).load().get(name) if name else None
    if user is None:  # expired, revoked, forged, or the user was removed since
        return None
    principal = AccessPolicy.in_force(settings).principal(name, user.groups, user.admin)
    st.session_state[_KEY], st.session_state[_TOKEN] = principal, token
    audit("login", principal.user, method="session", groups=sorted(principal.groups))
    return principal


def _write_cookie(settings: Settings) -> None:
    """Sets (or, with "", removes) the session cookie in the browser: Streamlit sets none itself."""
    token = st.session_state.pop(_SET_COOKIE, None)
    if token is None:
        return
    age = int(settings.session_hours * 3600) if token else 0
    cookie = json.dumps(f"{COOKIE}={token}; Max-Age={age}; Path=/; SameSite=Strict")
    with st.container(key="session-cookie", height=1, border=False):
        st.html(f"<script>document.cookie = {cookie} + (location.protocol === 'https:' ? '; Secure' : '');</script>",
                unsafe_allow_javascript=True)


def _oidc_principal(settings: Settings, audit) -> Principal:
    if not st.user.is_logged_in:
        st.title(":material/lock: MITRA")
        st.caption("Members only: sign in with your organisation's account.")
        st.button("Sign in", type="primary", on_click=st.login)
        st.stop()
    issued = st.user.get("iat")
    if settings.session_hours and isinstance(issued, (int, float)) and time.time() - issued > settings.session_hours * 3600:
        st.logout()  # a sign-in older than session_hours: the provider is asked again
    if _KEY not in st.session_state:
        user = str(st.user.get("email") or st.user.get("sub"))
        groups = _groups(st.user.get(settings.groups_claim))
        st.session_state[_KEY] = principal = AccessPolicy.in_force(settings).principal(user, groups)
        audit("login", principal.user, method="oidc", groups=sorted(principal.groups))
    return st.session_state[_KEY]


def signed_in(settings: Settings, audit) -> Principal:
    """Who is signed in; draws the sign-in (or the refusal) and stops the page otherwise.
    ``audit(event, user, **fields)`` records sign-ins."""
    mode = auth_mode(settings)
    if mode == "none":
        st.warning("Open mode (MITRA_AUTH=none): no sign-in, anyone who reaches this address reads every analysis.",
                   icon=":material/lock_open:")
        return Principal.operator("anonymous")
    if mode == "unconfigured":
        _refuse(settings)
    if mode == "oidc":
        return _oidc_principal(settings, audit)
    if _KEY not in st.session_state and _resumed(settings, audit) is None:
        _write_cookie(settings)  # after a sign-out: the cookie is removed
        _local_sign_in(settings, audit)
    _write_cookie(settings)
    return st.session_state[_KEY]


def sign_out(settings: Settings, audit) -> None:
    """Forget the session's principal (and its conversation); OIDC also ends the login."""
    principal = st.session_state.get(_KEY)
    if principal is not None:
        audit("logout", principal.user)
    Sessions(settings).revoke(st.session_state.get(_TOKEN))
    for key in list(st.session_state):
        del st.session_state[key]
    st.session_state[_SET_COOKIE] = ""
    if auth_mode(settings) == "oidc":
        st.logout()


def sidebar_account(principal: Principal, settings: Settings, audit) -> None:
    """Who is signed in, and the sign-out button (not in open mode: nobody signed in)."""
    if principal.open:
        return
    with st.sidebar:
        groups = ", ".join(sorted(principal.groups)) or "no groups"
        st.caption(f":material/person: {principal.user} · {groups}" + (" · admin" if principal.admin else ""))
        st.button("Sign out", icon=":material/logout:", on_click=sign_out, args=(settings, audit), key="sign-out")


def admin_refusal(settings: Settings) -> str:
    """What a member who is not an admin reads on an admin page: how the right is granted."""
    return (
        "This page is for admins only. An admin grants the right with `mitra users admin NAME` "
        "(or `mitra users add NAME --admin`) for a local user, or by adding one of the member's "
        f"groups to `admins:` in the access policy ({settings.policy_path}); then sign in again."
    )


def require_admin(principal: Principal, settings: Settings) -> None:
    """Stops an admin-only page for anyone else, saying how the right is granted."""
    if not principal.admin:
        st.error(admin_refusal(settings), icon=":material/admin_panel_settings:")
        st.stop()
