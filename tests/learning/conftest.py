"""The persistent usage stores the ranking and auto-pin tests run against: SQLite, and a real Redis."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from toolscout.learning import UsageStore
from toolscout.learning._internal import MemoryUsageStore, SqliteUsageStore, UsageBounds

MakeStore = Callable[..., UsageStore]


def store_opener(request: pytest.FixtureRequest, tmp_path: Path) -> MakeStore:
    """Opens a fresh store of `request.param`'s kind per call (keyword arguments: its `UsageBounds`; a Redis
    prefix of its own), all closed after the test."""
    opened: list[UsageStore] = []

    def make(**bounds: float) -> UsageStore:
        limits = UsageBounds(**bounds)  # type: ignore[arg-type]
        store: UsageStore
        if request.param == "memory":
            store = MemoryUsageStore(limits)
        elif request.param == "redis":
            from toolscout.learning._redis import RedisUsageStore

            prefix = f"{request.module.__name__}-{tmp_path.name}-{len(opened)}"
            store = RedisUsageStore(request.getfixturevalue("redis_url"), limits, prefix=prefix)
        else:
            store = SqliteUsageStore(tmp_path / f"usage{len(opened)}.db", limits)
        opened.append(store)
        return store

    def close_all() -> None:
        for store in opened:
            store.close()

    request.addfinalizer(close_all)
    return make


@pytest.fixture(params=["sqlite", "redis"])
def make_store(request: pytest.FixtureRequest, tmp_path: Path) -> MakeStore:
    """The persistent stores, each opened fresh per call."""
    return store_opener(request, tmp_path)
