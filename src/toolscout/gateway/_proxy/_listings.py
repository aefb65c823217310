"""Listings gathered from every upstream, and paged to the client.

``resources/list``, ``resources/templates/list`` and ``prompts/list`` ask every connected upstream
that declared the capability, at the same time, each followed through its own pages (at most
``_MAX_PAGES``, and ``upstream_max_resources`` or ``upstream_max_prompts`` entries: those past it are
left out, with a warning naming the server and the setting, and no page is asked for once the cap is
reached); an upstream that fails or is not
connected is left out of that answer (logged), never failing the others. Each upstream's listing
is read once and kept on its connection until it says that list changed (`ListingCache`), so
paging through a listing, or many clients listing at once, reads each upstream once. The client
gets the union in pages of `PAGE_SIZE` entries, in config order, with an opaque cursor; a cursor
that does not come from this gateway is the protocol's invalid-params error.
"""

from __future__ import annotations

import base64
import binascii
import json
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

import anyio
from mcp.client import Client
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, ServerCapabilities

from .._upstream import ListKind, UpstreamError, UpstreamPool, listed_most, upstream_limits

__all__ = ["PAGE_SIZE", "gather", "offering", "page"]

logger = logging.getLogger("toolscout.gateway")

PAGE_SIZE = 200
"""Entries per page of a gathered listing."""

_MAX_PAGES = 100

_Item = TypeVar("_Item")

_KINDS: dict[str, ListKind] = {
    "resources/list": "resources",
    "resources/templates/list": "resources",
    "prompts/list": "prompts",
}
"""Each listing gathered, and the list-changed notification that makes it stale."""
_SETTINGS = {"resources": "upstream_max_resources", "prompts": "upstream_max_prompts"}


async def gather(
    pool: UpstreamPool,
    servers: Sequence[str],
    what: str,
    fetch: Callable[[Client, str | None], Awaitable[tuple[Sequence[_Item], str | None]]],
) -> list[tuple[str, _Item]]:
    """Every ``(server, entry)`` of `servers`' listings, in the order of `servers`.

    `fetch` lists one page from a client at a cursor: ``(entries, next cursor)``.
    """
    found: dict[str, Sequence[_Item]] = {}
    timeout = pool.settings.call_timeout_s
    kind = _KINDS[what]
    most = listed_most(what, upstream_limits(pool.settings))

    async def one(server: str) -> None:
        async def walk(client: Client) -> list[_Item]:
            entries: list[_Item] = []
            cursor: str | None = None
            seen: set[str] = set()
            for _ in range(_MAX_PAGES):
                items, cursor = await fetch(client, cursor)
                entries.extend(items)
                if len(entries) > most or (len(entries) == most and cursor is not None):  # no page past the cap
                    logger.warning(
                        "upstream %r: lists more than %s entries in %s (toolscout.%s); those past the first %s "
                        "are left out",
                        server,
                        f"{most:,}",
                        what,
                        _SETTINGS[kind],
                        f"{most:,}",
                    )
                    return entries[:most]
                if cursor is None or cursor in seen:
                    return entries
                seen.add(cursor)
            logger.warning("upstream %r: the %s pages never end; kept the pages read", server, what)
            return entries

        try:
            upstream = await pool.connection(server)
            entries = await upstream.listings.get(
                what,
                kind,
                lambda: upstream.request(what, walk, timeout_s=timeout),
                announced=upstream.announces(kind),
            )
        except UpstreamError as exc:
            logger.warning("%s; left out of this %s answer", exc, what)
            return
        found[server] = entries

    async with anyio.create_task_group() as group:
        for server in servers:
            group.start_soon(one, server)
    return [(server, entry) for server in servers for entry in found.get(server, ())]


def offering(pool: UpstreamPool, servers: Sequence[str], has: Callable[[ServerCapabilities], bool]) -> list[str]:
    """Those of `servers` connected now that declared the capability `has` tests.

    A listing never waits for an upstream that is starting or restarting: it answers without it.
    """
    capabilities = pool.capabilities()
    connected = {status.name for status in pool.status() if status.state == "connected"}
    return [
        name
        for name in servers
        if name in connected and (declared := capabilities.get(name)) is not None and has(declared)
    ]


def page(entries: Sequence[_Item], cursor: str | None) -> tuple[list[_Item], str | None]:
    """One page of `entries` from `cursor` on, and the cursor of the next page (None: last page).

    Raises:
        MCPError: (invalid params) `cursor` is not one this gateway gave out.
    """
    start = 0 if cursor is None else _offset(cursor)
    end = start + PAGE_SIZE
    following = _cursor(end) if end < len(entries) else None
    return list(entries[start:end]), following


def _cursor(offset: int) -> str:
    return base64.urlsafe_b64encode(json.dumps({"offset": offset}).encode()).decode()


def _offset(cursor: str) -> int:
    try:
        offset = json.loads(base64.urlsafe_b64decode(cursor.encode()))["offset"]
    except (binascii.Error, ValueError, KeyError, TypeError):
        offset = None
    if not isinstance(offset, int) or isinstance(offset, bool) or offset < 0:
        raise MCPError(INVALID_PARAMS, "invalid cursor: pass the nextCursor of the previous page unchanged")
    return offset
