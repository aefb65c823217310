"""The pieces bridge answers share: a tool's entry, a bad-request refusal, the unknown-tool refusal."""

from __future__ import annotations

from collections.abc import Sequence

from .._clipping import clip, one_line
from .._close import close_names
from .._settings import BridgeNames
from .._texts import Dispatch
from ..catalog import Catalog, ToolSpec
from ..disclosure import TurnPlan
from ._answers import FoundTool
from ._errors import ToolError

__all__ = [
    "SearchEntries",
    "bad_request",
    "candidates",
    "loaded_entry",
    "unknown_tool_error",
    "unknown_tools_error",
]


class SearchEntries(dict[str, tuple[ToolSpec, str]]):
    """What a search answer shows of each tool that is the same on every search, worked out once per plan.

    That is the tool and its description on one line, cut to ``description_chars``: worked out the first time a
    search finds the tool (``entries[name]``), then kept with the plan (one catalog under one scope).
    """

    __slots__ = ("_chars", "_tools")

    def __init__(self, tools: Catalog, chars: int) -> None:
        super().__init__()
        self._tools = tools
        self._chars = chars

    @staticmethod
    def of(plan: TurnPlan, chars: int) -> SearchEntries:
        """`plan`'s entries, descriptions cut to `chars` (made once per plan)."""
        return plan.derived(("search entries", chars), lambda: SearchEntries(plan.scoped, chars))

    def __missing__(self, name: str) -> tuple[ToolSpec, str]:
        """The tool named `name` and its description as a search answer shows it, worked out on first use."""
        tool = self._tools[name]
        known = self[name] = (tool, clip(one_line(tool.description), self._chars))
        return known


def loaded_entry(tool: ToolSpec, clip_to: int) -> FoundTool:
    """A tool as a load answer lists it: name, namespace, description cut to `clip_to` (its lines kept), schema."""
    description = clip(tool.description, clip_to)
    return FoundTool(name=tool.name, namespace=tool.namespace, description=description, parameters=tool.parameters)


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
