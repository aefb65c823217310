"""Answers to ``tool_search`` and ``tool_describe``, computed from the session's scoped catalog."""

from __future__ import annotations

import re

from .._clipping import clip, one_line
from .._errors import SearchError
from .._settings import ScoutSettings
from .._texts import Dispatch, Search
from .._types import JsonObject
from ..catalog import ToolSpec
from ..disclosure._assembly import TurnPlan
from ..search._base import SearchIndex
from ._errors import ToolError
from ._suggest import close_names

__all__ = ["answer_describe", "answer_search", "unknown_tool_error"]

_BROWSE_PAGE = 50
_BROWSE_MAX = 200
_DESCRIBE_MAX = 10
_DIGITS = re.compile(r"[0-9]{1,9}")


def answer_search(
    arguments: JsonObject,
    *,
    plan: TurnPlan,
    listed: frozenset[str],
    index: SearchIndex,
    settings: ScoutSettings,
) -> tuple[JsonObject, tuple[str, ...]] | ToolError:
    """Answer a ``tool_search`` call; returns the content and the tools it discovers."""
    query = arguments.get("query", "")
    if query is None:
        query = ""
    if not isinstance(query, str):
        return _bad_request(Search.QUERY_NOT_STRING)
    limit = _int_argument(arguments.get("limit"))
    offset = _int_argument(arguments.get("offset")) or 0
    if not query.strip():
        return _browse(plan, listed, page=min(limit or _BROWSE_PAGE, _BROWSE_MAX), offset=offset), ()
    wanted = min(max(limit or settings.search_default_limit, 1), settings.search_max_limit)
    allowed = None if plan.scoped is plan.catalog else frozenset(tool.name for tool in plan.scoped)
    try:
        result = index.search(
            query,
            limit=min(wanted + offset, settings.search_max_limit + offset),
            mode="lexical" if settings.search_mode == "lexical" else "hybrid",
            allowed=allowed,
        )
    except SearchError as exc:
        return ToolError(code="search_failed", message=str(exc), hint=Search.REPHRASE)
    hits = result.hits[offset : offset + wanted]
    reveal = settings.style == "reveal"
    entries: list[JsonObject] = []
    discovered: list[str] = []
    for hit in hits:
        tool = plan.scoped[hit.name]
        entry = _entry(tool, settings.description_chars)
        if hit.name in listed:
            entry["listed"] = True
        elif hit.name in plan.deferred:
            discovered.append(hit.name)
            if reveal:
                entry["parameters"] = tool.parameters
        entries.append(entry)
    content: JsonObject = {"query": query, "total": result.total, "tools": entries}
    if offset + len(hits) < result.total:
        content["next_offset"] = offset + len(hits)
    if entries:
        content["hint"] = (
            Search.REVEALED if reveal and discovered else Search.DESCRIBE_THEN_CALL if not reveal else Search.LISTED
        )
    else:
        content["hint"] = Search.NOTHING
        content["suggestions"] = list(result.suggestions)
        content["namespaces"] = _namespaces(plan)
    return content, tuple(discovered)


def answer_describe(
    arguments: JsonObject, *, plan: TurnPlan, listed: frozenset[str]
) -> tuple[JsonObject, tuple[str, ...]] | ToolError:
    """Answer a ``tool_describe`` call; returns the content and the tools it discovers."""
    names = arguments.get("names", arguments.get("name"))
    if isinstance(names, str):
        names = [names]
    if not isinstance(names, list) or not names or not all(isinstance(name, str) and name for name in names):
        return _bad_request(Search.NAMES_LIST)
    if len(names) > _DESCRIBE_MAX:
        return _bad_request(Search.too_many_names(_DESCRIBE_MAX))
    described: list[JsonObject] = []
    already: list[str] = []
    missing: list[str] = []
    for name in dict.fromkeys(names):
        tool = plan.scoped.get(name)
        if tool is None:
            missing.append(name)
        elif name in listed:
            already.append(name)
        else:
            described.append({**_entry(tool, None), "parameters": tool.parameters})
    if not described and not already:
        return _unknown(missing, plan)
    content: JsonObject = {"tools": described}
    if already:
        content["already_listed"] = already
    if missing:
        content["not_found"] = missing
        content["candidates"] = list(_candidates(missing, plan))
    content["hint"] = Search.DESCRIBED
    return content, tuple(str(entry["name"]) for entry in described if entry["name"] in plan.deferred)


def unknown_tool_error(name: str, plan: TurnPlan) -> ToolError:
    """The refusal for a name that is not a tool this session may use (never says which)."""
    return _unknown([name], plan)


def _unknown(names: list[str], plan: TurnPlan) -> ToolError:
    shown = ", ".join(repr(name) for name in names[:3])
    return ToolError(
        code="unknown_tool",
        message=Dispatch.unknown(shown),
        hint=Dispatch.UNKNOWN_HINT,
        tool=names[0] if len(names) == 1 else None,
        candidates=_candidates(names, plan),
    )


def _candidates(names: list[str], plan: TurnPlan) -> tuple[str, ...]:
    pool = [tool.name for tool in plan.scoped]
    found: dict[str, None] = {}
    for name in names:
        found.update(dict.fromkeys(close_names(name, pool)))
    return tuple(found)[:5]


def _browse(plan: TurnPlan, listed: frozenset[str], *, page: int, offset: int) -> JsonObject:
    tools = sorted((tool for tool in plan.scoped), key=lambda tool: (tool.namespace or "", tool.name))
    window = tools[offset : offset + page]
    content: JsonObject = {
        "query": "",
        "total": len(tools),
        "offset": offset,
        "tools": [_browse_entry(tool, listed) for tool in window],
    }
    if offset + len(window) < len(tools):
        content["next_offset"] = offset + len(window)
        content["hint"] = Search.NEXT_PAGE
    else:
        content["hint"] = Search.LAST_PAGE
    return content


def _browse_entry(tool: ToolSpec, listed: frozenset[str]) -> JsonObject:
    entry: JsonObject = {"name": tool.name}
    if tool.namespace is not None:
        entry["namespace"] = tool.namespace
    if tool.name in listed:
        entry["listed"] = True
    return entry


def _entry(tool: ToolSpec, description_chars: int | None) -> JsonObject:
    text = one_line(tool.description)
    entry: JsonObject = {"name": tool.name}
    if tool.namespace is not None:
        entry["namespace"] = tool.namespace
    entry["description"] = clip(text, description_chars) if description_chars is not None else tool.description
    return entry


def _namespaces(plan: TurnPlan) -> list[JsonObject]:
    counts: dict[str, int] = {}
    for tool in plan.scoped:
        key = tool.namespace or "general"
        counts[key] = counts.get(key, 0) + 1
    return [{"name": name, "tools": counts[name]} for name in sorted(counts)]


def _int_argument(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return max(value, 0)
    if isinstance(value, float) and value.is_integer():
        return max(int(value), 0)
    if isinstance(value, str) and _DIGITS.fullmatch(value.strip()):
        return int(value.strip())
    return None


def _bad_request(message: str) -> ToolError:
    return ToolError(code="invalid_request", message=message, hint=Dispatch.FIX_CALL)
