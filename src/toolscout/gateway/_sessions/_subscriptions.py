"""`Subscriptions`: 2025-era ``resources/subscribe`` held upstream once per URI for every client session.

The gateway subscribes upstream when a URI's first session subscribes and unsubscribes when its last one
goes: by ``resources/unsubscribe``, when the session ends (its connection closed), or when a notification
to it finds the connection closed. Each URI has its own lock, held only while that URI's upstream request
runs, so a slow server (or a slow URI) holds up no other. A session holds at most `per_session`
subscriptions; one more is refused with an error naming the limit.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import anyio
from mcp.server.session import ServerSession
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_REQUEST

__all__ = ["Subscriptions", "Upstream"]

logger = logging.getLogger("toolscout.gateway")

Upstream = Callable[[str, str, bool], Awaitable[None]]
"""Sends ``(server, upstream URI, subscribe?)`` upstream: ``resources/subscribe`` or ``resources/unsubscribe``."""


@dataclass(slots=True)
class _Topic:
    """One URI subscribed upstream: its server, its upstream URI and the sessions that hear of it."""

    server: str
    uri: str
    sessions: dict[str, ServerSession] = field(default_factory=dict)


class Subscriptions:
    """Who is subscribed to which namespaced URI, and the upstream subscriptions behind them."""

    def __init__(self, upstream: Upstream, *, per_session: int) -> None:
        """Send subscription requests through `upstream`; a session holds at most `per_session` URIs."""
        self._upstream = upstream
        self.per_session = per_session
        self._topics: dict[str, _Topic] = {}
        self._held: dict[str, set[str]] = {}  # session id -> namespaced URIs held or being subscribed
        self._locks: dict[str, anyio.Lock] = {}

    def sessions(self, shown: str) -> dict[str, ServerSession]:
        """The sessions subscribed to the namespaced URI `shown` (a copy)."""
        topic = self._topics.get(shown)
        return dict(topic.sessions) if topic is not None else {}

    async def subscribe(self, session_id: str, session: ServerSession, shown: str, server: str, uri: str) -> None:
        """Subscribe `session_id` to `shown` (`server`'s `uri`), subscribing upstream if it is the first.

        Raises:
            MCPError: The session already holds `per_session` other URIs, or the upstream refused.
        """
        held = self._held.setdefault(session_id, set())
        if shown not in held and len(held) >= self.per_session:
            raise MCPError(
                INVALID_REQUEST,
                f"resources/subscribe {shown!r} refused: this session already holds {len(held)} subscriptions, "
                f"the most toolscout.max_subscriptions_per_session ({self.per_session}) allows; unsubscribe first",
            )
        added = shown not in held
        held.add(shown)  # counted while the upstream answers: a burst of subscribes cannot pass the limit
        subscribed = False
        try:
            async with self._lock(shown):
                topic = self._topics.get(shown)
                if topic is None:
                    await self._upstream(server, uri, True)
                    topic = self._topics[shown] = _Topic(server, uri)
                topic.sessions[session_id] = session
                subscribed = True
        finally:
            if added and not subscribed:
                self._release_hold(session_id, shown)
            self._drop_lock(shown)

    async def unsubscribe(self, session_id: str, shown: str) -> None:
        """`session_id` stops hearing of `shown`; the last session's going unsubscribes upstream.

        Raises:
            MCPError: The upstream refused the unsubscribe (the gateway forgets the subscription anyway).
        """
        self._release_hold(session_id, shown)
        try:
            async with self._lock(shown):
                topic = self._topics.get(shown)
                if topic is None or topic.sessions.pop(session_id, None) is None or topic.sessions:
                    return
                del self._topics[shown]
                await self._upstream(topic.server, topic.uri, False)
        finally:
            self._drop_lock(shown)

    async def forget(self, session_id: str) -> None:
        """The session ended: release every subscription it held (upstream failures are logged)."""
        for shown in sorted(self._held.get(session_id, ())):
            try:
                await self.unsubscribe(session_id, shown)
            except MCPError as exc:
                logger.warning("could not unsubscribe upstream from %s after its last session ended: %s", shown, exc)

    def __len__(self) -> int:
        """URIs subscribed upstream."""
        return len(self._topics)

    def _release_hold(self, session_id: str, shown: str) -> None:
        held = self._held.get(session_id)
        if held is not None:
            held.discard(shown)
            if not held:
                del self._held[session_id]

    def _lock(self, shown: str) -> anyio.Lock:
        return self._locks.setdefault(shown, anyio.Lock())

    def _drop_lock(self, shown: str) -> None:
        """Forget `shown`'s lock once nothing holds or waits for it."""
        lock = self._locks.get(shown)
        if lock is not None and not lock.locked() and lock.statistics().tasks_waiting == 0:
            del self._locks[shown]
