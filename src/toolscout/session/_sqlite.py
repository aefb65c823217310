"""`SqliteStore`: discovery state in an SQLite file, so a process restart loses nothing."""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from .._errors import ConfigError, StoreError
from ._base import DEFAULT_MAX_NAMES, DEFAULT_MAX_SESSIONS, ClosingStore, check_limit, check_names, check_session_id

__all__ = ["SCHEMA_VERSION", "SqliteStore"]

SCHEMA_VERSION = 1
"""The schema version this module writes, kept in the file's ``PRAGMA user_version``."""

_SCHEMA = (
    "CREATE TABLE sessions (id TEXT NOT NULL PRIMARY KEY, last_used INTEGER NOT NULL) WITHOUT ROWID",
    "CREATE INDEX sessions_by_last_used ON sessions (last_used)",
    "CREATE TABLE discoveries ("
    " session_id TEXT NOT NULL, position INTEGER NOT NULL, name TEXT NOT NULL,"
    " PRIMARY KEY (session_id, position)) WITHOUT ROWID",
    "CREATE UNIQUE INDEX discoveries_by_name ON discoveries (session_id, name)",
)
# The LRU clock is a counter kept in the table itself (one past the highest value), so it is
# monotonic across processes sharing the file and immune to wall-clock jumps.
_NEXT_TICK = "(SELECT COALESCE(MAX(last_used), 0) + 1 FROM sessions)"


