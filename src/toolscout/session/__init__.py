"""Per-session discovery state: which tools each session has discovered, in order."""

from ._base import DiscoveryStore
from ._memory import MemoryStore
from ._sqlite import SqliteStore

__all__ = [
    "DiscoveryStore",
    "MemoryStore",
    "SqliteStore",
]
