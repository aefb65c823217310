"""Per-session discovery state: which tools each session has discovered, in order."""

from ._base import DEFAULT_MAX_SESSIONS, DiscoveryStore, check_session_id
from ._memory import MemoryStore
from ._registry import StoreFactory, open_store, register_store, store_schemes
from ._sqlite import SqliteStore

__all__ = [
    "check_session_id",
    "DEFAULT_MAX_SESSIONS",
    "DiscoveryStore",
    "MemoryStore",
    "open_store",
    "register_store",
    "SqliteStore",
    "store_schemes",
    "StoreFactory",
]
