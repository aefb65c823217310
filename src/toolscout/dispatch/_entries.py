"""The pieces bridge answers share: a tool's entry, a bad-request refusal, the unknown-tool refusal."""

from __future__ import annotations

from collections.abc import Sequence

from .._clipping import clip, one_line
from .._close import close_names
from .._settings import BridgeNames
from .._texts import Dispatch
from ..catalog import ToolSpec
from ..disclosure import TurnPlan
from ._answers import FoundTool
from ._errors import ToolError

__all__ = ["bad_request", "candidates", "tool_entry", "unknown_tool_error", "unknown_tools_error"]


def tool_entry(tool: ToolSpec, description_chars: int | None, *, clip_to: int | None = None) -> FoundTool:
    """A tool's name, namespace and description.

    The description is one line cut to `description_chars` when given, else whole (cut to `clip_to`
    characters when given, its lines kept).
    """
    if description_chars is None:
        description = tool.description if clip_to is None else clip(tool.description, clip_to)
    else:
        description = clip(one_line(tool.description), description_chars)
    return FoundTool(name=tool.name, namespace=tool.namespace, description=description)


def bad_request(message: str) -> ToolError:
    """A malformed bridge call."""
    return ToolError(code="invalid_request", message=message, hint=Dispatch.FIX_CALL)


def unknown_tool_error(name: str, plan: TurnPlan, bridge: BridgeNames) -> ToolError:
    """The refusal for a name that is not a tool this session may use (never says which)."""
    return unknown_tools_error([name], plan, hint=Dispatch.unknown_hint(bridge))


def unknown_tools_error(names: Sequence[str], plan: TurnPlan, *, hint: str) -> ToolError:
    """The refusal for names none of which is a tool this session may use."""
    shown = ", ".join(repr(name) for name in names[:3])
    return ToolError(
        code="unknown_tool",
        message=Dispatch.unknown(shown),
        hint=hint,
        tool=names[0] if len(names) == 1 else None,
        candidates=candidates(names, plan),
    )


def candidates(names: Sequence[str], plan: TurnPlan) -> tuple[str, ...]:
    """Up to five tool names of the session that look like `names`."""
    pool = [tool.name for tool in plan.scoped]
    found: dict[str, None] = {}
    for name in names:
        found.update(dict.fromkeys(close_names(name, pool)))
    return tuple(found)[:5]
