from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from toolscout import SqliteStore, StoreError
from toolscout.session._sqlite import SCHEMA_VERSION


def test_discoveries_survive_closing_and_reopening_the_store(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    with SqliteStore(path) as store:
        store.discover("s1", ["github_create_issue", "fs_read"])
        store.discover("s2", ["time_now"])
        store.discover("s1", ["fetch_url"])
    with SqliteStore(path) as reopened:
        assert reopened.discovered("s1") == ("github_create_issue", "fs_read", "fetch_url")
        assert reopened.discovered("s2") == ("time_now",)
        assert reopened.sessions() == 2
        assert reopened.discover("s1", ["fs_read", "fs_write"]) == ("fs_write",)


def test_recency_survives_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    with SqliteStore(path, max_sessions=2) as store:
        store.discover("old", ["a"])
        store.discover("recent", ["b"])
        store.discovered("old")
    with SqliteStore(path, max_sessions=2) as store:
        store.discover("new", ["c"])
        assert store.discovered("old") == ("a",)
        assert store.discovered("recent") == ()


def test_the_per_session_cap_holds_across_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    with SqliteStore(path, max_names=2) as store:
        store.discover("s1", ["a"])
    with SqliteStore(path, max_names=2) as store:
        assert store.discover("s1", ["b", "c"]) == ("b",)
        assert store.discovered("s1") == ("a", "b")


def test_two_store_objects_on_one_file_see_each_others_writes(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    with SqliteStore(path) as first, SqliteStore(path) as second:
        first.discover("s1", ["a"])
        assert second.discovered("s1") == ("a",)
        assert second.discover("s1", ["a", "b"]) == ("b",)
        assert first.discovered("s1") == ("a", "b")
        second.forget("s1")
        assert first.discovered("s1") == ()


def test_eviction_counts_sessions_written_through_another_store_object(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    with SqliteStore(path, max_sessions=2) as first, SqliteStore(path, max_sessions=2) as second:
        first.discover("s1", ["a"])
        second.discover("s2", ["b"])
        first.discover("s3", ["c"])
        assert second.sessions() == 2
        assert second.discovered("s1") == ()


@pytest.mark.slow
def test_two_processes_writing_the_same_file_at_once_lose_nothing(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    SqliteStore(path).close()
    script = textwrap.dedent(
        """
        import sys
        from toolscout import SqliteStore

        path, worker = sys.argv[1], sys.argv[2]
        with SqliteStore(path, timeout=30) as store:
            for i in range(60):
                store.discover("shared", [f"tool_{i}"])
                store.discover(f"own-{worker}", [f"{worker}_{i}"])
                store.discovered("shared")
        """
    )
    workers = [subprocess.Popen([sys.executable, "-c", script, str(path), name]) for name in ("w1", "w2")]
    assert [worker.wait(timeout=120) for worker in workers] == [0, 0]
    with SqliteStore(path) as store:
        shared = store.discovered("shared")
        assert sorted(shared) == sorted(f"tool_{i}" for i in range(60))
        assert store.discovered("own-w1") == tuple(f"w1_{i}" for i in range(60))
        assert store.discovered("own-w2") == tuple(f"w2_{i}" for i in range(60))
        assert store.sessions() == 3


def test_the_file_uses_wal_journaling_and_records_its_schema_version(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    SqliteStore(path).close()
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        indexes = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
        assert {"sessions_by_last_used", "discoveries_by_name"} <= indexes
    finally:
        conn.close()


def test_a_corrupt_file_is_a_store_error_naming_the_path(tmp_path: Path) -> None:
    path = tmp_path / "corrupt.db"
    path.write_bytes(b"this is not an sqlite database, just some bytes\n" * 200)
    with pytest.raises(StoreError, match="corrupt.db"):
        SqliteStore(path)


def test_a_directory_is_a_store_error_naming_the_path(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match=str(tmp_path)):
        SqliteStore(tmp_path)


def test_a_missing_parent_directory_is_a_store_error_naming_the_path(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="missing"):
        SqliteStore(tmp_path / "missing" / "sessions.db")


def test_a_foreign_sqlite_database_is_refused_and_left_untouched(tmp_path: Path) -> None:
    path = tmp_path / "app.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY)")
    conn.commit()
    conn.close()
    with pytest.raises(StoreError, match="not a toolscout session store"):
        SqliteStore(path)
    conn = sqlite3.connect(path)
    try:
        assert [row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")] == ["invoices"]
    finally:
        conn.close()


def test_a_file_from_a_newer_schema_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "future.db"
    SqliteStore(path).close()
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.commit()
    conn.close()
    with pytest.raises(StoreError, match=f"schema version {SCHEMA_VERSION + 1}"):
        SqliteStore(path)


def test_a_negative_timeout_is_a_config_error(tmp_path: Path) -> None:
    from toolscout import ConfigError

    with pytest.raises(ConfigError, match="timeout"):
        SqliteStore(tmp_path / "s.db", timeout=-1)


def test_repr_names_the_file_and_caps(tmp_path: Path) -> None:
    with SqliteStore(tmp_path / "s.db", max_sessions=3, max_names=4) as store:
        assert repr(store) == f"SqliteStore({str(tmp_path / 's.db')!r}, max_sessions=3, max_names=4)"
