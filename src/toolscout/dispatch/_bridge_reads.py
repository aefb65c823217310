"""Answers to ``tool_search`` and ``tool_describe``, computed from the session's scoped catalog.

``tool_search`` takes ``names`` (load those tools, as ``tool_describe`` does; see `answer_load`), or
a search: ``query`` (keywords), ``pattern`` (a regex over names, descriptions and parameters, run on
RE2 like the CLI's regex mode), or both, where the pattern filters and the query ranks what it lets
through. Neither browses the catalog page by page. A query that is exactly a tool's name (any case,
quoted, with or without its namespace) answers with that tool alone (the pipeline's exact-name stage). A
search's hits are those the search pipeline returns (the engine's relevance floor and its one top band,
``search_top_band``, sentence parts, then the reranker, if any), each with the engine's ``confidence``; in reveal
style at most ``search_max_reveal`` of them are revealed (the others are listed as ``not_revealed``). When the
engine abstains (no candidate is confident enough), the answer has no tools, says so, and names the
nearest candidates as ``suggestions``.
"""

from __future__ import annotations

import re

from .._errors import SearchError
from .._settings import ScoutSettings
from .._texts import Dispatch, Search
from .._types import JsonObject
from ..catalog._internal import ToolNames
from ..disclosure import TurnPlan
from ..search import SearchIndex, SearchResult
from ..search._internal import MAX_PATTERN_LENGTH, PatternError, request_mode
from ._answers import BridgeRead, FoundTool, LoadAnswer, NamespaceCount, SearchAnswer, search_entry
from ._entries import SearchEntries, bad_request
from ._errors import ToolError
from ._load import answer_load
from ._pattern import pattern_matches

__all__ = ["answer_describe", "answer_search"]

_BROWSE_PAGE = 50
_BROWSE_MAX = 200
_DIGITS = re.compile(r"[0-9]{1,9}")


def answer_search(
    arguments: JsonObject,
    *,
    plan: TurnPlan,
    listed: frozenset[str],
    index: SearchIndex,
    settings: ScoutSettings,
) -> tuple[BridgeRead, tuple[str, ...]] | ToolError:
    """Answer a ``tool_search`` call; returns the answer and the tools it discovers."""
    query = arguments.get("query", "")
    if query is None:
        query = ""
    if not isinstance(query, str):
        return bad_request(Search.QUERY_NOT_STRING)
    pattern = arguments.get("pattern", "")
    if pattern is None:
        pattern = ""
    if not isinstance(pattern, str):
        return bad_request(Search.PATTERN_NOT_STRING)
    names = arguments.get("names")
    if names not in (None, "", []):
        if query.strip() or pattern:
            return bad_request(Search.QUERY_OR_NAMES)
        return answer_load(names, plan=plan, listed=listed, settings=settings)
    limit = _int_argument(arguments.get("limit"), least=1)
    if isinstance(limit, _Bad):
        return ToolError(
            code="invalid_request",
            message=Search.bad_limit(settings.search_max_limit),
            hint=Dispatch.FIX_CALL,
            tool=settings.bridge_names.search,
            details={"limit": settings.search_max_limit},
        )
    offset = _int_argument(arguments.get("offset"), least=0)
    if isinstance(offset, _Bad):
        return ToolError(
            code="invalid_request", message=Search.BAD_OFFSET, hint=Dispatch.FIX_CALL, tool=settings.bridge_names.search
        )
    offset = offset or 0
    if not query.strip() and not pattern:
        page = min(limit or _BROWSE_PAGE, _BROWSE_MAX)
        return _browse(plan, listed, page=page, offset=offset, settings=settings), ()
    wanted = min(max(limit or settings.search_default_limit, 1), settings.search_max_limit)
    try:
        result = _find(query, pattern, plan=plan, index=index, settings=settings, limit=wanted + offset)
    except PatternError as exc:
        return ToolError(
            code="invalid_request",
            message=Search.invalid_pattern(exc.detail),
            hint=Search.fix_pattern(MAX_PATTERN_LENGTH),
            tool=settings.bridge_names.search,
            details={"limit": MAX_PATTERN_LENGTH},
        )
    except SearchError as exc:
        return ToolError(code="search_failed", message=str(exc), hint=Search.REPHRASE)
    hits = result.hits[offset : offset + wanted]
    reveal = settings.style == "reveal"
    entries = SearchEntries.of(plan, settings.description_chars)
    found: list[FoundTool] = []
    discovered: list[str] = []
    held: list[str] = []
    deferred = plan.deferred
    shown_hits = 0
    for hit in hits:
        name = hit.name
        tool, description = entries[name]
        parameters = None
        shown = name in listed
        shown_hits += shown
        if not shown and name in deferred:
            if reveal and len(discovered) >= settings.search_max_reveal:
                held.append(name)
            else:
                discovered.append(name)
                if reveal:
                    parameters = tool.parameters
        found.append(
            search_entry(tool.name, tool.namespace, description, shown, parameters, hit.confidence, hit.learned)
        )
    if held:
        hint = Search.revealed_first(settings.search_max_reveal, settings.bridge_names)
    elif found and reveal:
        if discovered:
            hint = Search.revealed_or_call(settings.bridge_names) if settings.reveal_call_tool else Search.REVEALED
        else:
            hint = Search.LISTED
    elif found:
        hint = _bridge_hint(shown_hits, len(found), settings)
    else:
        hint = Search.NO_FIT if result.abstained else Search.NOTHING
    nothing = not found and not held
    answer = SearchAnswer(
        query=query,
        pattern=pattern,
        total=result.total,
        tools=tuple(found),
        next_offset=offset + len(hits) if offset + len(hits) < result.total else None,
        not_revealed=tuple(held),
        hint=hint,
        suggestions=tuple(result.suggestions) if nothing else None,
        namespaces=_namespaces(plan) if nothing else None,
    )
    return answer, tuple(discovered)


