"""`RedisFeed`: tool-list changes carried between gateway replicas on a Redis pub/sub channel."""

from __future__ import annotations

import json
import logging
import secrets
from typing import Any

import anyio
import redis
import redis.asyncio

from ._feed import Deliver

__all__ = ["RedisFeed"]

logger = logging.getLogger("toolscout.gateway")


class RedisFeed:
    """Changes on the Redis channel ``<prefix>:changes``: ``{"origin": replica, "session": id}``.

    Each replica skips its own messages (it told its clients already). The listener reconnects
    with a backoff when Redis goes away, or goes silent: after `ping_every_s` without a message it
    pings, and a link that stays silent for another `ping_every_s` (a network partition leaves no
    reset to read) counts as lost. Changes published meanwhile are lost (the client sees the
    revealed tools on its next ``tools/list`` anyway).
    """

    def __init__(self, url: str, *, timeout_s: float, prefix: str = "toolscout", ping_every_s: float = 15.0) -> None:
        """Connect lazily to `url`; a publish waits at most `timeout_s`."""
        self.channel = f"{prefix}:changes"
        self.origin = secrets.token_hex(8)
        self.timeout_s = timeout_s
        self.ping_every_s = ping_every_s
        self._publisher: Any = redis.asyncio.Redis.from_url(
            url, socket_timeout=timeout_s, socket_connect_timeout=timeout_s
        )
        self._listener: Any = redis.asyncio.Redis.from_url(url, socket_connect_timeout=timeout_s)

    async def publish(self, session_id: str) -> None:
        """Publish the change; a slow or failing Redis costs at most `timeout_s` and a warning."""
        message = json.dumps({"origin": self.origin, "session": session_id})
        try:
            with anyio.fail_after(self.timeout_s):
                await self._publisher.publish(self.channel, message)
        except (TimeoutError, OSError, redis.RedisError) as exc:
            logger.warning("could not tell the other replicas about a tool-list change: %s", str(exc) or "timed out")

    async def run(self, deliver: Deliver) -> None:
        """Listen on the channel until cancelled, reconnecting after 0.5 s, doubling up to 30 s."""
        backoff = 0.5
        while True:
            try:
                async with self._listener.pubsub(ignore_subscribe_messages=True) as pubsub:
                    await pubsub.subscribe(self.channel)
                    backoff = 0.5
                    await self._listen(pubsub, deliver)
            except (OSError, redis.RedisError, TimeoutError) as exc:
                logger.warning("tool-list changes of other replicas: %s; retrying in %g s", exc, backoff)
                await anyio.sleep(backoff)
                backoff = min(backoff * 2, 30.0)

    async def _listen(self, pubsub: Any, deliver: Deliver) -> None:
        """Deliver messages until the link fails or stays silent through a ping (then raise)."""
        heard = anyio.current_time()
        while True:
            message = await pubsub.get_message(timeout=self.ping_every_s / 2)
            now = anyio.current_time()
            if message is not None:
                heard = now  # a message or the answer to a ping: the link is alive
                session_id = self._session_of(message)
                if session_id is not None:
                    await deliver(session_id)
            elif now - heard >= 2 * self.ping_every_s:
                raise redis.ConnectionError(f"no answer from Redis for {now - heard:.0f} s, not even to a ping")
            elif now - heard >= self.ping_every_s:
                with anyio.fail_after(self.timeout_s):
                    await pubsub.ping()

    async def aclose(self) -> None:
        """Close both connections."""
        await self._publisher.aclose()
        await self._listener.aclose()

    def _session_of(self, message: object) -> str | None:
        """The session a message from another replica names (None: ours, or not a change)."""
        if not isinstance(message, dict) or message.get("type") != "message":
            return None
        try:
            body = json.loads(message["data"])
        except (ValueError, TypeError):
            return None
        if not isinstance(body, dict) or body.get("origin") == self.origin:
            return None
        session_id = body.get("session")
        return session_id if isinstance(session_id, str) else None
