"""Learning from use: pairs (search request -> the tool then called successfully), per learning scope, in a store."""

from ._base import UsageBounds, UsagePair, UsageStore, export_pairs
from ._memory import MemoryUsageStore
from ._ranking import LearnedRanking, learned_search
from ._recorder import UsageRecorder
from ._registry import UsageStoreFactory, open_usage_store, register_usage_store
from ._sqlite import SqliteUsageStore

__all__ = [
    "export_pairs",
    "learned_search",
    "LearnedRanking",
    "MemoryUsageStore",
    "open_usage_store",
    "register_usage_store",
    "SqliteUsageStore",
    "UsageBounds",
    "UsagePair",
    "UsageRecorder",
    "UsageStore",
    "UsageStoreFactory",
]
