"""`MemoryUsageStore`: learned pairs held in process memory."""

from __future__ import annotations

import itertools
import threading
from collections import OrderedDict, deque
from collections.abc import Sequence

from .._errors import StoreError
from ._base import ClosingUsageStore, UsageBounds, UsagePair, check_scope, checked_pairs, expired_before

__all__ = ["MemoryUsageStore"]


class _Scope:
    """One scope's pairs by arrival (O(1) eviction of the oldest), and each tool's ids, oldest first."""

    def __init__(self) -> None:
        self.pairs: OrderedDict[int, UsagePair] = OrderedDict()
        self.by_tool: dict[str, deque[int]] = {}
        self.changes = 0

    def add(self, key: int, pair: UsagePair) -> None:
        self.pairs[key] = pair
        self.by_tool.setdefault(pair.tool, deque()).append(key)

    def drop_oldest(self) -> None:
        _, pair = self.pairs.popitem(last=False)
        self._shrink(pair.tool)

    def drop_oldest_of(self, tool: str) -> None:
        self.pairs.pop(self.by_tool[tool].popleft())
        self._shrink(tool)

    def _shrink(self, tool: str) -> None:
        """Forget ids of `tool` no longer held (from either end's evictions)."""
        keys = self.by_tool[tool]
        while keys and keys[0] not in self.pairs:
            keys.popleft()
        if not keys:
            del self.by_tool[tool]


class MemoryUsageStore(ClosingUsageStore):
    """A thread-safe in-memory `UsageStore`; everything is lost when the process ends. See `UsageStore`.

    Args:
        bounds: What the store holds at most.
    """

    def __init__(self, bounds: UsageBounds | None = None) -> None:
        self.bounds: UsageBounds = bounds or UsageBounds()
        self._scopes: dict[str, _Scope] = {}
        self._ids = itertools.count()
        self._writes = itertools.count(1)
        self._lock = threading.Lock()
        self._closed = False

    def record(self, pairs: Sequence[UsagePair]) -> None:
        """Add the pairs, then enforce the bounds on the scopes and tools written."""
        checked = checked_pairs(pairs, self.bounds)
        bounds = self.bounds
        with self._lock:
            self._check_open()
            cutoff = expired_before(bounds)
            for pair in checked:
                held = self._scopes.setdefault(pair.scope, _Scope())
                held.changes = next(self._writes)
                held.add(next(self._ids), pair)
                while held.pairs and next(iter(held.pairs.values())).at < cutoff:
                    held.drop_oldest()
                while len(held.by_tool.get(pair.tool, ())) > bounds.max_pairs_per_tool:
                    held.drop_oldest_of(pair.tool)
                while len(held.pairs) > bounds.max_pairs_per_scope:
                    held.drop_oldest()

    def pairs(self, scope: str, *, tool: str | None = None) -> tuple[UsagePair, ...]:
        """The scope's live pairs, oldest first; only `tool`'s when given."""
        check_scope(scope)
        if tool is not None:
            check_scope(tool, what="tool")
        cutoff = expired_before(self.bounds)
        with self._lock:
            self._check_open()
            held = self._scopes.get(scope)
            if held is None:
                return ()
            return tuple(
                pair for pair in held.pairs.values() if pair.at >= cutoff and (tool is None or pair.tool == tool)
            )

    def version(self, scope: str) -> str:
        """Changes with every record into the scope and every forget of its pairs."""
        check_scope(scope)
        with self._lock:
            self._check_open()
            held = self._scopes.get(scope)
            return "0" if held is None else str(held.changes)

    def scopes(self) -> tuple[str, ...]:
        """The scopes holding pairs, sorted."""
        with self._lock:
            self._check_open()
            return tuple(sorted(scope for scope, held in self._scopes.items() if held.pairs))

    def forget(self, scope: str | None = None, *, tool: str | None = None) -> int:
        """Drop a scope's pairs (None: every scope's), only `tool`'s when given; returns how many went."""
        if scope is not None:
            check_scope(scope)
        if tool is not None:
            check_scope(tool, what="tool")
        with self._lock:
            self._check_open()
            gone = 0
            for name in [scope] if scope is not None else list(self._scopes):
                held = self._scopes.get(name)
                if held is None:
                    continue
                if tool is None:
                    gone += len(held.pairs)
                    del self._scopes[name]
                    continue
                while tool in held.by_tool:
                    held.drop_oldest_of(tool)
                    gone += 1
                held.changes = next(self._writes)
                if not held.pairs:
                    del self._scopes[name]
            return gone

    def close(self) -> None:
        """Drop every pair; later calls raise `StoreError`."""
        with self._lock:
            self._closed = True
            self._scopes.clear()

    def __repr__(self) -> str:
        return f"MemoryUsageStore({self.bounds!r})"

    def _check_open(self) -> None:
        if self._closed:
            raise StoreError("the usage store is closed")
