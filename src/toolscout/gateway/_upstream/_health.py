"""The gateway's health report: every upstream's state, as ``/healthz`` serves it."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from ..._scope import Scope
from ..._types import JsonObject
from ...search import SearchStatus
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
    """The upstreams a grant may know of, failed and starting ones included.

    A scope that selects no servers or tools (at most a ``deny``) knows every upstream. Otherwise:
    those `servers` names, those with a tool in `scope`, and those with no tools listed (failed or
    still starting) whose tools `scope` could select (a pattern over their namespace).
    """
    names = [status.name for status in pool.status()]
    if _selects_everything(scope):
        return frozenset(names)
    separator = pool.settings.separator
    listed = {tool.spec.namespace or "" for tool in pool.tools()}
    permitted = {tool.spec.namespace or "" for tool in pool.tools() if scope.permits(tool.spec)}
    unlisted = {name for name in names if name not in listed and _may_select(scope, name, separator)}
    return frozenset(set(servers or ()) | permitted | unlisted)


def _selects_everything(scope: Scope) -> bool:
    return scope.allow is None and (scope.base is None or _selects_everything(scope.base))


def _may_select(scope: Scope, namespace: str, separator: str) -> bool:
    """Whether `scope` could let through a tool of `namespace` (named ``namespace<separator>tool``)."""
    if scope.base is not None and not _may_select(scope.base, namespace, separator):
        return False
    if scope.allow is None:
        return True
    prefix = f"{namespace}{separator}"
    for pattern in scope.allow:
        server, colon, rest = pattern.partition(":")
        if colon and server == namespace and rest:
            return True
        literal = re.split(r"[*?\[]", pattern, maxsplit=1)[0]
        if prefix.startswith(literal) or literal.startswith(prefix):
            return True
    return False


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
        "stderr": status.stderr,
        "repaired": list(status.repaired),
        "problems": [{"tool": problem.tool, "message": problem.message} for problem in status.problems],
    }
