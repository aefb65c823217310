"""The MCP gateway: config, upstream connections, the downstream server (needs `toolscout[mcp]`)."""

from .auth import AuthSettings, StaticTokenVerifier, TokenGrant
from .config import GatewayConfig, GatewaySettings, HttpServer, ServerConfig, StdioServer, load_config
from .dump import CatalogDump, ServerReport, dump_catalog, mcp_definition
from .envsubst import expand_env
from .lenient import repair_tools
from .pool import UpstreamPool, UpstreamState, UpstreamStatus
from .records import ToolListing, ToolProblem, UpstreamError, UpstreamFailure, UpstreamTool
from .serve import run_gateway, serve_http, serve_stdio
from .server import Gateway
from .sessions import SESSION_HEADER
from .upstream import Upstream

__all__ = [
    "SESSION_HEADER",
    "AuthSettings",
    "CatalogDump",
    "Gateway",
    "GatewayConfig",
    "GatewaySettings",
    "HttpServer",
    "ServerConfig",
    "ServerReport",
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
    "dump_catalog",
    "expand_env",
    "load_config",
    "mcp_definition",
    "repair_tools",
    "run_gateway",
    "serve_http",
    "serve_stdio",
]
