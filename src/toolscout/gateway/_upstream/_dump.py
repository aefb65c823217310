"""Snapshot every upstream's tools into a catalog file (`toolscout catalog dump`).

All configured upstreams are connected at once; one that fails costs only its own tools and
is reported with the reason. The file is a JSON list of MCP tool definitions, each with its
``namespace``, sorted by namespace and name, so `Catalog.from_file` (and `toolscout inspect`)
read it and two dumps of unchanged servers are byte-identical.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import anyio

from ..._files import write_atomically
from ..._types import JsonObject
from ...catalog import Catalog, ToolSpec
from .._config import GatewayConfig, ServerConfig
from ._connection import Upstream, upstream_limits
from ._records import ToolListing, ToolProblem, UpstreamError

__all__ = ["CatalogDump", "ServerReport", "dump_catalog", "mcp_definition"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ServerReport:
    """How one upstream fared in a dump."""

    name: str
    """The server's name (the tools' namespace)."""
    tools: int = 0
    """Tools taken into the catalog."""
    repaired: tuple[str, ...] = ()
    """Tools whose input schema was normalized."""
    problems: tuple[ToolProblem, ...] = ()
    """Tools left out, and why."""
    complete: bool = True
    """False when the server's listing pages never ended (the tools read are kept)."""
    error: str | None = None
    """Why the server contributed nothing, if it failed."""


@dataclass(frozen=True, slots=True, kw_only=True)
class CatalogDump:
    """The result of a dump: the catalog and a report per server."""

    catalog: Catalog
    """Every usable tool, sorted by namespace and name."""
    servers: tuple[ServerReport, ...]
    """One report per enabled server, in config order."""

    @property
    def failed(self) -> tuple[ServerReport, ...]:
        """The servers that contributed nothing because they failed."""
        return tuple(report for report in self.servers if report.error is not None)

    def definitions(self) -> list[JsonObject]:
        """The catalog as MCP tool definitions with ``namespace``."""
        return [mcp_definition(tool) for tool in self.catalog]

    def write(self, path: str | Path) -> None:
        """Write the catalog file (atomically: a reader never sees half a file)."""
        target = Path(path)
        text = json.dumps(self.definitions(), indent=2, ensure_ascii=False) + "\n"
        write_atomically(target, lambda file: file.write(text.encode()))


def mcp_definition(tool: ToolSpec) -> JsonObject:
    """Return `tool` as an MCP tool definition (``inputSchema``, ...) plus its ``namespace``."""
    out: JsonObject = {"name": tool.name, "namespace": tool.namespace}
    if tool.title is not None:
        out["title"] = tool.title
    out["description"] = tool.description
    out["inputSchema"] = tool.parameters
    if tool.output_schema is not None:
        out["outputSchema"] = tool.output_schema
    if tool.annotations is not None:
        out["annotations"] = tool.annotations
    if tool.meta is not None:
        out["_meta"] = tool.meta
    return out


async def dump_catalog(config: GatewayConfig) -> CatalogDump:
    """Connect to every enabled upstream concurrently and collect their tools.

    Never raises for an upstream's fault: a server that cannot be started, times out or
    answers garbage gets a `ServerReport` with its `error`.
    """
    servers = config.enabled_servers()
    outcomes: dict[str, ToolListing | str] = {}

    async def collect(name: str, server: ServerConfig) -> None:
        outcomes[name] = await _list_one(name, server, config)

    async with anyio.create_task_group() as task_group:
        for name, server in servers.items():
            task_group.start_soon(collect, name, server)

    tools: list[ToolSpec] = []
    reports: list[ServerReport] = []
    for name in servers:
        outcome = outcomes[name]
        if isinstance(outcome, str):
            reports.append(ServerReport(name=name, error=outcome))
            continue
        tools.extend(tool.spec for tool in outcome.tools)
        reports.append(
            ServerReport(
                name=name,
                tools=len(outcome.tools),
                repaired=outcome.repaired,
                problems=outcome.problems,
                complete=outcome.complete,
            )
        )
    tools.sort(key=lambda tool: (tool.namespace or "", tool.name))
    return CatalogDump(catalog=Catalog(tools), servers=tuple(reports))


async def _list_one(name: str, server: ServerConfig, config: GatewayConfig) -> ToolListing | str:
    settings = config.settings
    upstream = Upstream(
        name,
        server,
        separator=settings.separator,
        connect_timeout_s=settings.connect_timeout_s,
        limits=upstream_limits(settings),
    )
    try:
        async with upstream:
            return await upstream.list_tools(timeout_s=settings.call_timeout_s)
    except UpstreamError as exc:
        return str(exc)
    except Exception as exc:  # boundary: one upstream's fault must never stop the others
        return f"upstream {name!r}: unexpected failure: {type(exc).__name__}: {exc}"
