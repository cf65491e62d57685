"""Who makes an MCP call: over stdio the member the server was started for; over HTTP the
member a bearer token names, checked on every request (``MitraTokens``), so a revoked token
is refused from the next request on and nobody calls anonymously (a member's groups, and
their removal, reach a running server within ``recent.KEPT_S``)."""

from __future__ import annotations

from dataclasses import dataclass

import anyio.to_thread
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken

from mitra.access.policy import AccessPolicy, Principal
from mitra.access.tokens import PREFIX, ApiTokens
from mitra.access.users import UsersError, member
from mitra.core.errors import MitraError
from mitra.core.settings import Settings
from mitra.mcp.oidc import OidcTokens, groups_of, member_name, provider
from mitra.mcp.recent import Recent


@dataclass(frozen=True)
class Caller:
    principal: Principal
    via: str  # "stdio", "token" (an API token) or "oidc"
    key: str  # what the rate limit counts calls by: the token, the OIDC subject, the stdio member


def stdio_caller(settings: Settings, name: str) -> Caller:
    return Caller(member(settings, name), "stdio", f"stdio:{name}")


def http_caller() -> Caller:
    """The caller of the current HTTP request, as ``MitraTokens`` verified it."""
    token = get_access_token()
    if token is None or not token.claims:
        raise MitraError("not signed in: send an API token or an OIDC token as a bearer token")
    claims = token.claims
    return Caller(Principal(user=claims["user"], groups=frozenset(claims["groups"]), admin=claims["admin"]),
                  claims["via"], token.client_id)


class MitraTokens:
    """The SDK's ``TokenVerifier``: a member's API token (``mitra users token issue``), else
    an OIDC token of the app's provider; anything else is refused (HTTP 401)."""

    def __init__(self, settings: Settings):
        self.settings = settings
        self.tokens = ApiTokens.open(settings)
        self.members: Recent[Principal] = Recent()
        found = provider(settings)
        self.oidc = OidcTokens(*found) if found else None

    async def verify_token(self, token: str) -> AccessToken | None:
        return await anyio.to_thread.run_sync(self._verify, token)

    def _verify(self, token: str) -> AccessToken | None:
        if token.startswith(PREFIX):
            record = self.tokens.verify(token)
            if record is None:
                return None
            try:
                principal = self.members.get(record.user, lambda: member(self.settings, record.user))
            except UsersError:
                return None  # the member was removed: their tokens read nothing
            return _access(token, f"token:{record.id}", principal, "token")
        claims = self.oidc.claims(token) if self.oidc else None
        if claims is None:
            return None
        groups = groups_of(claims.get(self.settings.groups_claim))
        principal = self.members.get((member_name(claims), tuple(groups)), lambda: AccessPolicy.in_force(
            self.settings).principal(member_name(claims), groups))
        return _access(token, f"oidc:{claims['sub']}", principal, "oidc")


def _access(token: str, key: str, principal: Principal, via: str) -> AccessToken:
    return AccessToken(token=token, client_id=key, scopes=[], subject=principal.user,
                       claims={"user": principal.user, "groups": sorted(principal.groups), "admin": principal.admin,
                               "via": via})
