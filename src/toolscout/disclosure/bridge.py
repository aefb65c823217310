"""The bridge tools the model sees in place of deferred tools.

Their definitions are constants: they never mention the catalog's size or contents, so
the request prefix stays byte-identical (and prompt-cache friendly) while tools come and go.
"""

from __future__ import annotations

from ..catalog import ToolSpec
from ..settings import Style

__all__ = ["BRIDGE_NAMES", "SEARCH", "bridge_tools", "DESCRIBE", "CALL"]

SEARCH = "tool_search"
DESCRIBE = "tool_describe"
CALL = "tool_call"
BRIDGE_NAMES = frozenset({SEARCH, DESCRIBE, CALL})

_QUERY = {
    "type": "string",
    "description": (
        "A few keywords naming the service and the action (e.g. 'github create issue', 'weather forecast'), "
        "or an exact tool name. Empty: list every tool, page by page."
    ),
}
_LIMIT = {"type": "integer", "minimum": 1, "description": "Most results to return (default 5)."}
_OFFSET = {"type": "integer", "minimum": 0, "description": "Skip this many results (to page through a listing)."}

_SEARCH_BRIDGE = ToolSpec(
    name=SEARCH,
    description=(
        "Find tools that exist but are not in your tool list. Returns matching tool names with short "
        "descriptions; then call tool_describe for their parameters and tool_call to run one. "
        "If nothing matches, the answer lists the available namespaces: search again with other words "
        "before deciding a capability is missing."
    ),
    parameters={"type": "object", "properties": {"query": _QUERY, "limit": _LIMIT, "offset": _OFFSET}},
    defer="never",
)

_SEARCH_REVEAL = ToolSpec(
    name=SEARCH,
    description=(
        "Find tools that exist but are not in your tool list. Matching tools are loaded with their full "
        "parameters and you can call them directly from your next step. If nothing matches, the answer "
        "lists the available namespaces: search again with other words before deciding a capability is missing."
    ),
    parameters={"type": "object", "properties": {"query": _QUERY, "limit": _LIMIT, "offset": _OFFSET}},
    defer="never",
)

_DESCRIBE = ToolSpec(
    name=DESCRIBE,
    description="Get the full parameter schemas of tools found with tool_search, by exact name.",
    parameters={
        "type": "object",
        "properties": {
            "names": {
                "type": "array",
                "items": {"type": "string"},
                "minItems": 1,
                "maxItems": 10,
                "description": "Exact tool names from tool_search.",
            }
        },
        "required": ["names"],
    },
    defer="never",
)

_CALL = ToolSpec(
    name=CALL,
    description=(
        "Run a tool found with tool_search: its exact name and its arguments as an object matching the "
        "schema from tool_describe. Tools already in your tool list are called directly, not through this."
    ),
    parameters={
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "Exact tool name."},
            "arguments": {"type": "object", "description": "The tool's arguments."},
        },
        "required": ["name", "arguments"],
    },
    defer="never",
)


def bridge_tools(style: Style) -> tuple[ToolSpec, ...]:
    """The constant bridge tools of a disclosure style, in array order."""
    if style == "bridge":
        return (_SEARCH_BRIDGE, _DESCRIBE, _CALL)
    return (_SEARCH_REVEAL,)
