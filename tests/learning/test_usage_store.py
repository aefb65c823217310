"""The `UsageStore` contract, run against every store: bounds, scopes, TTL, forget, malformed data."""

from __future__ import annotations

import logging
import stat
import threading
import time
from pathlib import Path

import pytest

from tests.learning.conftest import MakeStore, store_opener
from toolscout import StoreError
from toolscout.learning import UsagePair
from toolscout.learning._internal import MemoryUsageStore, SqliteUsageStore, UsageBounds, export_pairs, open_usage_store


@pytest.fixture(params=["memory", "sqlite", "redis"])
def make_store(request: pytest.FixtureRequest, tmp_path: Path) -> MakeStore:
    return store_opener(request, tmp_path)


def pair(request: str, tool: str, *, scope: str = "team", session: str = "s1", at: float | None = None) -> UsagePair:
    return UsagePair(scope=scope, request=request, tool=tool, session=session, at=time.time() if at is None else at)


def test_pairs_come_back_per_scope_and_per_tool_oldest_first(make_store: MakeStore) -> None:
    store = make_store()
    store.record([pair("open an issue", "gh__create_issue"), pair("post to channel", "slack__post")])
    store.record([dataclass_missed(pair("file a bug", "gh__create_issue"))])
    store.record([pair("file a bug", "gh__create_issue", scope="other")])
    assert [(p.request, p.tool, p.missed) for p in store.pairs("team")] == [
        ("open an issue", "gh__create_issue", False),
        ("post to channel", "slack__post", False),
        ("file a bug", "gh__create_issue", True),
    ]
    assert [p.request for p in store.pairs("team", tool="gh__create_issue")] == ["open an issue", "file a bug"]
    assert store.scopes() == ("other", "team")
    assert store.pairs("nobody") == ()


def dataclass_missed(one: UsagePair) -> UsagePair:
    return UsagePair(one.scope, one.request, one.tool, one.session, one.at, missed=True)


def test_a_full_scope_pushes_out_only_its_own_oldest_pairs(make_store: MakeStore) -> None:
    store = make_store(max_pairs_per_scope=5)
    store.record([pair(f"quiet {n}", f"tool{n}", scope="quiet") for n in range(3)])
    for n in range(12):
        store.record([pair(f"busy {n}", f"tool{n}", scope="busy")])
    assert [p.request for p in store.pairs("busy")] == [f"busy {n}" for n in range(7, 12)]
    assert [p.request for p in store.pairs("quiet")] == ["quiet 0", "quiet 1", "quiet 2"]


def test_a_tool_holds_at_most_its_cap_within_a_scope(make_store: MakeStore) -> None:
    store = make_store(max_pairs_per_tool=3)
    store.record([pair(f"ask {n}", "hot") for n in range(5)] + [pair("other", "cold")])
    store.record([pair(f"elsewhere {n}", "hot", scope="b") for n in range(2)])
    assert [p.request for p in store.pairs("team", tool="hot")] == ["ask 2", "ask 3", "ask 4"]
    assert [p.request for p in store.pairs("team", tool="cold")] == ["other"]
    assert len(store.pairs("b", tool="hot")) == 2


def test_expired_pairs_are_never_returned_and_go_on_the_next_write(make_store: MakeStore) -> None:
    store = make_store(ttl_s=60)
    store.record([pair("old", "t", at=time.time() - 3600), pair("new", "t")])
    assert [p.request for p in store.pairs("team")] == ["new"]
    store.record([pair("newer", "t")])
    assert [p.request for p in store.pairs("team")] == ["new", "newer"]


def test_requests_are_clipped_to_the_byte_bound_at_a_character_boundary(make_store: MakeStore) -> None:
    store = make_store(max_request_bytes=16)
    store.record([pair("é" * 20, "t")])
    (kept,) = store.pairs("team")
    assert kept.request == "é" * 8 and len(kept.request.encode()) == 16


def test_forget_per_tool_per_scope_and_all(make_store: MakeStore) -> None:
    store = make_store()
    store.record([pair("a", "x"), pair("b", "y"), pair("c", "x", scope="other"), pair("d", "y", scope="third")])
    assert store.forget("team", tool="x") == 1
    assert [p.tool for p in store.pairs("team")] == ["y"] and len(store.pairs("other")) == 1
    assert store.forget("team") == 1
    assert store.pairs("team") == () and store.scopes() == ("other", "third")
    assert store.forget() == 2
    assert store.scopes() == () and export_pairs(store) == ()


def test_export_lists_every_scope(make_store: MakeStore) -> None:
    store = make_store()
    store.record([pair("a", "x", scope="s2"), pair("b", "y", scope="s1")])
    assert [(p.scope, p.request) for p in export_pairs(store)] == [("s1", "b"), ("s2", "a")]
    assert export_pairs(store, "s2", tool="y") == ()


