"""`SqliteUsageStore`: learned pairs in an SQLite file (created 0600), so a restart loses nothing."""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from .._errors import StoreError
from ._base import ClosingUsageStore, UsageBounds, UsagePair, check_scope, checked_pairs, expired_before

__all__ = ["SqliteUsageStore"]

_SCHEMA_VERSION = 2
# Its own tables (``usage_*``), so the file may be the session store's too.
_SCHEMA = (
    "CREATE TABLE usage_meta (version INTEGER NOT NULL)",
    f"INSERT INTO usage_meta (version) VALUES ({_SCHEMA_VERSION})",
    "CREATE TABLE usage_pairs (id INTEGER PRIMARY KEY AUTOINCREMENT, scope TEXT NOT NULL, tool TEXT NOT NULL,"
    " request TEXT NOT NULL, session TEXT NOT NULL, at REAL NOT NULL, missed INTEGER NOT NULL,"
    " first INTEGER NOT NULL DEFAULT 0)",
    "CREATE INDEX usage_pairs_by_scope ON usage_pairs (scope, id)",
    "CREATE INDEX usage_pairs_by_tool ON usage_pairs (scope, tool, id)",
    "CREATE INDEX usage_pairs_by_time ON usage_pairs (at)",
)
_COLUMNS = "scope, request, tool, session, at, missed, first"
_MIGRATIONS = {1: ("ALTER TABLE usage_pairs ADD COLUMN first INTEGER NOT NULL DEFAULT 0",)}
"""Schema version -> the statements that bring it to the next version (older files are upgraded in place)."""


