"""Tool records, shapes and catalogs."""

from .callables import tool_from_callable
from .catalog import Catalog
from .shapes import iter_tool_specs, normalize_parameters
from .spec import ToolSpec, canonical_json

__all__ = ["Catalog", "ToolSpec", "canonical_json", "iter_tool_specs", "normalize_parameters", "tool_from_callable"]
