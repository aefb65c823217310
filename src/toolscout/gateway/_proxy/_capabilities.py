"""What the gateway tells a client it supports: its own tools, plus what its upstreams offer.

``resources``, ``prompts``, ``completions`` and ``logging`` are advertised when at least one
upstream declared them, or while an upstream has not connected yet (its capabilities are not
known, and a client asks only once). Resource subscriptions are advertised when an upstream
supports them. List changes and resource updates reach 2025-era connections as notifications;
2026-07-28 ``subscriptions/listen`` streams carry tool-list changes only, so on those
connections the resource and prompt flags are off. Tasks are never advertised: the gateway does
not forward them.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from mcp_types import ServerCapabilities

__all__ = ["offered_capabilities"]

_FROM_UPSTREAMS = ("resources", "prompts", "completions", "logging")


def offered_capabilities(
    advertised: dict[str, Any], upstreams: Iterable[ServerCapabilities | None], *, handshake: bool
) -> dict[str, Any]:
    """`advertised` (the SDK's wire ``capabilities``) narrowed to what `upstreams` offer.

    Args:
        advertised: Every capability the gateway has a handler for.
        upstreams: Each upstream's declared capabilities, None for one not connected yet.
        handshake: True on a 2025-era ``initialize``; False on a 2026-07-28 ``server/discover``.
    """
    declared = list(upstreams)
    pending = any(capabilities is None for capabilities in declared)
    known = [capabilities for capabilities in declared if capabilities is not None]
    offered = {key: value for key, value in advertised.items() if key not in _FROM_UPSTREAMS and key != "tasks"}
    for key in _FROM_UPSTREAMS:
        if key in advertised and (pending or any(getattr(capabilities, key) is not None for capabilities in known)):
            offered[key] = dict(advertised[key])
    if "resources" in offered:
        subscribe = pending or any(c.resources is not None and bool(c.resources.subscribe) for c in known)
        offered["resources"] = {"subscribe": handshake and subscribe, "listChanged": handshake}
    if "prompts" in offered:
        offered["prompts"] = {"listChanged": handshake}
    return offered
