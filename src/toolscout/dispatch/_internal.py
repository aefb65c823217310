"""The private face of `toolscout.dispatch`: what the rest of toolscout uses of it and users do not.

Users import from `toolscout.dispatch` (its `__all__`, pinned by `tests/public_api.json`). Other toolscout
packages, the tests and the benchmarks import these names from here: the one private module of a
package that code outside it may import (docs/ARCHITECTURE.md, "Rules"). `tests/internal_api.json`
pins this list, which may only shrink.
"""

from ._answers import ServerNotReady
from ._call import Resolution
from ._context import AnswerContext
from ._resolve import resolve_call
from ._run import run_resolution

__all__ = [
    "AnswerContext",
    "Resolution",
    "resolve_call",
    "run_resolution",
    "ServerNotReady",
]
