"""The private face of `toolscout.providers`: what the rest of toolscout uses of it and users do not.

Users import from `toolscout.providers` (its `__all__`, pinned by `tests/public_api.json`). Other toolscout
packages, the tests and the benchmarks import these names from here: the one private module of a
package that code outside it may import (docs/ARCHITECTURE.md, "Rules"). `tests/internal_api.json`
pins this list, which may only shrink.
"""

from ._auto import native_supported
from ._calls import NativeSearch, Rendering, presented
from ._json import as_json, dicts
from ._measure import measure_rendering
from ._names import ANTHROPIC_NAMES, GEMINI_NAMES, OPENAI_NAMES, provider_name
from ._registry import Adapter, provider_names
from ._surface import ProviderStyle, build_surface, name_map

__all__ = [
    "Adapter",
    "ANTHROPIC_NAMES",
    "as_json",
    "build_surface",
    "dicts",
    "GEMINI_NAMES",
    "measure_rendering",
    "name_map",
    "native_supported",
    "NativeSearch",
    "OPENAI_NAMES",
    "presented",
    "provider_name",
    "provider_names",
    "ProviderStyle",
    "Rendering",
]
