"""toolscout: keep hundreds of tools, send a handful."""

from ._context_windows import context_window
from ._cost import CostReport, NamespaceCost, measure_cost
from ._errors import CatalogError, ConfigError, SearchError, StoreError, ToolscoutError
from ._policy import Activation
from ._scope import Scope
from ._scout import ScoutSession, ToolScout
from ._settings import BridgeNames, DeferralMode, PresearchSettings, ScopeSettings, ScoutSettings, Style
from ._tokens import BpeOpenAICounter, CharsPerToken, TiktokenCounter, TokenCounter, default_token_counter
from ._version import __version__
from .catalog import Catalog, ToolSpec, tool_from_callable
from .disclosure import Assembly, TurnPlan
from .dispatch import AfterCall, BeforeCall, BridgeAnswer, ErrorCode, Handler, ToolCall, ToolError, ToolOutcome
from .offload import Offloader, OffloadSettings
from .search import SearchHit, SearchResult, SearchStatus
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
    "measure_cost",
    "MemoryStore",
    "NamespaceCost",
    "Offloader",
    "OffloadSettings",
    "PresearchSettings",
    "Scope",
    "ScopeSettings",
    "ScoutSession",
    "ScoutSettings",
    "SearchError",
    "SearchHit",
    "SearchResult",
    "SearchStatus",
    "SqliteStore",
    "StoreError",
    "Style",
    "TiktokenCounter",
    "TokenCounter",
    "tool_from_callable",
    "ToolCall",
    "ToolError",
    "ToolOutcome",
    "ToolScout",
    "ToolscoutError",
    "ToolSpec",
    "TurnPlan",
]
