from __future__ import annotations

import time
from pathlib import Path

import pytest

from toolscout import ConfigError, MemoryStore, SqliteStore, StoreError
from toolscout.gateway._config._datadir import default_store_path
from toolscout.gateway._sessions._stores import TimedStore, open_store


def test_the_default_store_is_an_sqlite_file_in_the_data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLSCOUT_DATA_DIR", str(tmp_path / "data"))
    store = open_store(None)
    try:
        assert isinstance(store, SqliteStore)
        assert store.path == tmp_path / "data" / "sessions.sqlite3" == default_store_path()
    finally:
        store.close()


def test_without_an_explicit_data_dir_the_xdg_data_home_is_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TOOLSCOUT_DATA_DIR", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert default_store_path() == tmp_path / "toolscout" / "sessions.sqlite3"


def test_memory_a_path_and_a_redis_url_open_their_stores(tmp_path: Path, redis_url: str) -> None:
    assert isinstance(open_store("memory"), MemoryStore)
    sqlite = open_store(str(tmp_path / "nested" / "s.db"))
    assert isinstance(sqlite, SqliteStore) and (tmp_path / "nested" / "s.db").exists()
    sqlite.close()
    redis_store = open_store(redis_url)
    assert type(redis_store).__name__ == "RedisStore"
    redis_store.close()


def test_an_unknown_url_scheme_names_the_setting() -> None:
    with pytest.raises(ConfigError) as caught:
        open_store("postgres://db/sessions")
    assert caught.value.key == "toolscout.store"


def test_an_unreachable_redis_is_a_store_error_without_the_password() -> None:
    with pytest.raises(StoreError) as caught:
        open_store("redis://user:hunter2-secret@127.0.0.1:1/0")
    assert "hunter2" not in str(caught.value)
    assert "127.0.0.1:1" in str(caught.value)


def test_a_timed_store_answers_within_its_limit_while_the_file_is_locked(tmp_path: Path) -> None:
    from tests.gateway.test_store_outage import sqlite_locked

    path = tmp_path / "s.db"
    store = TimedStore(SqliteStore(path, timeout=30), timeout_s=0.5)
    try:
        assert store.discover("a", ["x"]) == ("x",)
        with sqlite_locked(path):
            started = time.monotonic()
            with pytest.raises(StoreError, match=r"did not answer within 0\.5 s"):
                store.discover("a", ["y"])
            # Bounded by the wrapper, not by SQLite's own 30 s busy timeout.
            assert time.monotonic() - started < 25
        assert store.discovered("a")[0] == "x"  # usable again once the lock is gone
    finally:
        store.close()
    with pytest.raises(StoreError, match="closed"):
        store.discovered("a")
