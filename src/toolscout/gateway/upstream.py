"""`Upstream`: one live connection to an MCP server, over stdio or Streamable HTTP.

```python
async with Upstream("time", StdioServer(command="mcp-server-time")) as upstream:
    listing = await upstream.list_tools()          # every page, malformed tools reported
    result = await upstream.call_tool("get_current_time", {"timezone": "Asia/Tokyo"}, timeout_s=60)
```

The connection lives in a task of its own, so a connect timeout can cancel a hung start-up
cleanly and a server that dies later only fails the calls made to it.
"""

from __future__ import annotations

import logging
import os
import sys
import tempfile
from collections.abc import Mapping
from contextlib import AsyncExitStack
from types import TracebackType
from typing import TextIO

import anyio
import anyio.abc
import httpx2
from mcp.client import Client, Transport
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp_types import CONNECTION_CLOSED, CallToolResult, Implementation, Tool

from .._types import JsonObject
from .._version import __version__
from ..catalog import iter_tool_specs
from ..errors import CatalogError
from .config import HttpServer, ServerConfig
from .lenient import RepairLog, lenient_tool_listing
from .records import ToolListing, ToolProblem, UpstreamError, UpstreamFailure, UpstreamTool

__all__ = ["Upstream"]

logger = logging.getLogger("toolscout.gateway")

_MAX_PAGES = 1000
# The MCP tool fields the catalog keeps (not `_meta`, `icons`, `execution`).
_DEFINITION_KEYS = ("title", "description", "inputSchema", "outputSchema", "annotations")
_STDERR_TAIL_BYTES = 1500