def _find(
    query: str, pattern: str, *, plan: TurnPlan, index: SearchIndex, settings: ScoutSettings, limit: int
) -> SearchResult:
    """The hits of `query` among the tools `pattern` matches (either may be empty, not both)."""
    allowed: frozenset[str] | None = None
    if plan.scoped is not plan.catalog:
        allowed = frozenset(tool.name for tool in plan.scoped)
    if not query.strip():
        return index.search(pattern, limit=limit, mode="regex", allowed=allowed)
    if pattern:
        named = ToolNames.of(plan.catalog).query_match(query, allowed)
        allowed = pattern_matches(pattern, plan.scoped)
        if named is not None and allowed.isdisjoint(named.names):  # the tool the query names, filtered out
            return SearchResult(query=query, mode="lexical", hits=(), total=0)
    if allowed is not None and not allowed:
        return SearchResult(query=query, mode="regex", hits=(), total=0)
    return index.search(query, limit=limit, mode=request_mode(settings.search_mode), allowed=allowed)


def answer_describe(
    arguments: JsonObject, *, plan: TurnPlan, listed: frozenset[str], settings: ScoutSettings
) -> tuple[LoadAnswer, tuple[str, ...]] | ToolError:
    """Answer a ``tool_describe`` call (`names`, or one `name`); returns the answer and the tools it discovers."""
    return answer_load(arguments.get("names", arguments.get("name")), plan=plan, listed=listed, settings=settings)


def _browse(plan: TurnPlan, listed: frozenset[str], *, page: int, offset: int, settings: ScoutSettings) -> SearchAnswer:
    tools = sorted((tool for tool in plan.scoped), key=lambda tool: (tool.namespace or "", tool.name))
    window = tools[offset : offset + page]
    more = offset + len(window) < len(tools)
    return SearchAnswer(
        query="",
        total=len(tools),
        offset=offset,
        tools=tuple(FoundTool(name=tool.name, namespace=tool.namespace, listed=tool.name in listed) for tool in window),
        next_offset=offset + len(window) if more else None,
        hint=Search.next_page(settings.bridge_names) if more else Search.LAST_PAGE,
    )


def _namespaces(plan: TurnPlan) -> tuple[NamespaceCount, ...]:
    counts: dict[str, int] = {}
    for tool in plan.scoped:
        key = tool.namespace or "general"
        counts[key] = counts.get(key, 0) + 1
    return tuple(NamespaceCount(name=name, tools=counts[name]) for name in sorted(counts))


def _bridge_hint(listed: int, found: int, settings: ScoutSettings) -> str:
    """Bridge style: listed hits are called directly, the others described then called."""
    if listed == found:
        return Search.LISTED
    if listed:
        return Search.listed_or_describe(settings.bridge_names)
    return Search.describe_then_call(settings.bridge_names)


class _Bad:
    """A paging argument that is not a whole number at least its least value."""


def _int_argument(value: object, *, least: int) -> int | None | _Bad:
    """A whole number (digits in a string too) at least `least`; None when absent, `_Bad` otherwise."""
    if value is None or value == "":
        return None
    number: int | None = None
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif isinstance(value, float) and value.is_integer():
        number = int(value)
    elif isinstance(value, str) and _DIGITS.fullmatch(value.strip()):
        number = int(value.strip())
    return _Bad() if number is None or number < least else number
