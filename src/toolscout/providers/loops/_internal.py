"""The private face of `toolscout.providers.loops`: what the rest of toolscout uses of it and users do not.

Users import from `toolscout.providers.loops` (its `__all__`, pinned by `tests/public_api.json`). Other toolscout
packages, the tests and the benchmarks import these names from here: the one private module of a
package that code outside it may import (docs/ARCHITECTURE.md, "Rules"). `tests/internal_api.json`
pins this list, which may only shrink.
"""

from ._turn import user_texts

__all__ = [
    "user_texts",
]
