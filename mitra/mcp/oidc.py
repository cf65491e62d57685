"""The OIDC bearer tokens of the app's provider, checked for ``mitra mcp --http``.

A JWT (an ID token, or a provider's JWT access token) is checked here against the
provider's published keys: its signature (asymmetric algorithms only), issuer, expiry and
audience (the app's client id unless ``mcp_oidc_audience`` names another). An opaque
access token cannot be read here, so the provider's userinfo endpoint is asked who it
belongs to (and its answer kept a minute, so an agent's burst of calls costs one request).
Either way the member is named and grouped as the app names them (``mitra.ui.auth``).
"""

from __future__ import annotations

import hashlib
import threading
import time
import tomllib
from pathlib import Path
from typing import TYPE_CHECKING

import httpx
import jwt

if TYPE_CHECKING:
    from mitra.core.settings import Settings

APP_SECRETS = Path(".streamlit/secrets.toml")  # where the app (streamlit run) finds its [auth] section
_ASYMMETRIC = {"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}
_USERINFO_TTL_S = 60.0


def provider(settings: "Settings") -> tuple[str, str | None] | None:
    """(discovery URL, audience) of the provider whose tokens are accepted: the settings', else the
    app's [auth] section; None where neither names one."""
    if settings.mcp_oidc_metadata_url:
        return settings.mcp_oidc_metadata_url, settings.mcp_oidc_audience
    if not APP_SECRETS.is_file():
        return None
    section = tomllib.loads(APP_SECRETS.read_text(encoding="utf-8")).get("auth") or {}
    url = section.get("server_metadata_url")
    return (url, settings.mcp_oidc_audience or section.get("client_id")) if url else None


def member_name(claims: dict) -> str:
    return str(claims.get("email") or claims.get("sub"))


def groups_of(claim: object) -> list[str]:
    """A token's groups claim: a list, or one comma- or space-separated string."""
    if isinstance(claim, str):
        return claim.replace(",", " ").split()
    return [str(g) for g in claim] if isinstance(claim, (list, tuple)) else []


class OidcTokens:
    """The claims of a bearer token the provider at ``metadata_url`` issued, or None."""

    def __init__(self, metadata_url: str, audience: str | None):
        self.metadata_url, self.audience = metadata_url, audience
        self._metadata: dict | None = None
        self._keys: jwt.PyJWKClient | None = None
        self._seen: dict[str, tuple[float, dict | None]] = {}  # userinfo answers, by the token's hash
        self._lock = threading.Lock()

    def metadata(self) -> dict:
        with self._lock:
            if self._metadata is None:
                self._metadata = httpx.get(self.metadata_url, timeout=10).raise_for_status().json()
                self._keys = jwt.PyJWKClient(self._metadata["jwks_uri"], cache_keys=True, timeout=10)
            return self._metadata

    def claims(self, token: str) -> dict | None:
        try:
            return self._jwt(token) if token.count(".") == 2 else self._userinfo(token)
        except (jwt.PyJWTError, httpx.HTTPError, KeyError, ValueError):
            return None  # forged, expired, for another audience, or the provider is unreachable: refused

    def _jwt(self, token: str) -> dict | None:
        if self.audience is None:
            return None  # a JWT for any client of the provider would do: refuse rather than guess
        metadata = self.metadata()
        algorithms = sorted(_ASYMMETRIC & set(metadata.get("id_token_signing_alg_values_supported", ["RS256"])))
        kid = jwt.get_unverified_header(token).get("kid")
        if kid is not None:
            key = self._keys.get_signing_key(kid).key
        else:  # a provider with one key may not name it: that key, and only when it is the only one
            keys = self._keys.get_signing_keys()
            if len(keys) != 1:
                return None
            key = keys[0].key
        return jwt.decode(token, key, algorithms=algorithms, audience=self.audience, issuer=metadata["issuer"],
                          options={"require": ["exp", "iss", "sub"]})

    def _userinfo(self, token: str) -> dict | None:
        digest = hashlib.sha256(token.encode()).hexdigest()
        now = time.monotonic()
        with self._lock:
            self._seen = {k: v for k, v in self._seen.items() if now - v[0] < _USERINFO_TTL_S}
            if digest in self._seen:
                return self._seen[digest][1]
        response = httpx.get(self.metadata()["userinfo_endpoint"], headers={"Authorization": f"Bearer {token}"},
                             timeout=10)
        claims = response.json() if response.status_code == 200 else None
        if claims is not None and "sub" not in claims:
            claims = None
        with self._lock:
            self._seen[digest] = (now, claims)
        return claims
