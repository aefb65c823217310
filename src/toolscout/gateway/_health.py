"""The gateway's health report: every upstream's state, as ``/healthz`` serves it."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from .._scope import Scope
from .._types import JsonObject
from ..search._background import SearchStatus
from ._pool import UpstreamPool, UpstreamStatus

__all__ = ["health_report", "visible_servers"]


def health_report(
    statuses: Iterable[UpstreamStatus],
    *,
    tools: int | None = None,
    search: SearchStatus | None = None,
    renamed: Mapping[str, str] | None = None,
) -> JsonObject:
    """``{"status": "ok" | "degraded", "upstreams": [...]}`` (``ok``: every listed upstream connected).

    With `search`, a ``search`` entry says which engine the search tool runs on now; with `renamed`
    (the name the model sees → the tool's own name), a ``renamed`` entry lists the tools renamed
    because a bridge tool has their name.
    """
    upstreams = [_entry(status) for status in statuses]
    report: JsonObject = {
        "status": "ok" if all(entry["state"] == "connected" for entry in upstreams) else "degraded",
        "upstreams": upstreams,
    }
    if tools is not None:
        report["tools"] = tools
    if renamed:
        report["renamed"] = [{"tool": own, "shown_as": shown} for shown, own in renamed.items()]
    if search is not None:
        report["search"] = {
            "mode": search.mode,
            "embeddings": search.state,
            "embedder": search.embedder,
            "error": search.error,
        }
    return report


def visible_servers(pool: UpstreamPool, scope: Scope, servers: Iterable[str] | None) -> frozenset[str]:
    """The upstreams a grant may know of: those it names, and those with a tool in its scope."""
    named = set(servers or ())
    return frozenset(named | {tool.spec.namespace or "" for tool in pool.tools() if scope.permits(tool.spec)})


def _entry(status: UpstreamStatus) -> JsonObject:
    entry: JsonObject = {} if status.label is None else {"label": status.label}
    return {
        "name": status.name,
        **entry,
        "transport": status.transport,
        "state": status.state,
        "tools": status.tools,
        "restarts": status.restarts,
        "gave_up": status.gave_up,
        "protocol_version": status.protocol_version,
        "error": status.error,
        "repaired": list(status.repaired),
        "problems": [{"tool": problem.tool, "message": problem.message} for problem in status.problems],
    }
