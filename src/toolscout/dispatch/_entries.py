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

__all__ = [
    "SearchDescriptions",
    "bad_request",
    "candidates",
    "loaded_entry",
    "unknown_tool_error",
    "unknown_tools_error",
]


class SearchDescriptions:
    """The descriptions a search answer shows: one line, cut to ``description_chars``; each written once per plan.

    A plan is one catalog under one scope, so a tool's description is cut the first time a search finds it,
    not on every search.
    """

    __slots__ = ("_chars", "_written")

    def __init__(self, chars: int) -> None:
        self._chars = chars
        self._written: dict[str, str] = {}

    @staticmethod
    def of(plan: TurnPlan, chars: int) -> SearchDescriptions:
        """`plan`'s descriptions cut to `chars` (made once per plan)."""
        return plan.derived(("search descriptions", chars), lambda: SearchDescriptions(chars))

    def __call__(self, tool: ToolSpec) -> str:
        """`tool`'s description as a search answer shows it."""
        written = self._written.get(tool.name)
        if written is None:
            written = self._written[tool.name] = clip(one_line(tool.description), self._chars)
        return written


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
