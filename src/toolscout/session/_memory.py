"""`MemoryStore`: discovery state held in process memory, evicting least recently used sessions."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence

from .._errors import StoreError
from ._base import DEFAULT_MAX_NAMES, DEFAULT_MAX_SESSIONS, ClosingStore, check_limit, check_names, check_session_id

__all__ = ["MemoryStore"]


class MemoryStore(ClosingStore):
    """A thread-safe in-memory `DiscoveryStore`; everything is lost when the process ends.

    Sessions live in an ordered mapping kept in least-recently-used order, so eviction and
    touching are O(1). See `DiscoveryStore` for the contract.

    Args:
        max_sessions: Sessions held before the least recently used one is evicted.
        max_names: Names a session holds before further names are refused.

    Raises:
        ConfigError: A limit is not a positive integer.
    """

    def __init__(self, *, max_sessions: int = DEFAULT_MAX_SESSIONS, max_names: int = DEFAULT_MAX_NAMES) -> None:
        self.max_sessions: int = check_limit(max_sessions, key="max_sessions")
        self.max_names: int = check_limit(max_names, key="max_names")
        self._sessions: OrderedDict[str, dict[str, None]] = OrderedDict()
        self._lock = threading.Lock()
        self._closed = False

    def discovered(self, session_id: str) -> tuple[str, ...]:
        """Return the session's discovered names in discovery order."""
        check_session_id(session_id)
        with self._lock:
            self._check_open()
            names = self._sessions.get(session_id)
            if names is None:
                return ()
            self._sessions.move_to_end(session_id)
            return tuple(names)

    def discover(self, session_id: str, names: Sequence[str]) -> tuple[str, ...]:
        """Append the names the session does not hold yet; return only those added."""
        check_session_id(session_id)
        wanted = check_names(names)
        with self._lock:
            self._check_open()
            held = self._sessions.get(session_id)
            if held is None:
                if not wanted:
                    return ()
                held = self._sessions[session_id] = {}
                while len(self._sessions) > self.max_sessions:
                    self._sessions.popitem(last=False)
            else:
                self._sessions.move_to_end(session_id)
            fresh = [name for name in wanted if name not in held]
            if not fresh:
                return ()
            added = tuple(fresh[: max(self.max_names - len(held), 0)])
            held.update(dict.fromkeys(added))
            return added

    def forget(self, session_id: str) -> None:
        """Drop the session's discoveries."""
        check_session_id(session_id)
        with self._lock:
            self._check_open()
            self._sessions.pop(session_id, None)

    def sessions(self) -> int:
        """Return how many sessions are held."""
        with self._lock:
            self._check_open()
            return len(self._sessions)

    def close(self) -> None:
        """Drop all state; later calls raise `StoreError`."""
        with self._lock:
            self._closed = True
            self._sessions.clear()

    def __repr__(self) -> str:
        return f"MemoryStore(max_sessions={self.max_sessions}, max_names={self.max_names})"

    def _check_open(self) -> None:
        if self._closed:
            raise StoreError("the session store is closed")
