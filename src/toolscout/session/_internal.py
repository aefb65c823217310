"""The private face of `toolscout.session`: what the rest of toolscout uses of it and users do not.

Users import from `toolscout.session` (its `__all__`, pinned by `tests/public_api.json`). Other toolscout
packages, the tests and the benchmarks import these names from here: the one private module of a
package that code outside it may import (docs/ARCHITECTURE.md, "Rules"). `tests/internal_api.json`
pins this list, which may only shrink.
"""

from ._base import DEFAULT_MAX_SESSIONS, check_session_id
from ._registry import open_store, store_schemes

__all__ = [
    "check_session_id",
    "DEFAULT_MAX_SESSIONS",
    "open_store",
    "store_schemes",
]
