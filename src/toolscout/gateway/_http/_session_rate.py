"""``/mcp``: at most ``new_sessions_per_minute`` new sessions (MCP sessions, ``Toolscout-Session`` ids) per token.

Opening a session costs the gateway far more than a request in one (the SDK starts a task group,
streams and a server loop for each), so a client opening sessions in a loop slows every other
client down long before ``max_sessions_per_token`` closes any of them. Each token (a caller without
one: each client address) has a bucket of `per_minute` sessions that refills at `per_minute` a
minute. An ``initialize`` request (a ``POST`` without a session id whose JSON-RPC method, as the
parsed JSON reads it whatever escapes spell it, is ``initialize``: the only request that opens an
MCP session), or a ``POST`` naming a ``Toolscout-Session`` id the caller has not used lately,
arriving while its bucket is empty gets ``429 Too Many Requests`` with ``Retry-After`` before the
SDK parses it; an ``initialize`` allowed through is marked (`OPENS_SESSION`) for `SessionCap`. A
``POST`` without a session id on the 2025 wire (no ``MCP-Protocol-Version``, or a handshake version)
can only succeed by opening a session, so one from a caller whose bucket is empty is refused before
its body is read or parsed: a flood of them costs the gateway little more than its headers. A
caller refused again within `_AGAIN_S` of its last refusal (it ignores ``Retry-After``) gets that
refusal only after up to `_HOLD_S`, so each of its connections costs the gateway a request a second
or so, not as many as it can send, and other callers' requests are not queued behind the flood.
Reading a body to tell stops at the body limit (``413``), so a body without a length never buffers
more than that. Other requests never count, and no caller's bucket touches another's.
"""

from __future__ import annotations

import json
import math
import time
from collections import OrderedDict

import anyio.to_thread
from mcp.server.streamable_http import MCP_SESSION_ID_HEADER
from mcp.shared.inbound import MCP_PROTOCOL_VERSION_HEADER
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from starlette.types import ASGIApp, Receive, Scope, Send

from .._sessions import SESSION_HEADER
from ._bodies import json_error, read_body, too_large
from ._session_cap import OPENS_SESSION, caller_key, header_value, token_label

__all__ = ["SessionRate"]

_MAX_IDLE_BUCKETS = 10_000
_SCAN_IN_THREAD_BYTES = 64 << 10
_AGAIN_S = 2.0  # a caller refused again within this many seconds of its last refusal is held back
_HOLD_S = 1.0  # at most this long (less when its bucket refills sooner)


class SessionRate:
    """Wraps the ``/mcp`` app; answers ``429`` to a caller opening sessions faster than `per_minute` (module docs)."""

    def __init__(self, app: ASGIApp, per_minute: int, body_limit: int, known_ids: int = 1_000) -> None:
        self._app = app
        self._per_minute = per_minute
        self._body_limit = body_limit
        self._known_ids = known_ids
        self._buckets: dict[str, tuple[float, float]] = {}  # caller -> (sessions left, when counted)
        self._named: dict[str, OrderedDict[str, None]] = {}  # caller -> the Toolscout-Session ids it used lately
        self._pruned = 0.0
        self._refused: dict[str, float] = {}  # caller -> when it was last refused

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self._app(scope, receive, send)
            return
        caller = caller_key(scope)
        named = header_value(scope, SESSION_HEADER.encode())
        known = self._named.get(caller)
        new_name = named is not None and (known is None or named not in known)
        if named is not None and known is not None and not new_name:
            known.move_to_end(named)  # in use: the last to be forgotten
        in_session = header_value(scope, MCP_SESSION_ID_HEADER.encode()) is not None
        if in_session and not new_name:
            await self._app(scope, receive, send)
            return
        initializes = False
        wait_s = self._wait(caller) if not in_session and _handshake_wire(scope) else 0.0
        if not wait_s and not in_session:
            read = await read_body(receive, self._body_limit)
            if read is None:  # the client is gone
                return
            if isinstance(read, int):
                await too_large(send, self._body_limit, read, declared=False)
                return
            body, receive = read
            if len(body) > _SCAN_IN_THREAD_BYTES:  # a large call: its scan would stall every other client's answer
                initializes = await anyio.to_thread.run_sync(_initializes, body)
            else:
                initializes = _initializes(body)
        if not wait_s:
            wait_s = self._take(caller) if initializes or new_name else 0.0
        if wait_s == 0.0:
            if new_name and named is not None:
                self._remember(caller, named)
            await self._app({**scope, OPENS_SESSION: initializes}, receive, send)
            return
        label = token_label(scope)
        who = f"token {label!r}" if label else "this client address"
        retry = math.ceil(wait_s)
        message = (
            f"{who} opened new_sessions_per_minute ({self._per_minute}) new sessions (MCP sessions or "
            f"Toolscout-Session ids) within the last minute; retry in {retry} s, or keep using a session you have"
        )
        last = self._refused.pop(caller, None)
        if last is not None and time.monotonic() - last < _AGAIN_S:  # it ignores Retry-After: hold it back
            await anyio.sleep(min(wait_s, _HOLD_S))
        self._refused[caller] = time.monotonic()  # the most recently refused caller last
        if len(self._refused) > _MAX_IDLE_BUCKETS:
            del self._refused[next(iter(self._refused))]
        await json_error(send, 429, message, [(b"retry-after", str(retry).encode())])

    def _remember(self, caller: str, name: str) -> None:
        """Note `name` as a session id `caller` uses (its `known_ids` most recent ones are kept)."""
        names = self._named.pop(caller, None) or OrderedDict()
        self._named[caller] = names  # the most recently active caller last
        names[name] = None
        if len(names) > self._known_ids:
            names.popitem(last=False)
        if len(self._named) > _MAX_IDLE_BUCKETS:
            del self._named[next(iter(self._named))]

    def _wait(self, caller: str) -> float:
        """The seconds until `caller`'s bucket holds a session (0: it holds one now); takes nothing."""
        left, counted = self._buckets.get(caller, (float(self._per_minute), 0.0))
        left += (time.monotonic() - counted) * self._per_minute / 60
        return 0.0 if left >= 1 else (1 - left) * 60 / self._per_minute

    def _take(self, caller: str) -> float:
        """Take one session from `caller`'s bucket: 0 if there was one, else the seconds until there is."""
        now = time.monotonic()
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
        """Drop buckets refilled to the brim (the same as none) once there are many, at most once a second."""
        if len(self._buckets) <= _MAX_IDLE_BUCKETS or now - self._pruned < 1.0:
            return
        self._pruned = now
        refill_s = 60.0  # an untouched bucket is full again after a minute
        self._buckets = {
            caller: (left, counted) for caller, (left, counted) in self._buckets.items() if now - counted < refill_s
        }


def _handshake_wire(scope: Scope) -> bool:
    """Whether the SDK serves this request on the 2025 wire, where a request without a session opens one or fails."""
    version = header_value(scope, MCP_PROTOCOL_VERSION_HEADER.lower().encode())
    return version is None or version in HANDSHAKE_PROTOCOL_VERSIONS


def _initializes(body: bytes) -> bool:
    """Whether a JSON-RPC body (a message or a batch) holds an ``initialize`` request.

    Decided on the parsed JSON, so a method (or key) spelled with JSON escapes counts as what it reads.
    """
    if b'"initialize"' not in body and b"\\" not in body:  # the cheap test first: unescaped, it must be spelled so
        return False
    try:
        parsed = json.loads(body)
    except ValueError:
        return False
    messages = parsed if isinstance(parsed, list) else [parsed]
    return any(isinstance(message, dict) and message.get("method") == "initialize" for message in messages)
