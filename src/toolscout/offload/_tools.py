"""The offload tools the model uses on stored outputs. Constant definitions, like the bridge tools."""

from __future__ import annotations

from .._texts import Offload
from ..catalog import ToolSpec

__all__ = ["OFFLOAD_NAMES", "QUERY", "READ", "SEARCH", "offload_tools"]

READ = "output_read"
SEARCH = "output_search"
QUERY = "output_query"
OFFLOAD_NAMES = frozenset({READ, SEARCH, QUERY})

_HANDLE = {"type": "string"}

_READ = ToolSpec(
    name=READ,
    description=Offload.READ,
    parameters={
        "type": "object",
        "properties": {
            "handle": _HANDLE,
            "start_line": {"type": "integer", "minimum": 1},
            "lines": {"type": "integer", "minimum": 1},
            "offset": {"type": "integer", "minimum": 0},
            "length": {"type": "integer", "minimum": 1},
        },
        "required": ["handle"],
    },
    defer="never",
)

_SEARCH = ToolSpec(
    name=SEARCH,
    description=Offload.SEARCH,
    parameters={
        "type": "object",
        "properties": {
            "handle": _HANDLE,
            "pattern": {"type": "string"},
            "regex": {"type": "boolean"},
            "case_sensitive": {"type": "boolean"},
            "context": {"type": "integer", "minimum": 0, "maximum": 10},
            "start_line": {"type": "integer", "minimum": 1},
            "offset": {"type": "integer", "minimum": 0},
        },
        "required": ["handle", "pattern"],
    },
    defer="never",
)

_QUERY = ToolSpec(
    name=QUERY,
    description=Offload.QUERY,
    parameters={
        "type": "object",
        "properties": {"handle": _HANDLE, "expression": {"type": "string"}},
        "required": ["handle", "expression"],
    },
    defer="never",
)


def offload_tools() -> tuple[ToolSpec, ...]:
    """The offload tools, in array order."""
    return (_READ, _SEARCH, _QUERY)
