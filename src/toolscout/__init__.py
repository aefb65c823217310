"""toolscout: keep hundreds of tools, send a handful."""

from ._version import __version__
from .catalog import Catalog, ToolSpec, tool_from_callable
from .errors import CatalogError, ConfigError, SearchError, StoreError, ToolscoutError
from .search.base import SearchHit, SearchIndex, SearchMode, SearchResult

__all__ = [
    "Catalog",
    "CatalogError",
    "ConfigError",
    "SearchError",
    "SearchHit",
    "SearchIndex",
    "SearchMode",
    "SearchResult",
    "StoreError",
    "ToolSpec",
    "ToolscoutError",
    "__version__",
    "tool_from_callable",
]
