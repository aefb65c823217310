"""The bridge tools the model sees in place of deferred tools.

Their definitions are constants: they never mention the catalog's size or contents, so
the request prefix stays byte-identical (and prompt-cache friendly) while tools come and go.
"""

from __future__ import annotations

from .._settings import Style
from .._texts import Bridge
from .._types import JsonObject
from ..catalog import ToolSpec

__all__ = ["BRIDGE_NAMES", "SEARCH", "bridge_tools", "DESCRIBE", "CALL"]

SEARCH = "tool_search"
DESCRIBE = "tool_describe"
CALL = "tool_call"
BRIDGE_NAMES = frozenset({SEARCH, DESCRIBE, CALL})

_SEARCH_PARAMETERS: JsonObject = {
    "type": "object",
    "properties": {
        "query": {
            "type": "string",
            "description": Bridge.QUERY,
        },
        "limit": {"type": "integer"},
        "offset": {"type": "integer", "description": Bridge.OFFSET},
    },
}

_SEARCH_REVEAL_PARAMETERS: JsonObject = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "description": Bridge.QUERY},
        "names": {"type": "array", "items": {"type": "string"}, "description": Bridge.NAMES},
        "limit": {"type": "integer"},
        "offset": {"type": "integer", "description": Bridge.OFFSET},
    },
}

_SEARCH_BRIDGE = ToolSpec(
    name=SEARCH,
    description=Bridge.SEARCH,
    parameters=_SEARCH_PARAMETERS,
    defer="never",
)

_SEARCH_REVEAL = ToolSpec(
    name=SEARCH,
    description=Bridge.SEARCH_REVEAL,
    parameters=_SEARCH_REVEAL_PARAMETERS,
    defer="never",
)

_DESCRIBE = ToolSpec(
    name=DESCRIBE,
    description=Bridge.DESCRIBE,
    parameters={
        "type": "object",
        "properties": {"names": {"type": "array", "items": {"type": "string"}}},
        "required": ["names"],
    },
    defer="never",
)

_CALL = ToolSpec(
    name=CALL,
    description=Bridge.CALL,
    parameters={
        "type": "object",
        "properties": {"name": {"type": "string"}, "arguments": {"type": "object"}},
        "required": ["name", "arguments"],
    },
    defer="never",
)


def bridge_tools(style: Style) -> tuple[ToolSpec, ...]:
    """The constant bridge tools of a disclosure style, in array order."""
    if style == "bridge":
        return (_SEARCH_BRIDGE, _DESCRIBE, _CALL)
    return (_SEARCH_REVEAL,)
