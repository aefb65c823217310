"""Tool records, shapes and catalogs."""

from ._callables import tool_from_callable
from ._catalog import Catalog
from ._spec import ToolSpec, namespace_of

__all__ = [
    "Catalog",
    "namespace_of",
    "tool_from_callable",
    "ToolSpec",
]
