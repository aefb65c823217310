"""Resolve a model's tool call into a real `ToolCall`, a `BridgeAnswer`, or a `ToolError`.

The bridge is unwrapped here, before any hook, guardrail, approval or log sees the call.
"""

from __future__ import annotations

from collections.abc import Mapping

from .._settings import BridgeNames, ScoutSettings
from .._texts import Dispatch
from .._types import JsonObject
from ..catalog import ToolSpec
from ..catalog._internal import ToolNames
from ..disclosure import TurnPlan
from ..search import SearchIndex
from ..search._internal import MAX_PATTERN_LENGTH
from ._arguments import parse_arguments, validate_arguments
from ._bridge_reads import answer_describe, answer_search
from ._call import BridgeAnswer, Resolution, ToolCall, json_text
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
    The bridge tools are the ones `settings.bridge_names` names.
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
    bridge = settings.bridge_names
    if name == bridge.search or name == bridge.describe:
        answer = (
            answer_search(arguments, plan=plan, listed=listed, index=index, settings=settings)
            if name == bridge.search
            else answer_describe(arguments, plan=plan, listed=listed, settings=settings)
        )
        if isinstance(answer, ToolError):
            return answer
        read, discovered = answer
        return BridgeAnswer(
            session_id=session_id,
            name=name,
            arguments=arguments,
            answer=read,
            revealed=discovered,
            call_id=call_id,
        )
    own = own_tools or {}
    if name in own:
        return _checked(own[name], arguments, session_id=session_id, call_id=call_id, bridged=False)
    if name == bridge.call:
        return _unwrap(arguments, session_id=session_id, plan=plan, call_id=call_id, own=own, bridge=bridge)
    return _direct(name, arguments, session_id=session_id, plan=plan, call_id=call_id, bridged=False, bridge=bridge)


def _too_long(what: str, length: int, limit: int, tool: str | None) -> ToolError:
    return ToolError(
        code="invalid_request",
        message=Dispatch.too_long(what, length, limit),
        hint=Dispatch.SHORTER,
        tool=tool,
        details={"limit": limit},
    )


def _oversized(name: str, raw_arguments: object, settings: ScoutSettings) -> ToolError | None:
    r"""Refuse a name or arguments payload over its limit, or not valid Unicode, before anything reads them.

    Cheap checks only: the payload is measured in UTF-8 bytes, and a text that cannot be written so (a lone
    surrogate, which JSON's ``"\ud800"`` decodes to) is refused here rather than failing wherever it is sent on.
    """
    if len(name) > settings.max_name_chars:
        return _too_long("tool name (in characters)", len(name), settings.max_name_chars, None)
    if not name.isascii() and _utf8_size(name) is None:
        return _not_unicode("tool name", None)
    size: int | None
    if isinstance(raw_arguments, bytes):
        size = len(raw_arguments)
    elif isinstance(raw_arguments, str):
        size = _utf8_size(raw_arguments)
    elif raw_arguments is None or _surely_within(raw_arguments, settings.max_argument_bytes):
        size = 0
    else:
        size = _utf8_size(json_text(raw_arguments))
    if size is None:
        return _not_unicode("arguments payload", name)
    if size > settings.max_argument_bytes:
        return _too_long("arguments payload (in bytes)", size, settings.max_argument_bytes, name)
    return None


def _utf8_size(text: str) -> int | None:
    """`text`'s size in UTF-8 bytes; None when it holds a lone surrogate (it has none)."""
    try:
        return len(text.encode())
    except UnicodeEncodeError:
        return None


def _not_unicode(what: str, tool: str | None) -> ToolError:
    return ToolError(code="invalid_request", message=Dispatch.not_unicode(what), hint=Dispatch.VALID_TEXT, tool=tool)


