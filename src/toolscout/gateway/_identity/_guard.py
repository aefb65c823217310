"""The HTTP side of identity: each request authenticated once, and protected paths refused without a grant.

`Guard.middleware` asks the `Authenticator` about every request's credentials and leaves the
answer in the ASGI scope: the `Grant` (read back with `grant_of`) and, for the SDK's session
manager, which lets a session be used only by the principal that opened it, an
`AuthenticatedUser`. `Guard.protect` wraps the paths that need a grant: a request without one gets
``401`` (``403`` for credentials that reach nothing, ``503`` when they cannot be checked now) with
a ``WWW-Authenticate: Bearer`` challenge (RFC 6750) carrying the scheme's parameters, such as where
its protected resource metadata is (RFC 9728). Without ``toolscout.auth`` the guard lets everything through.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from starlette.authentication import AuthCredentials, UnauthenticatedUser
from starlette.middleware import Middleware
from starlette.requests import HTTPConnection
from starlette.routing import BaseRoute
from starlette.types import ASGIApp, Receive, Scope, Send

from ._auth import AuthSettings
from ._grants import GRANT_KEY, Authenticator, Credentials, Grant, Refusal, authenticator_for

__all__ = ["Guard"]

_REFUSAL_KEY = "toolscout.refusal"
_MISSING = Refusal(description="Authentication required")


class Guard:
    """Authentication for the HTTP app of one gateway (module docs)."""

    def __init__(self, auth: AuthSettings | None) -> None:
        """Authenticate by the schemes of `auth`; None: no authentication at all."""
        self._authenticator = None if auth is None else authenticator_for(auth.sections())

    @property
    def middleware(self) -> list[Middleware]:
        """The middleware that authenticates every request (none without auth)."""
        if self._authenticator is None:
            return []
        return [Middleware(_Authenticating, authenticator=self._authenticator)]

    @property
    def routes(self) -> Sequence[BaseRoute]:
        """The schemes' own routes (the protected resource metadata), served to everyone."""
        return self._authenticator.routes if self._authenticator is not None else ()

    def protect(self, app: ASGIApp) -> ASGIApp:
        """`app`, answered only for requests with a grant."""
        if self._authenticator is None:
            return app
        return _RequireGrant(app, self._authenticator)


class _Authenticating:
    def __init__(self, app: ASGIApp, authenticator: Authenticator) -> None:
        self._app = app
        self._authenticator = authenticator

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            scope["user"], scope["auth"] = UnauthenticatedUser(), AuthCredentials()
            answer = await self._authenticator.authenticate(_credentials(HTTPConnection(scope)))
            if isinstance(answer, Grant):
                scope[GRANT_KEY] = answer
                scope["user"] = AuthenticatedUser(_access_token(answer))
            elif isinstance(answer, Refusal):
                scope[_REFUSAL_KEY] = answer
        await self._app(scope, receive, send)


class _RequireGrant:
    def __init__(self, app: ASGIApp, authenticator: Authenticator) -> None:
        self._app = app
        self._authenticator = authenticator

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if isinstance(scope.get(GRANT_KEY), Grant):
            await self._app(scope, receive, send)
            return
        refusal = scope.get(_REFUSAL_KEY)
        await _refuse(send, refusal if isinstance(refusal, Refusal) else _MISSING, self._authenticator)


def _credentials(connection: HTTPConnection) -> Credentials:
    headers = {key.lower(): value for key, value in connection.headers.items()}
    scheme, _, token = headers.get("authorization", "").partition(" ")
    bearer = token.strip() if scheme.lower() == "bearer" and token.strip() else None
    return Credentials(bearer=bearer, headers=headers)


def _access_token(grant: Grant) -> AccessToken:
    """What the SDK compares to tell principals apart: the label, and the issuer and subject of an access token."""
    claims = {"iss": grant.issuer} if grant.issuer is not None else None
    return AccessToken(token="[redacted]", client_id=grant.label, scopes=[], subject=grant.subject, claims=claims)


async def _refuse(send: Send, refusal: Refusal, authenticator: Authenticator) -> None:
    body = json.dumps({"error": refusal.error, "error_description": refusal.description}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if refusal.status != 503:
        parameters = {"error": refusal.error, "error_description": refusal.description}
        if refusal.scope:
            parameters["scope"] = refusal.scope
        parameters.update(authenticator.challenge)
        challenge = ", ".join(f'{name}="{_quoted(value)}"' for name, value in parameters.items())
        headers.append((b"www-authenticate", f"Bearer {challenge}".encode()))
    else:
        headers.append((b"retry-after", b"5"))
    await send({"type": "http.response.start", "status": refusal.status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def _quoted(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')
