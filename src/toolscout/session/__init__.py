"""Per-session discovery state: which tools each session has discovered, in order."""

from ._base import DiscoveryStore
from ._memory import MemoryStore
from ._registry import StoreFactory, open_store, register_store, store_schemes
from ._sqlite import SqliteStore

__all__ = [
    "DiscoveryStore",
    "MemoryStore",
    "open_store",
    "register_store",
    "SqliteStore",
    "store_schemes",
    "StoreFactory",
]
