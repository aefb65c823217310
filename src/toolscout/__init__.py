"""toolscout: keep hundreds of tools, send a handful."""

from ._version import __version__
from .catalog import Catalog, ToolSpec, tool_from_callable
from .errors import CatalogError, ConfigError, SearchError, StoreError, ToolscoutError
from .models import context_window
from .search.base import SearchHit, SearchIndex, SearchMode, SearchResult
from .session import DiscoveryStore, MemoryStore, SqliteStore
from .tokens import CharsPerToken, TiktokenCounter, TokenCounter, default_token_counter

__all__ = [
    "Catalog",
    "CatalogError",
    "CharsPerToken",
    "ConfigError",
    "DiscoveryStore",
    "MemoryStore",
    "SearchError",
    "SearchHit",
    "SearchIndex",
    "SearchMode",
    "SearchResult",
    "SqliteStore",
    "StoreError",
    "TiktokenCounter",
    "TokenCounter",
    "ToolSpec",
    "ToolscoutError",
    "__version__",
    "context_window",
    "default_token_counter",
    "tool_from_callable",
]
