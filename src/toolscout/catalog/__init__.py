"""Tool records, shapes and catalogs."""

from ._callables import tool_from_callable
from ._catalog import Catalog
from ._deprecation import Deprecation
from ._names import ToolNames
from ._shapes import INVISIBLE_CHARACTERS, iter_tool_specs, normalize_parameters
from ._spec import NAMESPACE_SEPARATOR, ToolSpec, canonical_json, namespace_of

__all__ = [
    "canonical_json",
    "Catalog",
    "Deprecation",
    "INVISIBLE_CHARACTERS",
    "iter_tool_specs",
    "namespace_of",
    "NAMESPACE_SEPARATOR",
    "normalize_parameters",
    "tool_from_callable",
    "ToolNames",
    "ToolSpec",
]
