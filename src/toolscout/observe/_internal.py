"""The private face of `toolscout.observe`: what the rest of toolscout uses of it and users do not.

Users import from `toolscout.observe` (its `__all__`, pinned by `tests/public_api.json`). Other toolscout
packages, the tests and the benchmarks import these names from here: the one private module of a
package that code outside it may import (docs/ARCHITECTURE.md, "Rules"). `tests/internal_api.json`
pins this list, which may only shrink.
"""

from ._activity import activity_event
from ._metrics import CONTENT_TYPE, Metrics
from ._report import activity_events, summarise
from ._tracing import Tracing, install_provider_from_environment

__all__ = [
    "activity_event",
    "activity_events",
    "CONTENT_TYPE",
    "install_provider_from_environment",
    "Metrics",
    "summarise",
    "Tracing",
]
