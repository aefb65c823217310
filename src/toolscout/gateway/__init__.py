"""The MCP gateway: config, upstream connections and catalog snapshots (needs `toolscout[mcp]`)."""

from .config import GatewayConfig, GatewaySettings, HttpServer, ServerConfig, StdioServer, load_config
from .dump import CatalogDump, ServerReport, dump_catalog, mcp_definition
from .envsubst import expand_env
from .lenient import repair_tools
from .records import ToolListing, ToolProblem, UpstreamError, UpstreamFailure, UpstreamTool
from .upstream import Upstream

__all__ = [
    "CatalogDump",
    "GatewayConfig",
    "GatewaySettings",
    "HttpServer",
    "ServerConfig",
    "ServerReport",
    "StdioServer",
    "ToolListing",
    "ToolProblem",
    "Upstream",
    "UpstreamError",
    "UpstreamFailure",
    "UpstreamTool",
    "dump_catalog",
    "expand_env",
    "load_config",
    "mcp_definition",
    "repair_tools",
]
