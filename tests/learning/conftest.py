"""The persistent usage stores the ranking and auto-pin tests run against: SQLite, and a real Redis."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from toolscout.learning import UsageStore
from toolscout.learning._internal import SqliteUsageStore

MakeStore = Callable[[], UsageStore]


@pytest.fixture(params=["sqlite", "redis"])
def make_store(request: pytest.FixtureRequest, tmp_path: Path) -> MakeStore:
    """Opens a fresh store of each kind per call (a Redis prefix of its own), closed after the test."""
    opened: list[UsageStore] = []

    def make() -> UsageStore:
        store: UsageStore
        if request.param == "redis":
            from toolscout.learning._redis import RedisUsageStore

            prefix = f"{request.module.__name__}-{tmp_path.name}-{len(opened)}"
            store = RedisUsageStore(request.getfixturevalue("redis_url"), prefix=prefix)
        else:
            store = SqliteUsageStore(tmp_path / f"usage{len(opened)}.db")
        opened.append(store)
        return store

    def close_all() -> None:
        for store in opened:
            store.close()

    request.addfinalizer(close_all)
    return make