class SqliteStore(ClosingStore):
    """A `DiscoveryStore` in one SQLite file (stdlib `sqlite3`), durable across restarts.

    The file uses WAL journaling and a busy timeout, so several store objects, threads or
    processes may share it; every change runs in its own ``BEGIN IMMEDIATE`` transaction. Least
    recently used sessions are evicted by a use counter stored in the file. The schema version
    lives in ``PRAGMA user_version``; a file written by a newer schema is refused rather than
    guessed at. See `DiscoveryStore` for the contract. Use as a context manager or call `close`.

    Args:
        path: The database file; created (with its schema) when missing, readable by its owner only (0600; SQLite
            gives its ``-wal`` and ``-shm`` files the same mode). An existing file keeps its mode. Its directory
            must exist.
        max_sessions: Sessions held before the least recently used one is evicted.
        max_names: Names a session holds before further names are refused.
        timeout: Seconds to wait for another connection's lock before giving up.

    Raises:
        StoreError: The file cannot be opened, is corrupt, is not a toolscout session store,
            or has an unknown schema version. The message names the path.
        ConfigError: A limit is out of range.
    """

    def __init__(
        self,
        path: str | Path,
        *,
        max_sessions: int = DEFAULT_MAX_SESSIONS,
        max_names: int = DEFAULT_MAX_NAMES,
        timeout: float = 5.0,
    ) -> None:
        self.max_sessions: int = check_limit(max_sessions, key="max_sessions")
        self.max_names: int = check_limit(max_names, key="max_names")
        if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout < 0:
            raise ConfigError(f"must be a non-negative number of seconds, got {timeout!r}", key="timeout")
        self.path: Path = Path(path)
        self._lock = threading.Lock()
        self._closed = False
        _create_private(self.path)
        try:
            self._conn = sqlite3.connect(self.path, timeout=timeout, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open session store {self.path}: {exc}") from exc
        try:
            self._conn.execute("PRAGMA journal_mode = WAL")
            self._conn.execute("PRAGMA synchronous = NORMAL")
            with self._write() as conn:
                self._ensure_schema(conn)
        except sqlite3.Error as exc:
            self._conn.close()
            raise StoreError(f"cannot open session store {self.path}: {exc}") from exc
        except StoreError:
            self._conn.close()
            raise

    def discovered(self, session_id: str) -> tuple[str, ...]:
        """Return the session's discovered names in discovery order."""
        check_session_id(session_id)
        with self._write() as conn:
            rows = conn.execute(
                "SELECT name FROM discoveries WHERE session_id = ? ORDER BY position", (session_id,)
            ).fetchall()
            if rows:
                conn.execute(f"UPDATE sessions SET last_used = {_NEXT_TICK} WHERE id = ?", (session_id,))
            return tuple(row[0] for row in rows)

    def discover(self, session_id: str, names: Sequence[str]) -> tuple[str, ...]:
        """Append the names the session does not hold yet; return only those added."""
        check_session_id(session_id)
        wanted = check_names(names)
        with self._write() as conn:
            known = conn.execute("SELECT 1 FROM sessions WHERE id = ?", (session_id,)).fetchone() is not None
            if known:
                conn.execute(f"UPDATE sessions SET last_used = {_NEXT_TICK} WHERE id = ?", (session_id,))
                held = conn.execute("SELECT COUNT(*) FROM discoveries WHERE session_id = ?", (session_id,)).fetchone()[
                    0
                ]
            elif wanted:
                conn.execute(f"INSERT INTO sessions (id, last_used) VALUES (?, {_NEXT_TICK})", (session_id,))
                self._evict(conn)
                held = 0
            else:
                return ()
            added: list[str] = []
            for name in wanted:
                position = held + len(added)
                if position >= self.max_names:
                    break
                cursor = conn.execute(
                    "INSERT OR IGNORE INTO discoveries (session_id, position, name) VALUES (?, ?, ?)",
                    (session_id, position, name),
                )
                if cursor.rowcount == 1:
                    added.append(name)
            return tuple(added)

    def forget(self, session_id: str) -> None:
        """Drop the session's discoveries."""
        check_session_id(session_id)
        with self._write() as conn:
            conn.execute("DELETE FROM discoveries WHERE session_id = ?", (session_id,))
            conn.execute("DELETE FROM sessions WHERE id = ?", (session_id,))

    def sessions(self) -> int:
        """Return how many sessions are held."""
        with self._lock:
            self._check_open()
            try:
                count: int = self._conn.execute("SELECT COUNT(*) FROM sessions").fetchone()[0]
            except sqlite3.Error as exc:
                raise StoreError(f"session store {self.path}: {exc}") from exc
            return count

    def close(self) -> None:
        """Close the database connection; later calls raise `StoreError`."""
        with self._lock:
            if not self._closed:
                self._closed = True
                self._conn.close()

    def __repr__(self) -> str:
        return f"SqliteStore({str(self.path)!r}, max_sessions={self.max_sessions}, max_names={self.max_names})"

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """Hold the thread lock and one immediate (write-locked) transaction around the body."""
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
                raise StoreError(f"session store {self.path}: {exc}") from exc

    def _ensure_schema(self, conn: sqlite3.Connection) -> None:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version == SCHEMA_VERSION:
            return
        if version != 0:
            raise StoreError(
                f"session store {self.path} has schema version {version}, but this toolscout reads "
                f"version {SCHEMA_VERSION}; upgrade toolscout or point the store at another file"
            )
        if conn.execute("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table'").fetchone()[0]:
            raise StoreError(
                f"{self.path} is an SQLite database but not a toolscout session store; point the store at another file"
            )
        for statement in _SCHEMA:
            conn.execute(statement)
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def _evict(self, conn: sqlite3.Connection) -> None:
        excess = conn.execute("SELECT COUNT(*) FROM sessions").fetchone()[0] - self.max_sessions
        if excess <= 0:
            return
        victims = conn.execute("SELECT id FROM sessions ORDER BY last_used LIMIT ?", (excess,)).fetchall()
        conn.executemany("DELETE FROM discoveries WHERE session_id = ?", victims)
        conn.executemany("DELETE FROM sessions WHERE id = ?", victims)

    def _check_open(self) -> None:
        if self._closed:
            raise StoreError(f"session store {self.path} is closed")


def _create_private(path: Path) -> None:
    """Create the missing file `path` with mode 0600 (session names are private); anything else is left to SQLite."""
    if str(path) == ":memory:":
        return
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except OSError:
        pass  # it exists (its mode is the owner's choice), or SQLite reports why it cannot be opened
