"""RedisStore beyond the shared store contract: sharing between processes' store objects, key layout."""

from __future__ import annotations

import threading

import pytest

from toolscout.session._redis import RedisStore


def test_two_store_objects_on_one_redis_share_sessions(redis_url: str, request: pytest.FixtureRequest) -> None:
    prefix = f"share-{request.node.name}"
    with RedisStore(redis_url, prefix=prefix) as first, RedisStore(redis_url, prefix=prefix) as second:
        first.discover("s1", ["a", "b"])
        assert second.discover("s1", ["b", "c"]) == ("c",)
        assert first.discovered("s1") == ("a", "b", "c")
        assert second.sessions() == 1


def test_eviction_is_shared_and_keeps_the_recently_used(redis_url: str, request: pytest.FixtureRequest) -> None:
    prefix = f"evict-{request.node.name}"
    with RedisStore(redis_url, prefix=prefix, max_sessions=2) as first, RedisStore(redis_url, prefix=prefix) as second:
        first.discover("old", ["x"])
        second.discover("mid", ["y"])
        second.discovered("old")
        first.discover("new", ["z"])
        assert first.discovered("mid") == ()
        assert second.discovered("old") == ("x",) and second.discovered("new") == ("z",)


def test_concurrent_appends_from_two_store_objects_never_exceed_the_cap(
    redis_url: str, request: pytest.FixtureRequest
) -> None:
    prefix = f"race-{request.node.name}"
    stores = [RedisStore(redis_url, prefix=prefix, max_names=50) for _ in range(2)]

    def append(store: RedisStore, base: int) -> None:
        for index in range(40):
            store.discover("s", [f"tool{base + index}"])

    threads = [threading.Thread(target=append, args=(store, 100 * n)) for n, store in enumerate(stores)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    names = stores[0].discovered("s")
    assert len(names) == 50 and len(set(names)) == 50
    for store in stores:
        store.close()
