"""The private face of `toolscout.offload`: what the rest of toolscout uses of it and users do not.

Users import from `toolscout.offload` (its `__all__`, pinned by `tests/public_api.json`). Other toolscout
packages, the tests and the benchmarks import these names from here: the one private module of a
package that code outside it may import (docs/ARCHITECTURE.md, "Rules"). `tests/internal_api.json`
pins this list, which may only shrink.
"""

from ._filestore import FileOffloadStore
from ._handles import is_handle, new_handle
from ._registry import open_output_store, output_store_schemes
from ._tools import OFFLOAD_NAMES, offload_tools

__all__ = [
    "FileOffloadStore",
    "is_handle",
    "new_handle",
    "OFFLOAD_NAMES",
    "offload_tools",
    "open_output_store",
    "output_store_schemes",
]
