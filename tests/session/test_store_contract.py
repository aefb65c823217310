"""The `DiscoveryStore` contract, run against every implementation."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from toolscout import ConfigError, DiscoveryStore, MemoryStore, SqliteStore, StoreError

StoreFactory = Callable[..., DiscoveryStore]


@pytest.fixture(params=["memory", "sqlite", "redis"])
def make_store(request: pytest.FixtureRequest, tmp_path: Path) -> StoreFactory:
    opened: list[DiscoveryStore] = []

    def make(**limits: int) -> DiscoveryStore:
        store: DiscoveryStore
        if request.param == "memory":
            store = MemoryStore(**limits)
        elif request.param == "redis":
            from toolscout.session._redis import RedisStore

            prefix = f"{tmp_path.name}-{len(opened)}"  # a fresh key space per store
            store = RedisStore(request.getfixturevalue("redis_url"), prefix=prefix, **limits)
        else:
            store = SqliteStore(tmp_path / f"store{len(opened)}.db", **limits)
        opened.append(store)
        return store

    def close_all() -> None:
        for store in opened:
            store.close()

    request.addfinalizer(close_all)
    return make


def test_a_new_store_holds_no_sessions(make_store: StoreFactory) -> None:
    store = make_store()
    assert store.sessions() == 0
    assert store.discovered("s1") == ()


def test_reading_an_unknown_session_does_not_create_it(make_store: StoreFactory) -> None:
    store = make_store()
    store.discovered("ghost")
    assert store.sessions() == 0


def test_discover_returns_the_new_names_in_the_given_order(make_store: StoreFactory) -> None:
    store = make_store()
    assert store.discover("s1", ["github_create_issue", "fs_read", "time_now"]) == (
        "github_create_issue",
        "fs_read",
        "time_now",
    )
    assert store.discovered("s1") == ("github_create_issue", "fs_read", "time_now")


def test_discovering_a_known_name_again_adds_nothing(make_store: StoreFactory) -> None:
    store = make_store()
    store.discover("s1", ["a", "b"])
    assert store.discover("s1", ["b", "a"]) == ()
    assert store.discovered("s1") == ("a", "b")


def test_repeats_within_one_call_are_added_once(make_store: StoreFactory) -> None:
    store = make_store()
    assert store.discover("s1", ["a", "b", "a", "b", "c"]) == ("a", "b", "c")
    assert store.discovered("s1") == ("a", "b", "c")


def test_later_discoveries_append_and_keep_the_existing_prefix(make_store: StoreFactory) -> None:
    store = make_store()
    store.discover("s1", ["c", "a"])
    assert store.discover("s1", ["b", "a", "d"]) == ("b", "d")
    assert store.discovered("s1") == ("c", "a", "b", "d")


def test_sessions_are_independent(make_store: StoreFactory) -> None:
    store = make_store()
    store.discover("s1", ["a"])
    store.discover("s2", ["b"])
    assert store.discovered("s1") == ("a",)
    assert store.discovered("s2") == ("b",)
    assert store.sessions() == 2


def test_discovering_no_names_for_an_unknown_session_creates_nothing(make_store: StoreFactory) -> None:
    store = make_store()
    assert store.discover("s1", []) == ()
    assert store.sessions() == 0


def test_forget_drops_a_session_and_a_later_discovery_starts_afresh(make_store: StoreFactory) -> None:
    store = make_store()
    store.discover("s1", ["a", "b"])
    store.forget("s1")
    assert store.discovered("s1") == ()
    assert store.sessions() == 0
    assert store.discover("s1", ["b"]) == ("b",)
    assert store.discovered("s1") == ("b",)


def test_forgetting_an_unknown_session_is_a_no_op(make_store: StoreFactory) -> None:
    store = make_store()
    store.discover("s1", ["a"])
    store.forget("nobody")
    assert store.discovered("s1") == ("a",)


def test_names_past_the_per_session_cap_are_refused_and_left_out_of_the_return(make_store: StoreFactory) -> None:
    store = make_store(max_names=3)
    store.discover("s1", ["a", "b"])
    requested = ["c", "a", "d", "e"]
    assert store.discover("s1", requested) == ("c",)
    assert store.discovered("s1") == ("a", "b", "c")
    assert set(requested) - set(store.discovered("s1")) == {"d", "e"}
    assert store.discover("s1", ["f"]) == ()


def test_the_per_session_cap_never_drops_old_names(make_store: StoreFactory) -> None:
    store = make_store(max_names=2)
    store.discover("s1", ["a", "b", "c", "d"])
    assert store.discovered("s1") == ("a", "b")


def test_the_least_recently_used_session_is_evicted_past_the_cap(make_store: StoreFactory) -> None:
    store = make_store(max_sessions=2)
    store.discover("s1", ["a"])
    store.discover("s2", ["b"])
    store.discover("s3", ["c"])
    assert store.sessions() == 2
    assert store.discovered("s1") == ()
    assert store.discovered("s2") == ("b",)
    assert store.discovered("s3") == ("c",)


def test_reading_a_session_marks_it_recently_used(make_store: StoreFactory) -> None:
    store = make_store(max_sessions=2)
    store.discover("s1", ["a"])
    store.discover("s2", ["b"])
    store.discovered("s1")
    store.discover("s3", ["c"])
    assert store.discovered("s1") == ("a",)
    assert store.discovered("s2") == ()


def test_discovering_in_a_session_marks_it_recently_used(make_store: StoreFactory) -> None:
    store = make_store(max_sessions=2)
    store.discover("s1", ["a"])
    store.discover("s2", ["b"])
    store.discover("s1", ["a"])
    store.discover("s3", ["c"])
    assert store.discovered("s1") == ("a",)
    assert store.discovered("s2") == ()


def test_unicode_names_and_session_ids_round_trip(make_store: StoreFactory) -> None:
    store = make_store()
    store.discover("séance-✓", ["检索_文件", "emoji_🙂", "a'b\"c"])
    assert store.discovered("séance-✓") == ("检索_文件", "emoji_🙂", "a'b\"c")


@pytest.mark.parametrize("session_id", ["", "x" * 257, 42, None, b"bytes"])
def test_an_invalid_session_id_is_a_store_error(make_store: StoreFactory, session_id: object) -> None:
    store = make_store()
    with pytest.raises(StoreError, match="session id"):
        store.discover(session_id, ["a"])  # type: ignore[arg-type]
    with pytest.raises(StoreError, match="session id"):
        store.discovered(session_id)  # type: ignore[arg-type]
    with pytest.raises(StoreError, match="session id"):
        store.forget(session_id)  # type: ignore[arg-type]


def test_a_session_id_of_256_characters_is_accepted(make_store: StoreFactory) -> None:
    store = make_store()
    assert store.discover("x" * 256, ["a"]) == ("a",)


@pytest.mark.parametrize(
    ("names", "message"),
    [
        ("fs_read", "not a single string"),
        (b"fs_read", "not a single string"),
        (["ok", 3], r"names\[1\] must be a string"),
        (["ok", None], r"names\[1\] must be a string"),
        ({"a", "b"}, "must be a sequence"),
        (None, "must be a sequence"),
    ],
)
def test_invalid_names_are_a_store_error_and_nothing_is_written(
    make_store: StoreFactory, names: object, message: str
) -> None:
    store = make_store()
    with pytest.raises(StoreError, match=message):
        store.discover("s1", names)  # type: ignore[arg-type]
    assert store.discovered("s1") == ()
    assert store.sessions() == 0


def test_a_closed_store_refuses_every_call_and_closing_twice_is_fine(make_store: StoreFactory) -> None:
    store = make_store()
    store.discover("s1", ["a"])
    store.close()
    store.close()
    for call in (
        lambda: store.discovered("s1"),
        lambda: store.discover("s1", ["b"]),
        lambda: store.forget("s1"),
        store.sessions,
    ):
        with pytest.raises(StoreError, match="closed"):
            call()


@pytest.mark.parametrize("limits", [{"max_sessions": 0}, {"max_names": -1}, {"max_names": True}])
def test_a_limit_that_is_not_a_positive_integer_is_a_config_error(
    make_store: StoreFactory, limits: dict[str, int]
) -> None:
    with pytest.raises(ConfigError) as info:
        make_store(**limits)
    assert info.value.key in limits


def test_concurrent_discoveries_from_many_threads_keep_every_name_once(make_store: StoreFactory) -> None:
    store = make_store()
    names = [f"tool_{i}" for i in range(40)]

    def worker(offset: int) -> None:
        for i in range(len(names)):
            store.discover("shared", [names[(i + offset) % len(names)]])
            store.discover(f"own-{offset}", [names[i]])

    threads = [threading.Thread(target=worker, args=(offset,)) for offset in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    shared = store.discovered("shared")
    assert sorted(shared) == sorted(names)
    assert len(shared) == len(set(shared))
    assert store.sessions() == 9
    assert store.discovered("own-3") == tuple(names)
