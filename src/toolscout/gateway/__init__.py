"""The MCP gateway: config, upstream connections and catalog snapshots (needs `toolscout[mcp]`)."""

from .config import GatewayConfig, GatewaySettings, HttpServer, ServerConfig, StdioServer, load_config
from .dump import CatalogDump, ServerReport, dump_catalog, mcp_definition
from .lenient import ToolProblem, repair_tools
from .upstream import ToolListing, Upstream, UpstreamError, UpstreamFailure, UpstreamTool

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
    "load_config",
    "mcp_definition",
    "repair_tools",
]
