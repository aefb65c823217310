"""Resolve a model's tool call into a real `ToolCall`, a `BridgeAnswer`, or a `ToolError`.

The bridge is unwrapped here, before any hook, guardrail, approval or log sees the call.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from .._settings import ScoutSettings
from .._texts import Dispatch
from .._types import JsonObject
from ..catalog import ToolSpec
from ..disclosure._assembly import TurnPlan
from ..disclosure._bridge import BRIDGE_NAMES, CALL, DESCRIBE, SEARCH
from ..search._base import SearchIndex
from ._arguments import parse_arguments, validate_arguments
from ._bridge_reads import answer_describe, answer_search
from ._call import BridgeAnswer, Resolution, ToolCall
from ._entries import unknown_tool_error
from ._errors import ToolError

__all__ = ["resolve_call"]


def resolve_call(
    name: object,
    raw_arguments: object,
    *,
    session_id: str,
    plan: TurnPlan,
    listed: frozenset[str],
    index: SearchIndex,
    settings: ScoutSettings,
    call_id: str | None = None,
    own_tools: Mapping[str, ToolSpec] | None = None,
) -> Resolution:
    """Resolve one tool call from the model. Never raises for bad input from the model.

    `own_tools` are toolscout's own always-listed tools (the offload tools): called directly
    like core tools, validated against their schemas, never reachable through ``tool_call``.
    """
    if not isinstance(name, str) or not name:
        return ToolError(
            code="invalid_request",
            message=Dispatch.NO_NAME,
            hint=Dispatch.CALL_BY_NAME,
        )
    oversized = _oversized(name, raw_arguments, settings)
    if oversized is not None:
        return oversized
    arguments = parse_arguments(raw_arguments, tool=name)
    if isinstance(arguments, ToolError):
        return arguments
    inner = _oversized_inner(name, arguments, settings)
    if inner is not None:
        return inner
    if name == SEARCH or name == DESCRIBE:
        answer = (
            answer_search(arguments, plan=plan, listed=listed, index=index, settings=settings)
            if name == SEARCH
            else answer_describe(arguments, plan=plan, listed=listed, settings=settings)
        )
        if isinstance(answer, ToolError):
            return answer
        content, discovered = answer
        return BridgeAnswer(
            session_id=session_id,
            name=name,
            arguments=arguments,
            content=content,
            revealed=discovered,
            call_id=call_id,
        )
    own = own_tools or {}
    if name in own:
        return _checked(own[name], arguments, session_id=session_id, call_id=call_id, bridged=False)
    if name == CALL:
        return _unwrap(arguments, session_id=session_id, plan=plan, call_id=call_id, own=own)
    return _direct(name, arguments, session_id=session_id, plan=plan, call_id=call_id, bridged=False)


def _too_long(what: str, length: int, limit: int, tool: str | None) -> ToolError:
    return ToolError(
        code="invalid_request",
        message=Dispatch.too_long(what, length, limit),
        hint=Dispatch.SHORTER,
        tool=tool,
        details={"limit": limit},
    )


def _oversized(name: str, raw_arguments: object, settings: ScoutSettings) -> ToolError | None:
    """Refuse a name or arguments payload over its limit before anything reads them (cheap checks only)."""
    if len(name) > settings.max_name_chars:
        return _too_long("tool name (in characters)", len(name), settings.max_name_chars, None)
    if isinstance(raw_arguments, str | bytes):
        size = len(raw_arguments.encode() if isinstance(raw_arguments, str) else raw_arguments)
    elif raw_arguments is None:
        size = 0
    else:
        size = len(json.dumps(raw_arguments, ensure_ascii=False, default=str).encode())
    if size > settings.max_argument_bytes:
        return _too_long("arguments payload (in bytes)", size, settings.max_argument_bytes, name)
    return None


def _oversized_inner(name: str, arguments: JsonObject, settings: ScoutSettings) -> ToolError | None:
    """Refuse the names and queries inside bridge calls over their limits."""
    if name == SEARCH:
        query = arguments.get("query")
        if isinstance(query, str) and len(query) > settings.max_query_chars:
            return _too_long("query (in characters)", len(query), settings.max_query_chars, name)
    names = arguments.get("names") if name in (DESCRIBE, SEARCH) else [arguments.get("name")] if name == CALL else []
    if name == DESCRIBE and names is None:
        names = arguments.get("name")
    if isinstance(names, str):
        names = [names]
    for item in names if isinstance(names, list) else []:
        if isinstance(item, str) and len(item) > settings.max_name_chars:
            return _too_long("tool name (in characters)", len(item), settings.max_name_chars, name)
    return None


def _unwrap(
    arguments: JsonObject, *, session_id: str, plan: TurnPlan, call_id: str | None, own: Mapping[str, ToolSpec]
) -> Resolution:
    target = arguments.get("name")
    if not isinstance(target, str) or not target:
        return ToolError(
            code="invalid_request",
            message=Dispatch.CALL_NEEDS_NAME,
            hint=Dispatch.FIND_THEN_CALL,
            tool=CALL,
        )
    if target in BRIDGE_NAMES:
        return ToolError(
            code="bridge_recursion",
            message=Dispatch.bridge_recursion(target),
            hint=Dispatch.call_directly(target),
            tool=target,
        )
    if target in plan.core or target in own or target in plan.pinned:
        return ToolError(
            code="call_directly",
            message=Dispatch.already_listed(target),
            hint=Dispatch.call_directly(target),
            tool=target,
        )
    inner = parse_arguments(arguments.get("arguments"), tool=target)
    if isinstance(inner, ToolError):
        return inner
    return _direct(target, inner, session_id=session_id, plan=plan, call_id=call_id, bridged=True)


def _direct(
    name: str, arguments: JsonObject, *, session_id: str, plan: TurnPlan, call_id: str | None, bridged: bool
) -> Resolution:
    tool = plan.scoped.get(name)
    if tool is None:
        return unknown_tool_error(name, plan)
    return _checked(tool, arguments, session_id=session_id, call_id=call_id, bridged=bridged)


def _checked(
    tool: ToolSpec, arguments: JsonObject, *, session_id: str, call_id: str | None, bridged: bool
) -> Resolution:
    checked = validate_arguments(tool, arguments)
    if isinstance(checked, ToolError):
        return checked
    return ToolCall(
        session_id=session_id, name=tool.name, arguments=checked, tool=tool, bridged=bridged, call_id=call_id
    )
