"""`ListingCache`: one upstream connection's resource, template and prompt listings, read once and kept.

A listing is read from the upstream on the first request that needs it, by that request alone
(others wait for it and share it), and kept until the upstream says that list changed
(``notifications/resources/list_changed`` for resources and templates,
``notifications/prompts/list_changed`` for prompts). From an upstream that does not announce
changes (no ``listChanged`` in its capability, or a 2026-07-28 server, which announces them only
on a listen stream) a listing is kept `UNANNOUNCED_KEEP_S` seconds. The cache belongs to one
connection, so a restarted server is read afresh.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

import anyio

__all__ = ["UNANNOUNCED_KEEP_S", "ListingCache", "ListKind"]

ListKind: TypeAlias = Literal["resources", "prompts"]
"""What a list-changed notification is about: ``resources`` covers resource templates too."""

UNANNOUNCED_KEEP_S = 30.0
"""Seconds a listing is kept from an upstream that does not announce its list changes."""


@dataclass(frozen=True, slots=True)
class _Kept:
    version: int
    read_at: float
    entries: Sequence[Any]


class ListingCache:
    """The listings of one connection, by method (see the module docs)."""

    def __init__(self) -> None:
        """Start empty."""
        self._versions: dict[ListKind, int] = {"resources": 0, "prompts": 0}
        self._kept: dict[str, _Kept] = {}
        self._locks: dict[str, anyio.Lock] = {}

    def changed(self, kind: ListKind) -> None:
        """The upstream said its `kind` list changed: the next request reads it again."""
        self._versions[kind] += 1

    async def get(
        self, method: str, kind: ListKind, read: Callable[[], Awaitable[Sequence[Any]]], *, announced: bool
    ) -> Sequence[Any]:
        """The kept listing of `method`, or what `read` returns (then kept) when there is none still valid.

        Args:
            method: The list request (``resources/list``, ``resources/templates/list``, ``prompts/list``).
            kind: Which list-changed notification makes it stale.
            read: Reads the whole listing from the upstream; its errors pass through, nothing kept.
            announced: Whether the upstream announces changes of `kind` (else it is kept for a while only).
        """
        lock = self._locks.setdefault(method, anyio.Lock())
        async with lock:
            kept = self._kept.get(method)
            if kept is not None and self._valid(kept, kind, announced):
                return kept.entries
            version = self._versions[kind]
            entries = await read()
            self._kept[method] = _Kept(version=version, read_at=anyio.current_time(), entries=entries)
            return entries

    def _valid(self, kept: _Kept, kind: ListKind, announced: bool) -> bool:
        if kept.version != self._versions[kind]:
            return False
        return announced or anyio.current_time() - kept.read_at < UNANNOUNCED_KEEP_S
