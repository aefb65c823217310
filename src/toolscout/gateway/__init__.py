"""The MCP gateway: config, upstream connections, the downstream server."""

from ._auth import AuthSettings, StaticTokens, StaticTokenVerifier, TokenGrant
from ._config import GatewayConfig, GatewaySettings, HttpServer, ServerConfig, StdioServer, load_config
from ._dump import CatalogDump, ServerReport, dump_catalog, mcp_definition
from ._envsubst import expand_env, required_variables
from ._feed import ChangeFeed, Deliver, FeedFactory, register_feed
from ._files import read_document
from ._identity import (
    Authenticator,
    AuthenticatorFactory,
    Credentials,
    Grant,
    GrantRule,
    Refusal,
    register_authenticator,
)
from ._lenient import repair_tools
from ._logs import configure_logging
from ._oauth import JwtAuthenticator, OAuthGrant, OAuthSettings
from ._pool import UpstreamPool, UpstreamState, UpstreamStatus
from ._records import ToolListing, ToolProblem, UpstreamError, UpstreamFailure, UpstreamTool
from ._serve import run_gateway, serve_http, serve_stdio
from ._server import Gateway
from ._sessions import SESSION_HEADER
from ._upstream import Upstream

__all__ = [
    "Authenticator",
    "AuthenticatorFactory",
    "AuthSettings",
    "CatalogDump",
    "ChangeFeed",
    "configure_logging",
    "Credentials",
    "Deliver",
    "dump_catalog",
    "expand_env",
    "FeedFactory",
    "Gateway",
    "GatewayConfig",
    "GatewaySettings",
    "Grant",
    "GrantRule",
    "HttpServer",
    "JwtAuthenticator",
    "load_config",
    "mcp_definition",
    "OAuthGrant",
    "OAuthSettings",
    "read_document",
    "Refusal",
    "register_authenticator",
    "register_feed",
    "repair_tools",
    "required_variables",
    "run_gateway",
    "serve_http",
    "serve_stdio",
    "ServerConfig",
    "ServerReport",
    "SESSION_HEADER",
    "StaticTokens",
    "StaticTokenVerifier",
    "StdioServer",
    "TokenGrant",
    "ToolListing",
    "ToolProblem",
    "Upstream",
    "UpstreamError",
    "UpstreamFailure",
    "UpstreamPool",
    "UpstreamState",
    "UpstreamStatus",
    "UpstreamTool",
]
