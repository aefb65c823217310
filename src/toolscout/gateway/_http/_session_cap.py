"""``/mcp``: at most ``max_sessions_per_token`` open MCP sessions per bearer token (per client address without one).

One client that opens sessions without end would otherwise fill the SDK's session table (10,000
sessions, each kept until 30 minutes idle) and lock every other client out with 503s. Sessions
are counted per token; past the limit the token's least recently used session is closed through
the SDK's own path, a ``DELETE`` of that session with the credentials that opened it, so the
gateway ends it (and removes its outputs) as if its client had. That client gets 404 on its next
request and, as the MCP specification asks, opens a new session. Other tokens' sessions are never
touched.

Callers without a token (a gateway without ``toolscout.auth``) are counted per client address, and
one past the limit is refused with ``429`` instead: clients on one machine share an address, so
closing the least recently used session would let one local client close another's. A session
no request has used for the SDK's idle timeout (30 minutes) is no longer counted: the SDK has
closed it. Whether a request opens a session is decided by `SessionRate` on the parsed body
(`OPENS_SESSION`).
"""

from __future__ import annotations

import logging
import time
from collections import OrderedDict

from mcp.server.streamable_http import MCP_SESSION_ID_HEADER
from mcp.server.streamable_http_manager import DEFAULT_SESSION_IDLE_TIMEOUT
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .._identity import grant_of
from ._bodies import json_error

__all__ = ["OPENS_SESSION", "SessionCap", "caller_key", "header_value", "token_label"]

logger = logging.getLogger("toolscout.gateway")

OPENS_SESSION = "toolscout.opens_session"
"""Request scope key: True when the request is an ``initialize`` (set by `SessionRate` from the parsed body)."""

_NO_TOKEN = ""
_BODY_HEADERS = frozenset({b"content-length", b"content-type", b"transfer-encoding"})


class SessionCap:
    """Wraps the ``/mcp`` app; keeps each caller to `limit` open sessions (module docs)."""

    def __init__(self, app: ASGIApp, limit: int, idle_s: float = DEFAULT_SESSION_IDLE_TIMEOUT) -> None:
        self._app = app
        self._limit = limit
        self._idle_s = idle_s
        self._open: dict[str, OrderedDict[str, tuple[Scope, float]]] = {}  # caller -> session -> (opener, last used)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        caller = caller_key(scope)
        asked = header_value(scope, MCP_SESSION_ID_HEADER.encode())
        tokenless = not token_label(scope)
        if asked is None and tokenless and scope.get(OPENS_SESSION) and self._full(caller):
            message = (
                f"this client address holds max_sessions_per_token ({self._limit}) open MCP sessions; close one "
                "you no longer use (DELETE) or keep using it"
            )
            await json_error(send, 429, message)
            return
        status = 0

        async def watch(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":  # noted before the client can see the answer
                status = message["status"]
                opened = header_value(message, MCP_SESSION_ID_HEADER.encode()) if asked is None else None
                if opened is not None and status < 400:
                    self._open.setdefault(caller, OrderedDict())[opened] = (scope, time.monotonic())
                elif asked is not None and (scope["method"] == "DELETE" or status == 404):
                    self._forget(caller, asked)
            await send(message)

        await self._app(scope, receive, watch)
        sessions = self._open.get(caller)
        if sessions is None:
            return
        if asked is not None and asked in sessions:
            sessions[asked] = (sessions[asked][0], time.monotonic())
            sessions.move_to_end(asked)
        if asked is None and not tokenless:
            while len(sessions) > self._limit:
                victim, (opener, _) = sessions.popitem(last=False)
                logger.warning(
                    "token %r holds more than max_sessions_per_token (%d) MCP sessions: closing its least "
                    "recently used one",
                    token_label(scope),
                    self._limit,
                )
                await self._close(victim, opener)
        if not sessions:
            del self._open[caller]

    def _forget(self, caller: str, session_id: str) -> None:
        sessions = self._open.get(caller)
        if sessions is not None:
            sessions.pop(session_id, None)

    def _full(self, caller: str) -> bool:
        """Whether `caller` holds `limit` sessions, once those the SDK closed as idle are forgotten."""
        sessions = self._open.get(caller)
        if sessions is None:
            return False
        idle_since = time.monotonic() - self._idle_s
        while sessions and next(iter(sessions.values()))[1] < idle_since:
            sessions.popitem(last=False)
        return len(sessions) >= self._limit

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


def caller_key(scope: Scope) -> str:
    """Whose share a request counts in: its token's, else its client address's."""
    label = token_label(scope)
    if label:
        return f"token:{label}"
    client = scope.get("client")
    return f"address:{client[0] if client else ''}"


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
