"""``/mcp``: at most ``max_sessions_per_token`` open MCP sessions per bearer token.

One client that opens sessions without end would otherwise fill the SDK's session table (10,000
sessions, each kept until 30 minutes idle) and lock every other client out with 503s. Sessions
are counted per token (callers without a token count as one); past the limit the token's least
recently used session is closed through the SDK's own path, a ``DELETE`` of that session with
the credentials that opened it, so the gateway ends it (and removes its outputs) as if its client
had. That client gets 404 on its next request and, as the MCP specification asks, opens a new
session. Other tokens' sessions are never touched.
"""

from __future__ import annotations

import logging
from collections import OrderedDict

from mcp.server.streamable_http import MCP_SESSION_ID_HEADER
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ._identity import grant_of

__all__ = ["SessionCap", "header_value", "token_label"]

logger = logging.getLogger("toolscout.gateway")

_NO_TOKEN = ""
_BODY_HEADERS = frozenset({b"content-length", b"content-type", b"transfer-encoding"})


class SessionCap:
    """Wraps the ``/mcp`` app; closes a token's least recently used session past `limit` (module docs)."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self._app = app
        self._limit = limit
        self._open: dict[str, OrderedDict[str, Scope]] = {}

    def open_sessions(self, token: str = _NO_TOKEN) -> int:
        """Sessions `token` (the label; "" without a token) holds open, as far as this gateway saw."""
        return len(self._open.get(token, ()))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        sessions = self._open.setdefault(token_label(scope), OrderedDict())
        asked = header_value(scope, MCP_SESSION_ID_HEADER.encode())
        if asked is not None and asked in sessions:
            sessions.move_to_end(asked)
        status = 0

        async def watch(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                opened = header_value(message, MCP_SESSION_ID_HEADER.encode()) if asked is None else None
                if opened is not None and status < 400:
                    sessions[opened] = scope  # before the client can see the id and use it
            await send(message)

        await self._app(scope, receive, watch)
        if asked is not None and (scope["method"] == "DELETE" or status == 404):
            sessions.pop(asked, None)
        if asked is None:
            while len(sessions) > self._limit:
                victim, opener = sessions.popitem(last=False)
                logger.warning(
                    "token %r holds more than max_sessions_per_token (%d) MCP sessions: closing its least "
                    "recently used one",
                    token_label(scope) or "(none)",
                    self._limit,
                )
                await self._close(victim, opener)

    async def _close(self, session_id: str, opener: Scope) -> None:
        """``DELETE`` `session_id` through the app with the headers and credentials of the request that opened it."""
        headers = [(key, value) for key, value in opener["headers"] if key.lower() not in _BODY_HEADERS]
        headers.append((MCP_SESSION_ID_HEADER.encode(), session_id.encode()))
        scope = {**opener, "method": "DELETE", "headers": headers, "query_string": b""}
        sent = False

        async def receive() -> Message:
            nonlocal sent
            if sent:
                return {"type": "http.disconnect"}
            sent = True
            return {"type": "http.request", "body": b"", "more_body": False}

        async def discard(message: Message) -> None:
            return None

        await self._app(scope, receive, discard)


def token_label(scope: Scope) -> str:
    """The label of the grant the request was authenticated with ("" without one)."""
    grant = grant_of(scope)
    return grant.label if grant is not None else _NO_TOKEN


def header_value(holder: Scope | Message, name: bytes) -> str | None:
    """The value of header `name` (lower case) of a request scope or response start message."""
    for key, value in holder.get("headers", ()):
        if key.lower() == name:
            return bytes(value).decode("latin-1")
    return None
