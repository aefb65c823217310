"""``/mcp``: at most ``new_sessions_per_minute`` new MCP sessions per bearer token.

Opening a session costs the gateway far more than a request in one (the SDK starts a task group,
streams and a server loop for each), so a client opening sessions in a loop slows every other
client down long before ``max_sessions_per_token`` closes any of them. Each token (a caller without
one: each client address) has a bucket of `per_minute` sessions that refills at `per_minute` a
minute. An ``initialize`` request (a ``POST`` without a session id whose JSON-RPC method is
``initialize``: the only request that opens a session) arriving while its bucket is empty gets
``429 Too Many Requests`` with ``Retry-After`` before the SDK parses it. Requests in a session and
sessionless (2026-07-28) requests never count, and no caller's bucket touches another's.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable

from mcp.server.streamable_http import MCP_SESSION_ID_HEADER
from mcp_types import INVALID_REQUEST
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ._session_cap import header_value, token_label

__all__ = ["SessionRate"]

_MAX_IDLE_BUCKETS = 10_000


class SessionRate:
    """Wraps the ``/mcp`` app; answers ``429`` to a caller opening sessions faster than `per_minute` (module docs)."""

    def __init__(self, app: ASGIApp, per_minute: int, clock: Callable[[], float] = time.monotonic) -> None:
        self._app = app
        self._per_minute = per_minute
        self._clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}  # caller -> (sessions left, when counted)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] != "http"
            or scope["method"] != "POST"
            or header_value(scope, MCP_SESSION_ID_HEADER.encode()) is not None
        ):
            await self._app(scope, receive, send)
            return
        body, replay = await _read_body(receive)
        wait_s = self._take(_caller(scope)) if _initializes(body) else 0.0
        if wait_s == 0.0:
            await self._app(scope, replay, send)
            return
        label = token_label(scope)
        who = f"token {label!r}" if label else "this client address"
        retry = math.ceil(wait_s)
        message = (
            f"{who} opened new_sessions_per_minute ({self._per_minute}) MCP sessions within the last minute; "
            f"retry in {retry} s, or keep using a session you have"
        )
        answer = json.dumps({"jsonrpc": "2.0", "id": None, "error": {"code": INVALID_REQUEST, "message": message}})
        headers = [(b"content-type", b"application/json"), (b"retry-after", str(retry).encode())]
        await send({"type": "http.response.start", "status": 429, "headers": headers})
        await send({"type": "http.response.body", "body": answer.encode()})

    def _take(self, caller: str) -> float:
        """Take one session from `caller`'s bucket: 0 if there was one, else the seconds until there is."""
        now = self._clock()
        rate_per_s = self._per_minute / 60
        left, counted = self._buckets.get(caller, (float(self._per_minute), now))
        left = min(float(self._per_minute), left + (now - counted) * rate_per_s)
        if left >= 1:
            self._buckets[caller] = (left - 1, now)
            self._forget_full_buckets(now)
            return 0.0
        self._buckets[caller] = (left, now)
        return (1 - left) / rate_per_s

    def _forget_full_buckets(self, now: float) -> None:
        """Drop buckets refilled to the brim (the same as none) once there are many, so memory stays bounded."""
        if len(self._buckets) <= _MAX_IDLE_BUCKETS:
            return
        refill_s = 60.0
        self._buckets = {
            caller: (left, counted) for caller, (left, counted) in self._buckets.items() if now - counted < refill_s
        }


async def _read_body(receive: Receive) -> tuple[bytes, Receive]:
    """The request body (its size is bounded before this runs), and a `receive` that hands it to the app."""
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return b"".join(chunks), _replaying(b"".join(chunks), message, receive)
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            return b"".join(chunks), _replaying(b"".join(chunks), None, receive)


def _replaying(body: bytes, pending: Message | None, receive: Receive) -> Receive:
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return pending if pending is not None else await receive()

    return replay


def _initializes(body: bytes) -> bool:
    """Whether a JSON-RPC body (a message or a batch) holds an ``initialize`` request."""
    if b'"initialize"' not in body:  # the cheap test first: most bodies are calls
        return False
    try:
        parsed = json.loads(body)
    except ValueError:
        return False
    messages = parsed if isinstance(parsed, list) else [parsed]
    return any(isinstance(message, dict) and message.get("method") == "initialize" for message in messages)


def _caller(scope: Scope) -> str:
    """Whose bucket a request draws on: its token's, else its client address's."""
    label = token_label(scope)
    if label:
        return f"token:{label}"
    client = scope.get("client")
    return f"address:{client[0] if client else ''}"
