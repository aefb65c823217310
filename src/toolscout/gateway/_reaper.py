"""`SessionReaper`: sessions end when idle, when their connection closes, or with their stateless request.

Ending a session deletes its offloaded outputs; a session that can never be used again (its
HTTP connection closed, its one request answered) also loses its discoveries. Durable sessions
(stdio, a chosen ``Toolscout-Session``) keep their discoveries in the store; with an output store
shared by several replicas they are not ended here at all (the store expires their outputs).
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable

import anyio

from ..session import DEFAULT_MAX_SESSIONS
from ._sessions import Lifetime

__all__ = ["SessionReaper"]

logger = logging.getLogger("toolscout.gateway")

_MAX_SWEEP_S = 30.0

EndSession = Callable[[str, bool], Awaitable[None]]
"""Ends a session: ``(session id, also forget its discoveries)``."""


class SessionReaper:
    """Tracks when each session was last used and ends those that went idle or can never come back.

    Args:
        idle_s: Seconds without a request after which a session ends.
        end: Deletes what the session held (its outputs; its discoveries when asked).
        limit: Sessions tracked at once; past it the least recently used one ends.
        ends_durable: False when durable sessions hold nothing this process may end: their outputs live
            in a store shared by every replica, which expires them itself (such sessions are not tracked).
    """

    def __init__(
        self, *, idle_s: float, end: EndSession, limit: int = DEFAULT_MAX_SESSIONS, ends_durable: bool = True
    ) -> None:
        self.idle_s = idle_s
        self._end = end
        self._limit = limit
        self._ends_durable = ends_durable
        self._last_used: OrderedDict[str, tuple[float, bool]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._last_used)

    async def touch(self, session_id: str, lifetime: Lifetime) -> None:
        """Note a request of `session_id` (a stateless request's session is ended by `finished` instead)."""
        if lifetime == "request" or (lifetime == "durable" and not self._ends_durable):
            return
        self._last_used[session_id] = (anyio.current_time(), lifetime == "connection")
        self._last_used.move_to_end(session_id)
        while len(self._last_used) > self._limit:
            victim, (_, connection) = self._last_used.popitem(last=False)
            await self._end_quietly(victim, forget_discoveries=connection)

    async def finished(self, session_id: str, lifetime: Lifetime, *, discovered: bool) -> None:
        """A request of `session_id` was answered: a stateless request's session ends with it."""
        if lifetime == "request":
            await self._end_quietly(session_id, forget_discoveries=discovered)
        else:
            await self.touch(session_id, lifetime)  # idle from the end of its last request on

    async def closed(self, session_id: str) -> None:
        """The connection `session_id` was tied to is closed: the session ends, discoveries too."""
        self._last_used.pop(session_id, None)
        await self._end_quietly(session_id, forget_discoveries=True)

    async def sweep(self) -> None:
        """End every session idle for `idle_s` or longer."""
        deadline = anyio.current_time() - self.idle_s
        while self._last_used:
            session_id, (used, connection) = next(iter(self._last_used.items()))
            if used > deadline:
                break
            del self._last_used[session_id]
            await self._end_quietly(session_id, forget_discoveries=connection)

    async def run(self) -> None:
        """Sweep every ``min(idle_s / 2, 30 s)`` until cancelled."""
        while True:
            await anyio.sleep(min(self.idle_s / 2, _MAX_SWEEP_S))
            await self.sweep()

    async def _end_quietly(self, session_id: str, *, forget_discoveries: bool) -> None:
        try:
            await self._end(session_id, forget_discoveries)
        except Exception as exc:  # boundary: a failed clean-up must never fail a request
            logger.warning("could not end a session cleanly: %s", exc)
