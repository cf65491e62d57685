"""Credentials and saved portal sessions for the crawler.

Credentials come from the environment variables a profile names, or from a netrc-style
file; they are held as ``SecretStr`` and never logged or written. Session cookies are
saved per profile under ``settings.data_dir/sessions/`` (mode 0600) so that a rerun does
not log in again; ``import_cookies`` fills that file from a browser export, for SSO with
two-factor login that a headless browser cannot pass.
"""

from __future__ import annotations

import datetime as dt
import http.cookiejar
import json
import netrc
import os
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from pydantic import BaseModel, SecretStr, ValidationError

from ingest.sources.profiles import SiteProfile
from mitra.core.errors import MitraError
from mitra.core.settings import Settings


class CredentialsError(MitraError):
    """No credentials for a profile, or an unreadable netrc file."""


class CookieImportError(MitraError, ValueError):
    """A cookie export that cannot be read or holds nothing for the portal."""


class Credentials(BaseModel):
    username: str
    password: SecretStr


def resolve_credentials(profile: SiteProfile, base_url: str) -> Credentials:
    source = profile.credentials
    user = os.environ.get(source.user_env) if source.user_env else None
    password = os.environ.get(source.password_env) if source.password_env else None
    if user and password:
        return Credentials(username=user, password=password)
    machine = source.netrc_machine or urlsplit(base_url).hostname or ""
    path = (source.netrc or Path(os.environ.get("NETRC", "~/.netrc"))).expanduser()
    if path.is_file():
        try:
            entry = netrc.netrc(path).authenticators(machine)
        except netrc.NetrcParseError as exc:
            raise CredentialsError(f"cannot read {path}: {exc.msg} (line {exc.lineno})") from exc
        if entry and entry[2]:
            return Credentials(username=user or entry[0], password=password or entry[2])
    wanted = " and ".join(f"${v}" for v in (source.user_env, source.password_env) if v) or "credentials"
    raise CredentialsError(
        f"no credentials for profile {profile.name!r}: set {wanted}, or add `machine {machine}` to {path}"
    )


# ---------------------------------------------------------------------------- saved sessions


class SavedSession(BaseModel):
    profile: str
    saved_at: dt.datetime
    cookies: list[dict[str, Any]]  # WebDriver cookie dicts: name, value, domain, path, expiry, ...


def session_path(settings: Settings, profile: SiteProfile) -> Path:
    return settings.data_dir / "sessions" / f"{profile.name}.json"


def save_session(path: Path, profile: SiteProfile, cookies: list[dict[str, Any]]) -> None:
    """Write the cookies readable by the owner only (they are as good as a password)."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    session = SavedSession(profile=profile.name, saved_at=dt.datetime.now(dt.timezone.utc), cookies=cookies)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.fchmod(fd, 0o600)  # O_CREAT's mode does not apply to a file that already existed
    with os.fdopen(fd, "w") as f:
        f.write(session.model_dump_json(indent=2))


def load_session(path: Path) -> list[dict[str, Any]]:
    """Saved cookies, or none when there is no usable file (the crawler then logs in)."""
    try:
        return SavedSession.model_validate_json(path.read_text()).cookies
    except (OSError, ValidationError):
        return []


def domain_matches(cookie_domain: str, host: str) -> bool:
    domain = cookie_domain.lstrip(".").lower()
    return host == domain or host.endswith("." + domain)


def _from_json(data: Any) -> list[dict[str, Any]]:
    """Browser-extension exports: a list (or {"cookies": [...]}) with expirationDate or expiry."""
    items = data.get("cookies", []) if isinstance(data, dict) else data
    if not isinstance(items, list) or not all(isinstance(c, dict) and "name" in c and "value" in c for c in items):
        raise CookieImportError("a JSON cookie export must be a list of objects with `name` and `value`")
    cookies = []
    for c in items:
        cookie = {"name": c["name"], "value": c["value"], "domain": c.get("domain", ""), "path": c.get("path", "/"),
                  "secure": bool(c.get("secure", False)), "httpOnly": bool(c.get("httpOnly", False))}
        expiry = c.get("expirationDate", c.get("expiry", c.get("expires")))
        if isinstance(expiry, (int, float)) and expiry > 0:
            cookie["expiry"] = int(expiry)
        cookies.append(cookie)
    return cookies


def _from_netscape(path: Path) -> list[dict[str, Any]]:
    jar = http.cookiejar.MozillaCookieJar(str(path))
    try:
        jar.load(ignore_discard=True, ignore_expires=True)
    except http.cookiejar.LoadError as exc:
        raise CookieImportError(f"{path} is neither a Netscape cookies.txt nor a JSON export: {exc}") from exc
    return [
        {"name": c.name, "value": c.value or "", "domain": c.domain, "path": c.path, "secure": c.secure,
         "httpOnly": c.has_nonstandard_attr("HttpOnly"), **({"expiry": int(c.expires)} if c.expires else {})}
        for c in jar
    ]


def read_cookie_export(path: Path) -> list[dict[str, Any]]:
    """Cookies from a Netscape ``cookies.txt`` or a JSON export, as WebDriver cookie dicts."""
    text = path.read_text()
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return _from_netscape(path)
    return _from_json(data)


def import_cookies(source: Path, profile: SiteProfile, settings: Settings, base_url: str) -> int:
    """Save the unexpired cookies of ``source`` that belong to the portal's host; returns how many."""
    host = urlsplit(base_url).hostname or ""
    now = dt.datetime.now(dt.timezone.utc).timestamp()
    cookies = read_cookie_export(source)
    usable = [c for c in cookies if domain_matches(c["domain"] or host, host) and c.get("expiry", now + 1) > now]
    if not usable:
        raise CookieImportError(f"none of the {len(cookies)} cookies in {source} is an unexpired cookie for {host}")
    save_session(session_path(settings, profile), profile, usable)
    return len(usable)
