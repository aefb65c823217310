"""The bridge tools the model sees in place of deferred tools.

Their definitions depend on the style and the configured names only: they never mention the
catalog's size or contents, so the request prefix stays byte-identical (and prompt-cache friendly)
while tools come and go.
"""

from __future__ import annotations

import functools

from .._settings import BridgeNames, Style
from .._texts import Bridge
from .._types import JsonObject
from ..catalog import ToolSpec

__all__ = ["bridge_tools"]

_SEARCH_PARAMETERS: JsonObject = {
    "type": "object",
    "properties": {
        "query": {
            "type": "string",
            "description": Bridge.QUERY,
        },
        "pattern": {"type": "string", "description": Bridge.PATTERN},
        "limit": {"type": "integer"},
        "offset": {"type": "integer", "description": Bridge.OFFSET},
    },
}

_SEARCH_REVEAL_PARAMETERS: JsonObject = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "description": Bridge.QUERY},
        "pattern": {"type": "string", "description": Bridge.PATTERN},
        "names": {"type": "array", "items": {"type": "string"}, "description": Bridge.NAMES},
        "limit": {"type": "integer"},
        "offset": {"type": "integer", "description": Bridge.OFFSET},
    },
}

_DESCRIBE_PARAMETERS: JsonObject = {
    "type": "object",
    "properties": {"names": {"type": "array", "items": {"type": "string"}}},
    "required": ["names"],
}

_CALL_PARAMETERS: JsonObject = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "arguments": {"type": "object"}},
    "required": ["name", "arguments"],
}


@functools.lru_cache(maxsize=32)
def bridge_tools(style: Style, names: BridgeNames, *, reveal_call: bool = False) -> tuple[ToolSpec, ...]:
    """The bridge tools of a disclosure style under `names`, in array order.

    `reveal_call` (reveal style): the call tool follows the search tool, for clients that never see a reveal.
    """
    if style == "reveal":
        search = ToolSpec(
            name=names.search, description=Bridge.SEARCH_REVEAL, parameters=_SEARCH_REVEAL_PARAMETERS, defer="never"
        )
        if not reveal_call:
            return (search,)
        call = ToolSpec(
            name=names.call, description=Bridge.call_unlisted(names), parameters=_CALL_PARAMETERS, defer="never"
        )
        return (search, call)
    return (
        ToolSpec(name=names.search, description=Bridge.SEARCH, parameters=_SEARCH_PARAMETERS, defer="never"),
        ToolSpec(
            name=names.describe, description=Bridge.describe(names), parameters=_DESCRIBE_PARAMETERS, defer="never"
        ),
        ToolSpec(name=names.call, description=Bridge.call(names), parameters=_CALL_PARAMETERS, defer="never"),
    )