class SqliteUsageStore(ClosingUsageStore):
    """A `UsageStore` in one SQLite file (stdlib `sqlite3`), durable across restarts; see `UsageStore`.

    The file is created readable by its owner only (0600): requests are what users typed. WAL journaling and
    a busy timeout let several processes share it (and the session store, whose file it may be: its tables are
    named ``usage_*``); each write is one ``BEGIN IMMEDIATE`` transaction.

    Args:
        path: The database file; created when missing. Its directory must exist.
        bounds: What the store holds at most.
        timeout: Seconds to wait for another connection's lock.

    Raises:
        StoreError: The file cannot be opened or is not a toolscout usage store; the message names the path.
    """

    def __init__(self, path: str | Path, bounds: UsageBounds | None = None, *, timeout: float = 5.0) -> None:
        self.bounds: UsageBounds = bounds or UsageBounds()
        self.path: Path = Path(path)
        self._lock = threading.Lock()
        self._closed = False
        try:
            os.close(os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600))
            self._conn = sqlite3.connect(self.path, timeout=timeout, isolation_level=None, check_same_thread=False)
        except (OSError, sqlite3.Error) as exc:
            raise StoreError(f"cannot open usage store {self.path}: {exc}") from None
        try:
            self._conn.execute("PRAGMA journal_mode = WAL")
            self._conn.execute("PRAGMA synchronous = NORMAL")
            with self._write() as conn:
                self._ensure_schema(conn)
        except (sqlite3.Error, StoreError) as exc:
            self._conn.close()
            raise StoreError(f"cannot open usage store {self.path}: {exc}") from None

    def record(self, pairs: Sequence[UsagePair]) -> None:
        """Add the pairs, then enforce the bounds on the scopes and tools written."""
        checked = checked_pairs(pairs, self.bounds)
        if not checked:
            return
        rows = [(p.scope, p.request, p.tool, p.session, p.at, int(p.missed), int(p.first)) for p in checked]
        with self._write() as conn:
            conn.executemany(f"INSERT INTO usage_pairs ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
            conn.execute("DELETE FROM usage_pairs WHERE at < ?", (expired_before(self.bounds),))
            for scope, tool in {(p.scope, p.tool) for p in checked}:
                held = conn.execute(
                    "SELECT COUNT(*) FROM usage_pairs WHERE scope = ? AND tool = ?", (scope, tool)
                ).fetchone()[0]
                _drop_oldest(conn, "scope = ? AND tool = ?", (scope, tool), held - self.bounds.max_pairs_per_tool)
            for scope in {p.scope for p in checked}:
                held = conn.execute("SELECT COUNT(*) FROM usage_pairs WHERE scope = ?", (scope,)).fetchone()[0]
                _drop_oldest(conn, "scope = ?", (scope,), held - self.bounds.max_pairs_per_scope)

    def pairs(self, scope: str, *, tool: str | None = None) -> tuple[UsagePair, ...]:
        """The scope's live pairs, oldest first; only `tool`'s when given."""
        check_scope(scope)
        query, args = (
            f"SELECT {_COLUMNS} FROM usage_pairs WHERE scope = ? AND at >= ?",
            [scope, expired_before(self.bounds)],
        )
        if tool is not None:
            query, args = query + " AND tool = ?", [*args, check_scope(tool, what="tool")]
        with self._read() as conn:
            rows = conn.execute(query + " ORDER BY id", args).fetchall()
        return tuple(
            UsagePair(
                scope=row[0],
                request=row[1],
                tool=row[2],
                session=row[3],
                at=row[4],
                missed=bool(row[5]),
                first=bool(row[6]),
            )
            for row in rows
        )

    def version(self, scope: str) -> str:
        """The scope's pair count and newest id: a record raises the id, a forget lowers the count."""
        check_scope(scope)
        with self._read() as conn:
            count, newest = conn.execute(
                "SELECT COUNT(*), MAX(id) FROM usage_pairs WHERE scope = ?", (scope,)
            ).fetchone()
        return f"{count}:{newest}"

    def scopes(self) -> tuple[str, ...]:
        """The scopes holding live pairs, sorted."""
        with self._read() as conn:
            rows = conn.execute(
                "SELECT DISTINCT scope FROM usage_pairs WHERE at >= ? ORDER BY scope", (expired_before(self.bounds),)
            ).fetchall()
        return tuple(row[0] for row in rows)

    def forget(self, scope: str | None = None, *, tool: str | None = None) -> int:
        """Drop a scope's pairs (None: every scope's), only `tool`'s when given; returns how many went."""
        clauses, args = [], []
        if scope is not None:
            clauses, args = ["scope = ?"], [check_scope(scope)]
        if tool is not None:
            clauses, args = [*clauses, "tool = ?"], [*args, check_scope(tool, what="tool")]
        where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
        with self._write() as conn:
            return conn.execute(f"DELETE FROM usage_pairs{where}", args).rowcount

    def close(self) -> None:
        """Close the database connection; later calls raise `StoreError`."""
        with self._lock:
            if not self._closed:
                self._closed = True
                self._conn.close()

    def __repr__(self) -> str:
        return f"SqliteUsageStore({str(self.path)!r})"

    @contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._check_open()
            try:
                yield self._conn
            except sqlite3.Error as exc:
                raise StoreError(f"usage store {self.path}: {exc}") from None

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._check_open()
            conn = self._conn
            try:
                conn.execute("BEGIN IMMEDIATE")
                try:
                    yield conn
                    conn.execute("COMMIT")
                finally:
                    if conn.in_transaction:
                        conn.execute("ROLLBACK")
            except sqlite3.Error as exc:
                raise StoreError(f"usage store {self.path}: {exc}") from None

    def _ensure_schema(self, conn: sqlite3.Connection) -> None:
        if not conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'usage_meta'").fetchone():
            for statement in _SCHEMA:
                conn.execute(statement)
            return
        row = conn.execute("SELECT version FROM usage_meta").fetchone()
        while row is not None and row[0] in _MIGRATIONS:
            for statement in _MIGRATIONS[row[0]]:
                conn.execute(statement)
            conn.execute("UPDATE usage_meta SET version = ?", (row[0] + 1,))
            row = conn.execute("SELECT version FROM usage_meta").fetchone()
        if row is None or row[0] != _SCHEMA_VERSION:
            found = None if row is None else row[0]
            raise StoreError(f"usage schema version {found}, but this toolscout reads version {_SCHEMA_VERSION}")

    def _check_open(self) -> None:
        if self._closed:
            raise StoreError(f"usage store {self.path} is closed")


def _drop_oldest(conn: sqlite3.Connection, where: str, args: tuple[str, ...], excess: int) -> None:
    """Delete the `excess` oldest pairs matching `where` (nothing when `excess` is not positive)."""
    if excess > 0:
        conn.execute(
            f"DELETE FROM usage_pairs WHERE id IN (SELECT id FROM usage_pairs WHERE {where} ORDER BY id LIMIT ?)",
            (*args, excess),
        )