class Upstream:
    """A connection to one upstream MCP server; use as an async context manager."""

    def __init__(
        self, name: str, config: ServerConfig, *, separator: str = "__", connect_timeout_s: float = 30.0
    ) -> None:
        """Prepare (not open) a connection.

        Args:
            name: The server's name: namespace and name prefix of its tools.
            config: How to start or reach it.
            separator: Joins server and tool names.
            connect_timeout_s: Seconds to start the server and finish the MCP handshake.
        """
        self.name = name
        self.config = config
        self.separator = separator
        self.connect_timeout_s = connect_timeout_s
        self._repairs = RepairLog()
        self._closing = anyio.Event()
        self._listing_lock = anyio.Lock()
        self._task_group: anyio.abc.TaskGroup | None = None
        self._client: Client | None = None
        self._stderr: TextIO | None = None

    def __repr__(self) -> str:
        return f"Upstream({self.name!r}, {type(self.config).__name__})"

    async def __aenter__(self) -> Upstream:
        """Start or reach the server and complete the MCP handshake.

        Raises:
            UpstreamError: (kind ``start``) it cannot be started, exits, or does not answer in time.
        """
        if self._task_group is not None:
            raise RuntimeError("an Upstream can be entered only once")
        if not isinstance(self.config, HttpServer):
            # Owned here, not by the connection task, so a failed start-up can still be explained.
            self._stderr = tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")
        self._task_group = task_group = anyio.create_task_group()
        await task_group.__aenter__()
        try:
            with anyio.fail_after(self.connect_timeout_s):
                self._client = await task_group.start(self._hold)
        except BaseException as exc:
            task_group.cancel_scope.cancel()
            await task_group.__aexit__(None, None, None)
            try:
                if isinstance(exc, TimeoutError):
                    message = f"did not finish the MCP handshake within {self.connect_timeout_s:g} s"
                    raise self._error(message, "start") from None
                if isinstance(exc, Exception):
                    raise self._error(_start_failure(exc, self.config), "start") from exc
                raise
            finally:
                self._close_stderr()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        """Close the connection (and stop a stdio server)."""
        self._closing.set()
        self._client = None
        if self._task_group is not None:
            await self._task_group.__aexit__(None, None, None)
        self._close_stderr()

    @property
    def protocol_version(self) -> str | None:
        """The negotiated MCP protocol version, once connected."""
        return self._client.protocol_version if self._client is not None else None

    async def list_tools(self, *, timeout_s: float | None = None) -> ToolListing:
        """List every tool, following ``nextCursor`` pages, namespaced and repaired.

        Raises:
            UpstreamError: The listing failed as a whole (timeout, closed connection, error answer).
        """
        client = self._connected()
        async with self._listing_lock:
            self._repairs.drain()
            raw: list[Tool] = []
            problems: list[ToolProblem] = []
            try:
                with anyio.fail_after(timeout_s):
                    cursor: str | None = None
                    seen: set[str] = set()
                    for _ in range(_MAX_PAGES):
                        page = await client.list_tools(cursor=cursor)
                        raw.extend(page.tools)
                        cursor = page.next_cursor
                        if cursor is None or cursor in seen:
                            break
                        seen.add(cursor)
                    if cursor is not None:
                        logger.warning("upstream %r: the tools/list pages never end; kept the pages read", self.name)
            except TimeoutError:
                raise self._error(f"tools/list took longer than {timeout_s:g} s", "timeout") from None
            except Exception as exc:  # boundary: whatever an upstream does must become an UpstreamError
                raise self._request_error(exc, "tools/list") from exc
            repaired, skipped = self._repairs.drain()
            tools = self._namespaced(raw, problems)
        return ToolListing(
            server=self.name,
            tools=tools,
            repaired=repaired,
            problems=(*skipped, *problems),
            complete=cursor is None,
        )

    async def call_tool(
        self, tool: str, arguments: Mapping[str, object] | None = None, *, timeout_s: float | None = None
    ) -> CallToolResult:
        """Call a tool by its upstream name; a tool's own failure is a result with ``is_error``.

        Raises:
            UpstreamError: No answer within `timeout_s`, the connection is gone, or the server
                answered with a protocol error or a malformed result.
        """
        client = self._connected()
        try:
            with anyio.fail_after(timeout_s):
                return await client.call_tool(tool, dict(arguments or {}))
        except TimeoutError:
            raise self._error(f"tool {tool!r} did not answer within {timeout_s:g} s", "timeout") from None
        except Exception as exc:  # boundary: whatever an upstream does must become an UpstreamError
            raise self._request_error(exc, f"tool {tool!r}") from exc

    async def _hold(self, *, task_status: anyio.abc.TaskStatus[Client] = anyio.TASK_STATUS_IGNORED) -> None:
        """Own the connection for its whole life (the task `__aenter__` starts)."""
        started = False
        try:
            async with AsyncExitStack() as stack:
                client = Client(
                    lenient_tool_listing(
                        await self._transport(stack),
                        server=self.name,
                        version=lambda: self.protocol_version,
                        log=self._repairs,
                    ),
                    cache=None,
                    client_info=Implementation(name="toolscout", version=__version__),
                )
                await stack.enter_async_context(client)
                task_status.started(client)
                started = True
                await self._closing.wait()
        except Exception as exc:
            if not started:
                raise
            # The connection broke after start-up: requests already fail with "closed".
            logger.warning("upstream %r: connection lost: %s", self.name, _leaf(exc))

    async def _transport(self, stack: AsyncExitStack) -> Transport:
        if isinstance(self.config, HttpServer):
            http = await stack.enter_async_context(
                httpx2.AsyncClient(
                    headers=self.config.plain_headers(), timeout=httpx2.Timeout(self.connect_timeout_s, read=300.0)
                )
            )
            return streamable_http_client(self.config.url, http_client=http)
        params = StdioServerParameters(
            command=self.config.command,
            args=list(self.config.args),
            env=self.config.plain_env(),
            cwd=self.config.cwd,
        )
        return stdio_client(params, errlog=self._stderr or sys.stderr)

    def _connected(self) -> Client:
        if self._client is None:
            raise self._error("not connected (use `async with Upstream(...)`)", "closed")
        return self._client

    def _namespaced(self, raw: list[Tool], problems: list[ToolProblem]) -> tuple[UpstreamTool, ...]:
        out: list[UpstreamTool] = []
        seen: set[str] = set()
        for tool in raw:
            if tool.name in seen:
                problems.append(self._problem(tool.name, "listed twice; the first one is kept"))
                continue
            wire = tool.model_dump(by_alias=True, mode="json", exclude_none=True)
            definition: JsonObject = {key: wire[key] for key in _DEFINITION_KEYS if key in wire}
            definition["name"] = f"{self.name}{self.separator}{tool.name}"
            try:
                (spec,) = iter_tool_specs(definition, namespace=self.name)
            except CatalogError as exc:
                problems.append(self._problem(tool.name, str(exc)))
                continue
            seen.add(tool.name)
            out.append(UpstreamTool(spec=spec, upstream_name=tool.name))
        return tuple(out)

    def _problem(self, tool: str, message: str) -> ToolProblem:
        logger.warning("upstream %r: left out tool %r: %s", self.name, tool, message)
        return ToolProblem(server=self.name, tool=tool, message=message)

    def _request_error(self, exc: Exception, what: str) -> UpstreamError:
        if isinstance(exc, MCPError) and exc.code == CONNECTION_CLOSED:
            return self._error(f"{what}: the connection is closed (the server exited or crashed)", "closed")
        if isinstance(exc, MCPError):
            return self._error(f"{what}: the server answered with error {exc.code}: {exc.message}", "protocol")
        return self._error(f"{what}: malformed answer: {_leaf(exc)}", "protocol")

    def _error(self, message: str, kind: UpstreamFailure) -> UpstreamError:
        tail = self._stderr_tail() if kind in ("start", "closed") else ""
        return UpstreamError(
            f"{message}{f'; its stderr ends with: {tail}' if tail else ''}", server=self.name, kind=kind
        )

    def _close_stderr(self) -> None:
        if self._stderr is not None:
            self._stderr.close()

    def _stderr_tail(self) -> str:
        if self._stderr is None or self._stderr.closed:
            return ""
        fd = self._stderr.fileno()
        size = os.fstat(fd).st_size
        # pread leaves the offset the child process shares with us untouched.
        data = os.pread(fd, _STDERR_TAIL_BYTES, max(0, size - _STDERR_TAIL_BYTES))
        return " | ".join(line.strip() for line in data.decode("utf-8", "replace").splitlines() if line.strip())


def _start_failure(exc: Exception, config: ServerConfig) -> str:
    leaf = _leaf(exc)
    if isinstance(config, HttpServer):
        if isinstance(leaf, httpx2.HTTPError):
            return f"cannot reach {config.url}: {leaf}"
        return f"handshake with {config.url} failed: {leaf}"
    if isinstance(leaf, OSError) and not isinstance(leaf, TimeoutError):
        return f"cannot start {config.command!r}: {leaf.strerror or leaf}"
    if isinstance(leaf, MCPError) and leaf.code == CONNECTION_CLOSED:
        return "the server exited during start-up"
    return f"start-up failed: {leaf}"


def _leaf(exc: BaseException) -> BaseException:
    """The first real exception inside (possibly nested) exception groups."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc
