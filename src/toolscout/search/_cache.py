"""`IndexCache`: build each catalog's index once, keep the most recent few."""

from __future__ import annotations

import threading
from collections import OrderedDict

from ..catalog import Catalog
from ._base import IndexBuilder, SearchIndex
from ._index import build_index

__all__ = ["IndexCache"]


class IndexCache:
    """A thread-safe LRU of search indexes keyed by catalog fingerprint and builder.

    `get` builds an index only when no index of the same catalog content (and builder) is
    cached; concurrent callers asking for the same catalog wait for one build instead of
    starting their own. Indexes are never built per query or per session.
    """

    def __init__(self, builder: IndexBuilder = build_index, *, maxsize: int = 8) -> None:
        """Create an empty cache.

        Args:
            builder: Builds an index for a catalog (the default builds a `ToolIndex`).
            maxsize: How many indexes to keep; the least recently used is dropped first.
        """
        if maxsize < 1:
            raise ValueError(f"maxsize must be at least 1, got {maxsize}")
        self._builder = builder
        self._maxsize = maxsize
        self._entries: OrderedDict[tuple[str, object], SearchIndex] = OrderedDict()
        self._building: dict[tuple[str, object], threading.Lock] = {}
        self._lock = threading.Lock()
        self.hits = 0
        """Lookups served from the cache."""
        self.misses = 0
        """Lookups that built an index."""

    def get(self, catalog: Catalog, *, builder: IndexBuilder | None = None) -> SearchIndex:
        """Return the index of `catalog`, building it on first use.

        Args:
            catalog: The catalog; its fingerprint is the cache key.
            builder: Overrides the cache's builder for this call (part of the key).
        """
        build = builder or self._builder
        key = (catalog.fingerprint, build)
        with self._lock:
            index = self._lookup(key)
            if index is not None:
                return index
            gate = self._building.setdefault(key, threading.Lock())
        with gate:
            with self._lock:
                index = self._lookup(key)
                if index is not None:
                    return index
            index = build(catalog)
            with self._lock:
                self.misses += 1
                self._entries[key] = index
                self._building.pop(key, None)
                while len(self._entries) > self._maxsize:
                    self._entries.popitem(last=False)
        return index

    def peek(self, catalog: Catalog) -> SearchIndex | None:
        """The cached index of `catalog` built by the cache's own builder, if any (never builds)."""
        with self._lock:
            return self._entries.get((catalog.fingerprint, self._builder))

    def clear(self) -> None:
        """Drop every cached index."""
        with self._lock:
            self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)

    def _lookup(self, key: tuple[str, object]) -> SearchIndex | None:
        index = self._entries.get(key)
        if index is not None:
            self._entries.move_to_end(key)
            self.hits += 1
        return index
