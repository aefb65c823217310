"""The `DiscoveryStore` protocol: which tools each session has discovered, and in what order."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from types import TracebackType
from typing import Protocol, Self

from .._errors import ConfigError, StoreError

__all__ = [
    "ClosingStore",
    "DEFAULT_MAX_NAMES",
    "DEFAULT_MAX_SESSIONS",
    "MAX_SESSION_ID_LENGTH",
    "DiscoveryStore",
    "check_limit",
    "check_names",
    "check_session_id",
]

DEFAULT_MAX_SESSIONS = 10_000
"""Sessions a store holds before it evicts the least recently used one."""
DEFAULT_MAX_NAMES = 1_000
"""Discovered names a session holds before further names are refused."""
MAX_SESSION_ID_LENGTH = 256
"""Longest accepted session id, in characters."""


class DiscoveryStore(Protocol):
    """Per-session discovery state: the tool names each session has discovered.

    Contract every implementation keeps:

    - **Ordered and append-only.** `discovered` returns names in the order they were first
      discovered. Names are never removed from a session except by `forget` or eviction, so a
      session's list only grows and its prefix never changes.
    - **Deduplicated.** Discovering a name the session already holds is a no-op.
    - **Bounded per session.** A session holds at most `max_names` names. Past the cap, further
      names are *refused* (old ones are never dropped) and are left out of `discover`'s return;
      ``set(names) - set(store.discovered(session_id))`` is exactly what was refused.
    - **Bounded in sessions.** A session exists once it holds a name. When a new session would
      exceed `max_sessions`, the least recently used session is evicted whole. `discover` and
      `discovered` both mark their session as recently used; reading an unknown session does
      not create it.
    - **Independent of message history.** State is keyed by session id only, so it survives
      context compaction and a change of provider mid-session.
    - **Thread-safe.** Every method may be called from several threads at once.
    - **Validated input.** Session ids are non-empty strings of at most 256 characters and
      names are strings; anything else raises `StoreError`. After `close`, every method but
      `close` raises `StoreError`.
    """

    def discovered(self, session_id: str) -> tuple[str, ...]:
        """Return the session's discovered names in discovery order (empty for an unknown session).

        Raises:
            StoreError: The session id is invalid, the store is closed or cannot be read.
        """
        ...

    def discover(self, session_id: str, names: Sequence[str]) -> tuple[str, ...]:
        """Append the names the session does not hold yet, in the given order.

        Returns:
            Only the names actually added: already-known names and names refused by the
            per-session cap are left out.

        Raises:
            StoreError: The session id or a name is invalid, the store is closed or cannot be written.
        """
        ...

    def forget(self, session_id: str) -> None:
        """Drop everything the session has discovered (a no-op for an unknown session).

        Raises:
            StoreError: The session id is invalid, the store is closed or cannot be written.
        """
        ...

    def sessions(self) -> int:
        """Return how many sessions the store holds.

        Raises:
            StoreError: The store is closed or cannot be read.
        """
        ...

    def close(self) -> None:
        """Release the store's resources; calling it again is a no-op."""
        ...


class ClosingStore(ABC):
    """Context-manager support for stores: ``with Store(...) as store:`` closes it on exit."""

    @abstractmethod
    def close(self) -> None:
        """Release the store's resources; later calls raise `StoreError`."""

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.close()


def check_session_id(session_id: object) -> str:
    """Return `session_id` if it is a valid session id, else raise `StoreError` saying why."""
    if not isinstance(session_id, str):
        raise StoreError(f"session id must be a string, got {type(session_id).__name__}")
    if not session_id:
        raise StoreError("session id must not be empty")
    if len(session_id) > MAX_SESSION_ID_LENGTH:
        raise StoreError(f"session id is {len(session_id)} characters long; the limit is {MAX_SESSION_ID_LENGTH}")
    return session_id


def check_names(names: object) -> tuple[str, ...]:
    """Return `names` as a tuple without repeats (first occurrence wins), or raise `StoreError`."""
    if type(names) is tuple:  # what dispatch records: its names checked in one plain loop
        for name in names:
            if type(name) is not str:
                break
        else:
            return tuple(dict.fromkeys(names))
    if isinstance(names, str | bytes):
        raise StoreError("names must be a sequence of tool names, not a single string; wrap it in a list")
    if not isinstance(names, Sequence):
        raise StoreError(f"names must be a sequence of strings, got {type(names).__name__}")
    for index, name in enumerate(names):
        if not isinstance(name, str):
            raise StoreError(f"names[{index}] must be a string, got {type(name).__name__}")
    return tuple(dict.fromkeys(names))


def check_limit(value: object, *, key: str) -> int:
    """Return `value` if it is a positive int, else raise `ConfigError` for `key`."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(f"must be a positive integer, got {value!r}", key=key)
    return value
