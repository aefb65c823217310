"""`RedisFeed` on a real `redis-server`: replicas hear each other's changes, never their own, and survive a drop."""

from __future__ import annotations

import anyio
import pytest

from toolscout.gateway._feed import Deliver, LocalFeed, open_feed
from toolscout.gateway._redisfeed import RedisFeed

pytestmark = pytest.mark.anyio

LIMIT_S = 30


async def test_a_change_reaches_the_other_replicas_and_not_its_own(redis_url: str) -> None:
    first, second = open_feed(redis_url, timeout_s=2), open_feed(redis_url, timeout_s=2)
    assert isinstance(first, RedisFeed) and isinstance(second, RedisFeed)
    heard: dict[str, list[str]] = {"first": [], "second": []}
    arrived = anyio.Event()

    def recorder(name: str) -> Deliver:
        async def deliver(session_id: str) -> None:
            heard[name].append(session_id)
            arrived.set()

        return deliver

    with anyio.fail_after(LIMIT_S):
        async with anyio.create_task_group() as group:
            group.start_soon(first.run, recorder("first"))
            group.start_soon(second.run, recorder("second"))
            await subscribed(redis_url, listeners=2)
            await first.publish("http:alpha:s:conv-1")
            await arrived.wait()
            group.cancel_scope.cancel()
    await first.aclose()
    await second.aclose()
    assert heard == {"first": [], "second": ["http:alpha:s:conv-1"]}


async def test_a_dropped_listener_reconnects_and_hears_later_changes(redis_url: str) -> None:
    import redis

    first, second = RedisFeed(redis_url, timeout_s=2), RedisFeed(redis_url, timeout_s=2)
    heard: list[str] = []
    arrived = anyio.Event()

    async def deliver(session_id: str) -> None:
        heard.append(session_id)
        arrived.set()

    admin = redis.Redis.from_url(redis_url)
    with anyio.fail_after(LIMIT_S):
        async with anyio.create_task_group() as group:
            group.start_soon(second.run, deliver)
            await subscribed(redis_url, listeners=1)
            admin.execute_command("CLIENT", "KILL", "TYPE", "pubsub")
            await subscribed(redis_url, listeners=1)  # back after its backoff
            await first.publish("after-the-drop")
            await arrived.wait()
            group.cancel_scope.cancel()
    admin.close()
    await first.aclose()
    await second.aclose()
    assert heard == ["after-the-drop"]


async def test_any_other_store_gets_a_local_feed() -> None:
    for spec in (None, "memory", "/var/lib/toolscout/sessions.sqlite3", "sqlite:///x.db"):
        assert isinstance(open_feed(spec, timeout_s=1), LocalFeed)


async def subscribed(redis_url: str, *, listeners: int) -> None:
    """Wait until `listeners` connections subscribe to the change channel."""
    import redis

    admin = redis.Redis.from_url(redis_url)
    try:
        while True:
            counts = dict(admin.pubsub_numsub("toolscout:changes"))
            if counts.get(b"toolscout:changes", 0) >= listeners:
                return
            await anyio.sleep(0.05)
    finally:
        admin.close()
