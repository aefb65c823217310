"""Tool records, shapes and catalogs."""

from ._callables import tool_from_callable
from ._catalog import Catalog
from ._shapes import iter_tool_specs, normalize_parameters
from ._spec import ToolSpec, canonical_json

__all__ = [
    "canonical_json",
    "Catalog",
    "iter_tool_specs",
    "normalize_parameters",
    "tool_from_callable",
    "ToolSpec",
]
