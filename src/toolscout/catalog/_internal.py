"""The private face of `toolscout.catalog`: what the rest of toolscout uses of it and users do not.

Users import from `toolscout.catalog` (its `__all__`, pinned by `tests/public_api.json`). Other toolscout
packages, the tests and the benchmarks import these names from here: the one private module of a
package that code outside it may import (docs/ARCHITECTURE.md, "Rules"). `tests/internal_api.json`
pins this list, which may only shrink.
"""

from ._deprecation import Deprecation
from ._names import ToolNames
from ._shapes import INVISIBLE_CHARACTERS, iter_tool_specs, normalize_parameters
from ._spec import NAMESPACE_SEPARATOR, canonical_json

__all__ = [
    "canonical_json",
    "Deprecation",
    "INVISIBLE_CHARACTERS",
    "iter_tool_specs",
    "NAMESPACE_SEPARATOR",
    "normalize_parameters",
    "ToolNames",
]
