"""`MemoryUsageStore`: learned pairs held in process memory."""

from __future__ import annotations

import threading
from collections.abc import Sequence

from .._errors import StoreError
from ._base import ClosingUsageStore, UsageBounds, UsagePair, check_scope, checked_pairs, expired_before

__all__ = ["MemoryUsageStore"]


class MemoryUsageStore(ClosingUsageStore):
    """A thread-safe in-memory `UsageStore`; everything is lost when the process ends. See `UsageStore`.

    Args:
        bounds: What the store holds at most.
    """

    def __init__(self, bounds: UsageBounds | None = None) -> None:
        self.bounds: UsageBounds = bounds or UsageBounds()
        self._scopes: dict[str, list[UsagePair]] = {}
        self._lock = threading.Lock()
        self._closed = False

    def record(self, pairs: Sequence[UsagePair]) -> None:
        """Add the pairs, then enforce the bounds on the scopes written."""
        checked = checked_pairs(pairs, self.bounds)
        with self._lock:
            self._check_open()
            for pair in checked:
                self._scopes.setdefault(pair.scope, []).append(pair)
            for scope in {pair.scope for pair in checked}:
                self._scopes[scope] = self._bounded(self._scopes[scope])

    def pairs(self, scope: str, *, tool: str | None = None) -> tuple[UsagePair, ...]:
        """The scope's live pairs, oldest first; only `tool`'s when given."""
        check_scope(scope)
        if tool is not None:
            check_scope(tool, what="tool")
        cutoff = expired_before(self.bounds)
        with self._lock:
            self._check_open()
            held = self._scopes.get(scope, ())
            return tuple(pair for pair in held if pair.at >= cutoff and (tool is None or pair.tool == tool))

    def scopes(self) -> tuple[str, ...]:
        """The scopes holding pairs, sorted."""
        with self._lock:
            self._check_open()
            return tuple(sorted(scope for scope, held in self._scopes.items() if held))

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
                held = self._scopes.get(name, [])
                kept = [pair for pair in held if tool is not None and pair.tool != tool]
                gone += len(held) - len(kept)
                if kept:
                    self._scopes[name] = kept
                else:
                    self._scopes.pop(name, None)
            return gone

    def close(self) -> None:
        """Drop every pair; later calls raise `StoreError`."""
        with self._lock:
            self._closed = True
            self._scopes.clear()

    def __repr__(self) -> str:
        return f"MemoryUsageStore({self.bounds!r})"

    def _bounded(self, held: list[UsagePair]) -> list[UsagePair]:
        """`held` (oldest first) without expired pairs and within the per-tool and per-scope caps."""
        cutoff = expired_before(self.bounds)
        per_tool: dict[str, int] = {}
        kept: list[UsagePair] = []
        for pair in reversed(held):
            if pair.at < cutoff or len(kept) >= self.bounds.max_pairs_per_scope:
                continue
            count = per_tool.get(pair.tool, 0)
            if count >= self.bounds.max_pairs_per_tool:
                continue
            per_tool[pair.tool] = count + 1
            kept.append(pair)
        kept.reverse()
        return kept

    def _check_open(self) -> None:
        if self._closed:
            raise StoreError("the usage store is closed")
