"""Learning from use: pairs (search request -> the tool then called successfully), per learning scope, in a store."""

from ._base import UsagePair, UsageStore
from ._registry import UsageStoreFactory, register_usage_store

__all__ = [
    "register_usage_store",
    "UsagePair",
    "UsageStore",
    "UsageStoreFactory",
]
