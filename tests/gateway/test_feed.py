"""`RedisFeed` on a real `redis-server`: replicas hear each other's changes, never their own, and survive a drop."""

from __future__ import annotations

import anyio
import anyio.abc
import pytest

from toolscout.gateway import ChangeFeed, register_feed
from toolscout.gateway._internal import Deliver
from toolscout.gateway._sessions._feed import LocalFeed, open_feed
from toolscout.gateway._sessions._redisfeed import RedisFeed

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
    heard, arrived, deliver = recording()
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


class FreezingProxy:
    """Forwards TCP connections to a port; `freeze` stalls those open now for good, without closing them.

    A stalled connection is what a network partition leaves: no data, no reset, nothing to read.
    """

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.generation = 0
        self.port = 0

    def freeze(self) -> None:
        self.generation += 1

    async def serve(self, *, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        listener = await anyio.create_tcp_listener(local_host="127.0.0.1")
        self.port = listener.extra(anyio.abc.SocketAttribute.local_port)
        task_status.started()
        await listener.serve(self._forward)

    async def _forward(self, client: anyio.abc.SocketStream) -> None:
        generation = self.generation

        async def pump(source: anyio.abc.SocketStream, target: anyio.abc.SocketStream) -> None:
            async for chunk in source:
                while self.generation != generation:
                    await anyio.sleep(3600)
                await target.send(chunk)

        async with client, await anyio.connect_tcp("127.0.0.1", self.target_port) as server:
            async with anyio.create_task_group() as group:
                group.start_soon(pump, client, server)
                group.start_soon(pump, server, client)


async def test_a_listener_whose_link_goes_silent_reconnects_and_hears_later_changes(redis_url: str) -> None:
    import redis

    proxy = FreezingProxy(int(redis_url.rsplit(":", 1)[1].split("/")[0]))
    heard, arrived, deliver = recording()
    admin = redis.Redis.from_url(redis_url)
    with anyio.fail_after(LIMIT_S):
        async with anyio.create_task_group() as group:
            await group.start(proxy.serve)
            feed = RedisFeed(f"redis://127.0.0.1:{proxy.port}/0", timeout_s=1, ping_every_s=0.5)
            group.start_soon(feed.run, deliver)
            await subscribed(redis_url, listeners=1)
            proxy.freeze()  # Redis still counts the stalled connection as a subscriber
            await subscribed(redis_url, listeners=2)  # the listener noticed the silence and came back
            admin.publish("toolscout:changes", '{"origin": "another-replica", "session": "after-the-silence"}')
            await arrived.wait()
            group.cancel_scope.cancel()
    admin.close()
    await feed.aclose()
    assert heard == ["after-the-silence"]


async def test_a_quiet_healthy_link_is_kept(redis_url: str, caplog: pytest.LogCaptureFixture) -> None:
    import redis

    feed = RedisFeed(redis_url, timeout_s=1, ping_every_s=0.3)

    async def deliver(session_id: str) -> None:
        raise AssertionError(f"nothing was published, yet {session_id!r} arrived")

    admin = redis.Redis.from_url(redis_url)
    with caplog.at_level("WARNING", logger="toolscout.gateway"), anyio.fail_after(LIMIT_S):
        async with anyio.create_task_group() as group:
            group.start_soon(feed.run, deliver)
            await subscribed(redis_url, listeners=1)
            first = [client["id"] for client in admin.client_list(_type="pubsub")]
            await anyio.sleep(3)  # ten ping intervals with no message
            later = [client["id"] for client in admin.client_list(_type="pubsub")]
            group.cancel_scope.cancel()
    admin.close()
    await feed.aclose()
    assert first == later and len(first) == 1
    assert not caplog.records


async def test_any_other_store_gets_a_local_feed() -> None:
    for spec in (None, "memory", "/var/lib/toolscout/sessions.sqlite3", "sqlite:///x.db"):
        assert isinstance(open_feed(spec, timeout_s=1), LocalFeed)


def recording() -> tuple[list[str], anyio.Event, Deliver]:
    """A `Deliver` that records each session id it is given and sets the event."""
    heard: list[str] = []
    arrived = anyio.Event()

    async def deliver(session_id: str) -> None:
        heard.append(session_id)
        arrived.set()

    return heard, arrived, deliver


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


async def test_a_registered_feed_serves_its_scheme_with_the_store_spec_and_timeout() -> None:
    made: list[tuple[str, float]] = []

    class Recording(LocalFeed):
        def __init__(self) -> None:
            self.published: list[str] = []

        async def publish(self, session_id: str) -> None:
            self.published.append(session_id)

    def factory(spec: str, timeout_s: float) -> ChangeFeed:
        made.append((spec, timeout_s))
        return Recording()

    register_feed("test-feed", factory)
    feed = open_feed("test-feed://host/0", timeout_s=1.5)
    await feed.publish("s-1")
    assert made == [("test-feed://host/0", 1.5)]
    assert isinstance(feed, Recording) and feed.published == ["s-1"]
    assert isinstance(open_feed("elsewhere://x", timeout_s=1), LocalFeed)
