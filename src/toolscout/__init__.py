"""toolscout: keep hundreds of tools, send a handful."""

from ._context_windows import context_window
from ._cost import CostReport, NamespaceCost, measure_cost
from ._errors import CatalogError, ConfigError, SearchError, StoreError, ToolscoutError
from ._policy import Activation
from ._scope import Scope
from ._scout import ScoutSession, ToolScout
from ._settings import BridgeNames, DeferralMode, ScopeSettings, ScoutSettings, Style
from ._tokens import BpeOpenAICounter, CharsPerToken, TiktokenCounter, TokenCounter, default_token_counter
from ._version import __version__
from .catalog import Catalog, ToolSpec, tool_from_callable
from .disclosure._assembly import Assembly, TurnPlan
from .dispatch._call import AfterCall, BeforeCall, BridgeAnswer, Handler, Resolution, ToolCall, ToolOutcome
from .dispatch._errors import ErrorCode, ToolError
from .offload import Offloader, OffloadSettings
from .search._background import SearchStatus
from .search._base import SearchHit, SearchIndex, SearchMode, SearchResult
from .search._cache import IndexCache
from .search._index import ToolIndex, build_index
from .search._semantic import build_hybrid_index
from .search._tokenize import tokenize
from .session import DiscoveryStore, MemoryStore, SqliteStore

__all__ = [
    "__version__",
    "Activation",
    "AfterCall",
    "Assembly",
    "BeforeCall",
    "BpeOpenAICounter",
    "BridgeAnswer",
    "BridgeNames",
    "build_hybrid_index",
    "build_index",
    "Catalog",
    "CatalogError",
    "CharsPerToken",
    "ConfigError",
    "context_window",
    "CostReport",
    "default_token_counter",
    "DeferralMode",
    "DiscoveryStore",
    "ErrorCode",
    "Handler",
    "IndexCache",
    "measure_cost",
    "MemoryStore",
    "NamespaceCost",
    "Offloader",
    "OffloadSettings",
    "Resolution",
    "Scope",
    "ScopeSettings",
    "ScoutSession",
    "ScoutSettings",
    "SearchError",
    "SearchHit",
    "SearchIndex",
    "SearchMode",
    "SearchResult",
    "SearchStatus",
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
