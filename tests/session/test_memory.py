from __future__ import annotations

import pytest

from toolscout import MemoryStore, StoreError
from toolscout.session._base import DEFAULT_MAX_NAMES, DEFAULT_MAX_SESSIONS


def test_default_caps_are_ten_thousand_sessions_and_a_thousand_names() -> None:
    store = MemoryStore()
    assert (store.max_sessions, store.max_names) == (DEFAULT_MAX_SESSIONS, DEFAULT_MAX_NAMES) == (10_000, 1_000)


def test_eviction_keeps_exactly_the_most_recently_used_sessions() -> None:
    store = MemoryStore(max_sessions=3)
    for index in range(10):
        store.discover(f"s{index}", [f"tool_{index}"])
    assert store.sessions() == 3
    assert [store.discovered(f"s{index}") for index in range(7, 10)] == [("tool_7",), ("tool_8",), ("tool_9",)]
    assert all(store.discovered(f"s{index}") == () for index in range(7))


def test_a_session_at_the_name_cap_still_counts_as_used() -> None:
    store = MemoryStore(max_sessions=2, max_names=1)
    store.discover("full", ["a"])
    store.discover("other", ["b"])
    assert store.discover("full", ["c"]) == ()
    store.discover("new", ["d"])
    assert store.discovered("full") == ("a",)
    assert store.discovered("other") == ()


def test_the_returned_tuple_is_a_snapshot_not_a_live_view() -> None:
    store = MemoryStore()
    store.discover("s1", ["a"])
    snapshot = store.discovered("s1")
    store.discover("s1", ["b"])
    assert snapshot == ("a",)


def test_the_context_manager_closes_the_store() -> None:
    with MemoryStore() as store:
        store.discover("s1", ["a"])
    with pytest.raises(StoreError, match="closed"):
        store.discovered("s1")


def test_repr_shows_the_caps() -> None:
    assert repr(MemoryStore(max_sessions=5, max_names=7)) == "MemoryStore(max_sessions=5, max_names=7)"
