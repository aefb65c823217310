"""toolscout: keep hundreds of tools, send a handful."""

from ._version import __version__
from .catalog import Catalog, ToolSpec, tool_from_callable
from .cost import CostReport, NamespaceCost, measure_cost
from .disclosure.assembly import Assembly, TurnPlan
from .dispatch.call import AfterCall, BeforeCall, BridgeAnswer, Handler, Resolution, ToolCall, ToolOutcome
from .dispatch.errors import ErrorCode, ToolError
from .errors import CatalogError, ConfigError, SearchError, StoreError, ToolscoutError
from .models import context_window
from .offload import Offloader, OffloadSettings
from .policy import Activation
from .scope import Scope
from .scout import ScoutSession, ToolScout
from .search.base import SearchHit, SearchIndex, SearchMode, SearchResult
from .search.cache import IndexCache
from .search.index import ToolIndex, build_index
from .search.semantic import build_hybrid_index
from .search.tokenize import tokenize
from .session import DiscoveryStore, MemoryStore, SqliteStore
from .settings import Mode, SearchSettings, Style
from .tokens import BpeOpenAICounter, CharsPerToken, TiktokenCounter, TokenCounter, default_token_counter

__all__ = [
    "__version__",
    "Activation",
    "AfterCall",
    "Assembly",
    "BeforeCall",
    "BpeOpenAICounter",
    "BridgeAnswer",
    "build_hybrid_index",
    "build_index",
    "Catalog",
    "CatalogError",
    "CharsPerToken",
    "ConfigError",
    "context_window",
    "CostReport",
    "default_token_counter",
    "DiscoveryStore",
    "ErrorCode",
    "Handler",
    "IndexCache",
    "measure_cost",
    "MemoryStore",
    "Mode",
    "NamespaceCost",
    "Offloader",
    "OffloadSettings",
    "Resolution",
    "Scope",
    "ScoutSession",
    "SearchError",
    "SearchHit",
    "SearchIndex",
    "SearchMode",
    "SearchResult",
    "SearchSettings",
    "SqliteStore",
    "StoreError",
    "Style",
    "TiktokenCounter",
    "TokenCounter",
    "tokenize",
    "tool_from_callable",
    "ToolCall",
    "ToolError",
    "ToolIndex",
    "ToolOutcome",
    "ToolScout",
    "ToolscoutError",
    "ToolSpec",
    "TurnPlan",
]
