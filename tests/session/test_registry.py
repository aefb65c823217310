"""Stores open by spec through a scheme registry that third parties can extend."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolscout import ConfigError, MemoryStore, SqliteStore
from toolscout.session import register_store
from toolscout.session._internal import open_store, store_schemes


def test_the_built_in_specs_open_the_built_in_stores(tmp_path: Path) -> None:
    assert isinstance(open_store("memory", default=tmp_path / "d.sqlite3"), MemoryStore)
    plain = open_store(str(tmp_path / "a" / "s.sqlite3"), default=tmp_path / "d.sqlite3")
    url = open_store(f"sqlite://{tmp_path / 'b.sqlite3'}", default=tmp_path / "d.sqlite3")
    default = open_store(None, default=tmp_path / "c" / "d.sqlite3")
    for store in (plain, url, default):
        assert isinstance(store, SqliteStore)
        store.close()
    assert (tmp_path / "a" / "s.sqlite3").exists() and (tmp_path / "c" / "d.sqlite3").exists()


def test_an_unknown_scheme_lists_the_registered_ones(tmp_path: Path) -> None:
    with pytest.raises(
        ConfigError, match=r"unknown store scheme 'mongo'; use a file path or one of: memory, sqlite://"
    ):
        open_store("mongo://db/x", default=tmp_path / "d.sqlite3")


def test_a_registered_scheme_opens_with_its_factory(tmp_path: Path) -> None:
    opened: list[str] = []

    def factory(spec: str) -> MemoryStore:
        opened.append(spec)
        return MemoryStore(max_sessions=3)

    register_store("scratch", factory)
    store = open_store("scratch://team-a", default=tmp_path / "d.sqlite3")
    assert isinstance(store, MemoryStore) and opened == ["scratch://team-a"]
    assert "scratch" in store_schemes()
