"""A value per learning scope, computed from the scope's pairs and re-read only when its store version changes.

The ranking's index of past requests and auto-pin's candidates are both kept this way (`ScopeRefresh`): the
caller that finds a check due makes it (one store version read, the pairs only when the version moved), callers
meanwhile use the value held, and the next check waits `refresh_s` plus the time the last re-read took, so
re-reading never takes over the CPU (the first read of a scope builds its value from nothing and adds no wait, so
a pair recorded meanwhile is seen as soon as on a scope already read). A failing store, or a malformed pair, gives
the `failed` value until a check works again, and is reported to `on_failure`.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

from ._base import UsagePair, UsageStore

__all__ = ["ScopeRefresh"]

T = TypeVar("T")


@dataclasses.dataclass(slots=True)
class _Held(Generic[T]):
    version: str | None
    value: T
    generation: int = 0
    next_check: float = 0.0
    refreshing: bool = False
    read: bool = False
    """Whether a check has read the store (the first builds the value from nothing)."""


class ScopeRefresh(Generic[T]):
    """One value per scope over `store` (module docstring).

    Args:
        store: Where the pairs are.
        build: Makes the value from the scope's pairs and the value it replaces.
        failed: The value while the store fails (and before the first check).
        refresh_s: Seconds between checks of a scope's store version.
        on_failure: Told of each failed check.
    """

    def __init__(
        self,
        store: UsageStore,
        build: Callable[[Sequence[UsagePair], T], T],
        *,
        failed: T,
        refresh_s: float,
        on_failure: Callable[[Exception], None],
    ) -> None:
        self.store = store
        self.refresh_s = refresh_s
        """Seconds between checks of a scope's store version (0: every call checks)."""
        self._build = build
        self._failed = failed
        self._on_failure = on_failure
        self._held: dict[str, _Held[T]] = {}
        self._lock = threading.Lock()

    def get(self, scope: str) -> T:
        """The scope's value; refreshed by the one caller that finds a check due."""
        with self._lock:
            held = self._held.get(scope)
            if held is not None and (held.refreshing or time.monotonic() < held.next_check):
                return held.value
            if held is None:
                held = self._held[scope] = _Held(None, self._failed)
            held.refreshing = True
            version, value, first_read = held.version, held.value, not held.read
        started = time.monotonic()
        failure: Exception | None = None
        try:
            latest = self.store.version(scope)
            if latest != version:
                value = self._build(self.store.pairs(scope), value)
            version = latest
        except Exception as exc:  # a failing store or a malformed pair: the failed value, never an error
            failure, version, value = exc, None, self._failed
        cost = 0.0 if first_read and failure is None else time.monotonic() - started
        with self._lock:
            held.generation += value != held.value
            held.version, held.value, held.refreshing = version, value, False
            held.read = held.read or failure is None
            held.next_check = time.monotonic() + self.refresh_s + cost
        if failure is not None:
            self._on_failure(failure)
        return value

    def generation(self, scope: str) -> int:
        """A number that changes whenever the scope's value changes (no store read)."""
        with self._lock:
            held = self._held.get(scope)
            return 0 if held is None else held.generation
