"""The upstream servers: one connection each (stdio or HTTP), the pool that starts them, their listings and faults."""

from __future__ import annotations

from ._connection import Upstream, upstream_limits
from ._dump import CatalogDump, ServerReport, dump_catalog, mcp_definition
from ._faults import UpstreamFault, unrouted_fault, upstream_fault
from ._health import health_report, visible_servers
from ._lenient import listed_most, repair_tools
from ._listcache import ListKind
from ._pool import UpstreamPool, UpstreamState, UpstreamStatus
from ._records import ToolListing, ToolProblem, UpstreamError, UpstreamFailure, UpstreamTool
from ._relay import Relay
from ._remembered import RememberedListings
from ._rounds import Exchange, InputRounds

__all__ = [
    "CatalogDump",
    "dump_catalog",
    "Exchange",
    "health_report",
    "InputRounds",
    "listed_most",
    "ListKind",
    "mcp_definition",
    "Relay",
    "RememberedListings",
    "repair_tools",
    "ServerReport",
    "ToolListing",
    "ToolProblem",
    "unrouted_fault",
    "Upstream",
    "upstream_fault",
    "upstream_limits",
    "UpstreamError",
    "UpstreamFailure",
    "UpstreamFault",
    "UpstreamPool",
    "UpstreamState",
    "UpstreamStatus",
    "UpstreamTool",
    "visible_servers",
]