def test_bad_input_is_refused_with_a_reason(make_store: MakeStore) -> None:
    store = make_store()
    with pytest.raises(StoreError, match="scope must not be empty"):
        store.record([pair("a", "x", scope="")])
    with pytest.raises(StoreError, match="the limit is 256"):
        store.pairs("s" * 300)
    with pytest.raises(StoreError, match="must be a UsagePair"):
        store.record(["open an issue"])  # type: ignore[list-item]
    store.close()
    with pytest.raises(StoreError, match="closed"):
        store.pairs("team")


def test_concurrent_writers_keep_the_scope_bound(make_store: MakeStore) -> None:
    store = make_store(max_pairs_per_scope=30)

    def write(base: int) -> None:
        for n in range(25):
            store.record([pair(f"r{base + n}", f"t{n % 4}")])

    threads = [threading.Thread(target=write, args=(100 * k,)) for k in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(store.pairs("team")) == 30


def test_whether_the_search_listed_the_tool_first_comes_back_from_every_store(make_store: MakeStore) -> None:
    store = make_store()
    listed_first = pair("open an issue", "gh__create_issue")
    store.record([UsagePair(**{**listed_first.to_json(), "first": True}), pair("post it", "slack__post")])  # type: ignore[arg-type]
    assert [(p.tool, p.first) for p in store.pairs("team")] == [("gh__create_issue", True), ("slack__post", False)]


def test_a_sqlite_file_of_the_first_schema_is_upgraded_in_place_and_keeps_its_pairs(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "old.db"
    with sqlite3.connect(path) as conn:  # the schema toolscout wrote before pairs said whether search listed first
        conn.execute("CREATE TABLE usage_meta (version INTEGER NOT NULL)")
        conn.execute("INSERT INTO usage_meta (version) VALUES (1)")
        conn.execute(
            "CREATE TABLE usage_pairs (id INTEGER PRIMARY KEY AUTOINCREMENT, scope TEXT NOT NULL, tool TEXT NOT NULL,"
            " request TEXT NOT NULL, session TEXT NOT NULL, at REAL NOT NULL, missed INTEGER NOT NULL)"
        )
        conn.execute(
            "INSERT INTO usage_pairs (scope, tool, request, session, at, missed) VALUES (?, ?, ?, ?, ?, 1)",
            ("team", "gh__create_issue", "file a bug", "s1", time.time()),
        )
    conn.close()
    with SqliteUsageStore(path) as store:
        (old,) = store.pairs("team")
        assert (old.request, old.missed, old.first) == ("file a bug", True, False)
        store.record([UsagePair(**{**pair("open an issue", "gh__create_issue").to_json(), "first": True})])  # type: ignore[arg-type]
        assert [p.first for p in store.pairs("team")] == [False, True]


def test_the_sqlite_file_is_private_to_its_owner(tmp_path: Path) -> None:
    path = tmp_path / "learned.db"
    SqliteUsageStore(path).close()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_the_sqlite_store_shares_a_file_with_the_session_store(tmp_path: Path) -> None:
    from toolscout import SqliteStore

    path = tmp_path / "shared.db"
    with SqliteStore(path) as sessions:
        sessions.discover("s", ["a"])
        with SqliteUsageStore(path) as usage:
            usage.record([pair("r", "a")])
            assert len(usage.pairs("team")) == 1
        assert sessions.discovered("s") == ("a",)


def test_a_file_that_is_no_database_is_a_store_error(tmp_path: Path) -> None:
    path = tmp_path / "notes.db"
    path.write_text("not sqlite at all " * 100)
    with pytest.raises(StoreError, match="notes.db"):
        SqliteUsageStore(path)


def test_a_malformed_redis_value_is_skipped_with_one_warning(
    redis_url: str, request: pytest.FixtureRequest, caplog: pytest.LogCaptureFixture
) -> None:
    import redis

    from toolscout.learning._redis import RedisUsageStore

    prefix = f"malformed-{request.node.name}"
    with RedisUsageStore(redis_url, prefix=prefix) as store:
        store.record([pair("a", "x"), pair("b", "x"), pair("c", "x")])
        client = redis.Redis.from_url(redis_url, decode_responses=True)
        ids = sorted(client.hkeys(f"{prefix}:v:team"), key=int)
        client.hset(f"{prefix}:v:team", ids[0], "{not json")
        client.hset(f"{prefix}:v:team", ids[1], '{"scope": "team", "request": 3}')
        client.close()
        with caplog.at_level(logging.WARNING):
            assert [p.request for p in store.pairs("team")] == ["c"]
        warnings = [record for record in caplog.records if record.levelno == logging.WARNING]
        assert len(warnings) == 1 and "2 malformed" in warnings[0].getMessage()


def test_specs_open_the_store_their_scheme_names(tmp_path: Path) -> None:
    bounds = UsageBounds(max_pairs_per_scope=7)
    assert isinstance(open_usage_store("memory", bounds), MemoryUsageStore)
    opened = open_usage_store(str(tmp_path / "sub" / "u.db"), bounds)
    assert isinstance(opened, SqliteUsageStore) and opened.bounds.max_pairs_per_scope == 7
    opened.close()
    from toolscout import ConfigError

    with pytest.raises(ConfigError, match="unknown store scheme 'ftp'"):
        open_usage_store("ftp://x", bounds)
