"""Per-session discovery state: which tools each session has discovered, in order."""

from .base import DiscoveryStore
from .memory import MemoryStore
from .sqlite import SqliteStore

__all__ = ["DiscoveryStore", "MemoryStore", "SqliteStore"]
