"""The private face of `toolscout.learning`: what the rest of toolscout uses of it and users do not.

Users import from `toolscout.learning` (its `__all__`, pinned by `tests/public_api.json`). Other toolscout
packages, the tests and the benchmarks import these names from here: the one private module of a
package that code outside it may import (docs/ARCHITECTURE.md, "Rules"). `tests/internal_api.json`
pins this list, which may only shrink.
"""

from ._autopin import AutoPins
from ._base import UsageBounds, export_pairs
from ._memory import MemoryUsageStore
from ._ranking import LearnedRanking, learned_search
from ._recorder import UsageRecorder
from ._registry import open_usage_store, store_kind
from ._sqlite import SqliteUsageStore

__all__ = [
    "AutoPins",
    "export_pairs",
    "learned_search",
    "LearnedRanking",
    "MemoryUsageStore",
    "open_usage_store",
    "SqliteUsageStore",
    "store_kind",
    "UsageBounds",
    "UsageRecorder",
]
