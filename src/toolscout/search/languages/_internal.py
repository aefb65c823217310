"""The private face of `toolscout.search.languages`: what the rest of toolscout uses of it and users do not.

Users import from `toolscout.search.languages` (its `__all__`, pinned by `tests/public_api.json`). Other toolscout
packages, the tests and the benchmarks import these names from here: the one private module of a
package that code outside it may import (docs/ARCHITECTURE.md, "Rules"). `tests/internal_api.json`
pins this list, which may only shrink.
"""

from ._registry import HUB, on_languages_changed
from ._scripts import SCRIPTS, SEGMENTERS, bigrams, script_named

__all__ = [
    "bigrams",
    "HUB",
    "on_languages_changed",
    "script_named",
    "SCRIPTS",
    "SEGMENTERS",
]