def _surely_within(arguments: object, limit: int) -> bool:
    """Whether `arguments` is a flat object of ASCII text and scalars whose JSON cannot reach past `limit` bytes.

    A bound, not the size: in JSON an ASCII character takes at most 6 bytes (a control character's escape), each
    pair at most 8 more (quotes and separators), and a number, boolean or null at most 24 characters (counted as 4
    characters of text). Anything else (non-ASCII text, nesting, a huge integer) is written out and measured.
    """
    if type(arguments) is not dict:
        return False
    bound = 2
    for key, value in arguments.items():
        if type(key) is not str or not key.isascii():
            return False
        kind = type(value)
        if kind is str:
            if not value.isascii():
                return False
            chars = len(value)
        elif value is None or kind is bool or kind is float or (kind is int and -_BIG < value < _BIG):
            chars = 4
        else:
            return False
        bound += 6 * (len(key) + chars) + 8
    return bound <= limit


_BIG = 10**18
"""Integers this large or larger (in size) are measured: a smaller one takes at most 20 characters."""


def _oversized_inner(name: str, arguments: JsonObject, settings: ScoutSettings) -> ToolError | None:
    """Refuse the names, queries and patterns inside bridge calls over their limits."""
    bridge = settings.bridge_names
    if name == bridge.search:
        query = arguments.get("query")
        if isinstance(query, str) and len(query) > settings.max_query_chars:
            return _too_long("query (in characters)", len(query), settings.max_query_chars, name)
        pattern = arguments.get("pattern")
        if isinstance(pattern, str) and len(pattern) > MAX_PATTERN_LENGTH:
            return _too_long("regex pattern (in characters)", len(pattern), MAX_PATTERN_LENGTH, name)
    reads = (bridge.describe, bridge.search)
    names = arguments.get("names") if name in reads else [arguments.get("name")] if name == bridge.call else []
    if name == bridge.describe and names is None:
        names = arguments.get("name")
    if isinstance(names, str):
        names = [names]
    for item in names if isinstance(names, list) else []:
        if isinstance(item, str) and len(item) > settings.max_name_chars:
            return _too_long("tool name (in characters)", len(item), settings.max_name_chars, name)
    return None


def _unwrap(
    arguments: JsonObject,
    *,
    session_id: str,
    plan: TurnPlan,
    call_id: str | None,
    own: Mapping[str, ToolSpec],
    bridge: BridgeNames,
) -> Resolution:
    target = arguments.get("name")
    if not isinstance(target, str) or not target:
        return ToolError(
            code="invalid_request",
            message=Dispatch.call_needs_name(bridge),
            hint=Dispatch.find_then_call(bridge),
            tool=bridge.call,
        )
    if target not in plan.scoped and target not in bridge.all and target not in own:
        target = _spelled(target, plan)
    if target in bridge.all:
        return ToolError(
            code="bridge_recursion",
            message=Dispatch.bridge_recursion(target, bridge),
            hint=Dispatch.call_directly(target),
            tool=target,
        )
    if target in plan.core or target in own or target in plan.pinned:
        return ToolError(
            code="call_directly",
            message=Dispatch.already_listed(target, bridge),
            hint=Dispatch.call_directly(target),
            tool=target,
        )
    inner = parse_arguments(arguments.get("arguments"), tool=target)
    if isinstance(inner, ToolError):
        return inner
    return _direct(target, inner, session_id=session_id, plan=plan, call_id=call_id, bridged=True, bridge=bridge)


def _spelled(written: str, plan: TurnPlan) -> str:
    """The one tool of this session `written` names in any case, with or without its namespace; else `written`."""
    found = ToolNames.of(plan.scoped).match(written)
    return found.names[0] if found is not None and len(found.names) == 1 else written


def _direct(
    name: str,
    arguments: JsonObject,
    *,
    session_id: str,
    plan: TurnPlan,
    call_id: str | None,
    bridged: bool,
    bridge: BridgeNames,
) -> Resolution:
    tool = plan.scoped.get(name)
    if tool is None:
        return unknown_tool_error(name, plan, bridge)
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
