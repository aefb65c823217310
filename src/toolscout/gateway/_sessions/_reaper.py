"""`SessionReaper`: sessions end when idle, when their connection closes, or with their stateless request.

Ending a session deletes its offloaded outputs; a session that can never be used again (its
HTTP connection closed, its one request answered) also loses its discoveries. Durable sessions
(stdio, a chosen ``Toolscout-Session``) keep their discoveries in the store when they go idle; with
an output store shared by several replicas they are not ended here when idle (the store expires
their outputs).

Each token (grant label) holds a share of the sessions tracked: past `per_token`, its own least
recently used session ends, discoveries too, and past `limit` overall, that of the token holding
the most. So one token using new session ids without end never ends another token's sessions, nor
fills the discovery store (whose own least-recently-used eviction is global) with its own.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import NamedTuple

import anyio

from ...session._internal import DEFAULT_MAX_SESSIONS
from ._callers import Lifetime

__all__ = ["SessionReaper"]

logger = logging.getLogger("toolscout.gateway")

_MAX_SWEEP_S = 30.0

EndSession = Callable[[str, bool], Awaitable[None]]
"""Ends a session: ``(session id, also forget its discoveries)``."""


class _Use(NamedTuple):
    at: float
    connection: bool
    token: str


class SessionReaper:
    """Tracks when each session was last used and ends those that went idle or can never come back.

    Args:
        idle_s: Seconds without a request after which a session ends.
        end: Deletes what the session held (its outputs; its discoveries when asked).
        limit: Sessions tracked at once; past it the least recently used one of the token holding the most ends.
        per_token: Sessions one token may hold; past it its own least recently used one ends (None: no share).
        ends_durable: False when durable sessions hold nothing this process may end when idle: their outputs
            live in a store shared by every replica, which expires them itself.
    """

    def __init__(
        self,
        *,
        idle_s: float,
        end: EndSession,
        limit: int = DEFAULT_MAX_SESSIONS,
        per_token: int | None = None,
        ends_durable: bool = True,
    ) -> None:
        self.idle_s = idle_s
        self._end = end
        self._limit = limit
        self._per_token = per_token
        self._ends_durable = ends_durable
        self._last_used: OrderedDict[str, _Use] = OrderedDict()
        self._of_token: dict[str, OrderedDict[str, None]] = {}

    def __len__(self) -> int:
        return len(self._last_used)

    async def touch(self, session_id: str, lifetime: Lifetime, token: str = "local") -> None:
        """Note a request of `session_id`, made by `token` (a stateless request's session is ended by `finished`)."""
        if lifetime == "request":
            return
        self._untrack(session_id)
        self._last_used[session_id] = _Use(anyio.current_time(), lifetime == "connection", token)
        self._of_token.setdefault(token, OrderedDict())[session_id] = None
        if self._per_token is not None:
            while len(self._of_token[token]) > self._per_token:
                await self._evict(token)
        while len(self._last_used) > self._limit:
            await self._evict(max(self._of_token, key=lambda holder: len(self._of_token[holder])))

    async def finished(self, session_id: str, lifetime: Lifetime, *, discovered: bool, token: str = "local") -> None:
        """A request of `session_id` was answered: a stateless request's session ends with it."""
        if lifetime == "request":
            await self._end_quietly(session_id, forget_discoveries=discovered)
        else:
            await self.touch(session_id, lifetime, token)  # idle from the end of its last request on

    async def closed(self, session_id: str) -> None:
        """The connection `session_id` was tied to is closed: the session ends, discoveries too."""
        self._untrack(session_id)
        await self._end_quietly(session_id, forget_discoveries=True)

    async def sweep(self) -> None:
        """End every session idle for `idle_s` or longer."""
        deadline = anyio.current_time() - self.idle_s
        while self._last_used:
            session_id, use = next(iter(self._last_used.items()))
            if use.at > deadline:
                break
            self._untrack(session_id)
            if use.connection or self._ends_durable:
                await self._end_quietly(session_id, forget_discoveries=use.connection)

    async def run(self) -> None:
        """Sweep every ``min(idle_s / 2, 30 s)`` until cancelled."""
        while True:
            await anyio.sleep(min(self.idle_s / 2, _MAX_SWEEP_S))
            await self.sweep()

    async def _evict(self, token: str) -> None:
        """End `token`'s least recently used session, discoveries too."""
        session_id = next(iter(self._of_token[token]))
        self._untrack(session_id)
        await self._end_quietly(session_id, forget_discoveries=True)

    def _untrack(self, session_id: str) -> None:
        use = self._last_used.pop(session_id, None)
        if use is None:
            return
        sessions = self._of_token[use.token]
        del sessions[session_id]
        if not sessions:
            del self._of_token[use.token]

    async def _end_quietly(self, session_id: str, *, forget_discoveries: bool) -> None:
        try:
            await self._end(session_id, forget_discoveries)
        except Exception as exc:  # boundary: a failed clean-up must never fail a request
            logger.warning("could not end a session cleanly: %s", exc)
