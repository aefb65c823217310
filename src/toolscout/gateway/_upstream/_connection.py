"""`Upstream`: one live connection to an MCP server, over stdio or Streamable HTTP.

```python
async with Upstream("time", StdioServer(command="mcp-server-time")) as upstream:
    listing = await upstream.list_tools()          # every page, malformed tools reported
    result = await upstream.call_tool("get_current_time", {"timezone": "Asia/Tokyo"}, timeout_s=60)
```

The connection lives in a task of its own, so a connect timeout can cancel a hung start-up
cleanly and a server that dies later only fails the calls made to it. `wait_lost` returns once
the connection is gone (a stdio server exited, or `mark_lost` was called), and
`on_tools_changed` is called when the server says its tool list changed (a
``notifications/tools/list_changed``, or a ``subscriptions/listen`` event on 2026-07-28 servers).
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Awaitable, Callable, Mapping
from contextlib import AsyncExitStack
from functools import partial
from types import TracebackType
from typing import TYPE_CHECKING, Any, TypeVar

import anyio
import anyio.abc
import anyio.to_thread
import httpx2
from mcp.client import Client, Transport
from mcp.client.session import IncomingMessage
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp_types import (
    CONNECTION_CLOSED,
    CallToolResult,
    Implementation,
    PromptListChangedNotification,
    ResourceListChangedNotification,
    ServerCapabilities,
    ServerNotification,
    Tool,
    ToolListChangedNotification,
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from ..._version import __version__
from .._config import (
    CHAIN_ENV,
    CHAIN_HEADER,
    REACH_HEADER,
    GatewayChain,
    GatewaySettings,
    HttpServer,
    ServerConfig,
    decode_reach,
)
from ._bounded_http import OVERSIZE_MARK, BoundedTransport
from ._diagnose import StderrCapture, leaf, start_failure
from ._lenient import OFF_LOOP_TOOLS, RepairLog, lenient_tool_listing, namespaced_tools
from ._listcache import ListingCache, ListKind
from ._records import DEFAULT_LIMITS, ToolListing, ToolProblem, UpstreamError, UpstreamFailure, UpstreamLimits
from ._stdio import bounded_stdio_client

if TYPE_CHECKING:
    from ._relay import Relay

__all__ = ["Upstream", "upstream_limits"]

_T = TypeVar("_T")

logger = logging.getLogger("toolscout.gateway")

_MAX_PAGES = 1000


class Upstream:
    """A connection to one upstream MCP server; use as an async context manager."""

    def __init__(
        self,
        name: str,
        config: ServerConfig,
        *,
        separator: str = "__",
        connect_timeout_s: float = 30.0,
        on_tools_changed: Callable[[], None] | None = None,
        chain: GatewayChain | None = None,
        relay: Relay | None = None,
        on_notification: Callable[[str, ServerNotification], Awaitable[None]] | None = None,
        limits: UpstreamLimits = DEFAULT_LIMITS,
    ) -> None:
        """Prepare (not open) a connection.

        Args:
            name: The server's name: namespace and name prefix of its tools.
            config: How to start or reach it.
            separator: Joins server and tool names.
            connect_timeout_s: Seconds to start the server and finish the MCP handshake.
            on_tools_changed: Called (from the connection's task; must not raise) when the
                server announces that its tool list changed.
            chain: The gateways that led here, passed to a gateway upstream so that it can refuse
                to close a loop (see `GatewayChain`).
            relay: Where the server's requests (sampling, elicitation, roots) and log messages go;
                without one the connection declares none of those capabilities.
            on_notification: Awaited with the server's name and each of its other notifications
                (resource updates, list changes).
            limits: What the server may list and send (tools, description and schema sizes, message size).
        """
        self.name = name
        self.config = config
        self.separator = separator
        self.connect_timeout_s = connect_timeout_s
        self._on_tools_changed = on_tools_changed
        self._chain = chain
        self._relay = relay
        self._on_notification = on_notification
        self.limits = limits
        self.reach: tuple[str, ...] = ()
        """Digests of the gateways this upstream reaches, its own first (empty: not a toolscout HTTP gateway)."""
        self.listings = ListingCache()
        """Its resource, template and prompt listings, kept until it says they changed."""
        self._repairs = RepairLog()
        self._closing = anyio.Event()
        self._lost = anyio.Event()
        self._listing_lock = anyio.Lock()
        self._task_group: anyio.abc.TaskGroup | None = None
        self._client: Client | None = None
        self._stderr: StderrCapture | None = None

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
            self._stderr = StderrCapture()
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
                    raise self._error(start_failure(exc, self.config), "start") from exc
                raise
            finally:
                if self._stderr is not None:
                    self._stderr.close()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        """Close the connection (and stop a stdio server)."""
        self._closing.set()
        self._client = None
        if self._task_group is not None:
            await self._task_group.__aexit__(None, None, None)
        if self._stderr is not None:
            self._stderr.close()

    @property
    def lost(self) -> bool:
        """True once the connection is gone (the server exited, or `mark_lost` was called)."""
        return self._lost.is_set()

    def mark_lost(self) -> None:
        """Record that the connection is unusable (e.g. a request found it closed)."""
        self._lost.set()

    async def wait_lost(self) -> None:
        """Return once the connection is gone."""
        await self._lost.wait()

    @property
    def protocol_version(self) -> str | None:
        """The negotiated MCP protocol version, once connected."""
        return self._client.protocol_version if self._client is not None else None

    @property
    def server_capabilities(self) -> ServerCapabilities | None:
        """What the server declared it supports, once connected."""
        return self._client.server_capabilities if self._client is not None else None

    async def request(
        self, what: str, send: Callable[[Client], Awaitable[_T]], *, timeout_s: float | None = None
    ) -> _T:
        """Run one request on the connection (`what` names it in errors).

        Raises:
            UpstreamError: No answer within `timeout_s`, the connection is gone, or the server
                answered with a protocol error or a malformed result.
        """
        client = self._connected()
        try:
            with anyio.fail_after(timeout_s):
                return await send(client)
        except TimeoutError:
            raise self._error(f"{what} did not answer within {timeout_s:g} s", "timeout") from None
        except Exception as exc:  # boundary: whatever an upstream does must become an UpstreamError
            raise self._request_error(exc, what) from exc

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
                        if cursor is None or cursor in seen or len(raw) > self.limits.max_tools:
                            break
                        seen.add(cursor)
                    if len(raw) > self.limits.max_tools:
                        del raw[self.limits.max_tools :]
                        problems.append(self._too_many_tools())
                        cursor = None
                    if cursor is not None:
                        logger.warning("upstream %r: the tools/list pages never end; kept the pages read", self.name)
            except TimeoutError:
                raise self._error(f"tools/list took longer than {timeout_s:g} s", "timeout") from None
            except Exception as exc:  # boundary: whatever an upstream does must become an UpstreamError
                raise self._request_error(exc, "tools/list") from exc
            repaired, skipped = self._repairs.drain()
            if repaired:  # each tool at INFO (-v), as it was repaired
                logger.warning(
                    'upstream %r: normalized the inputSchema of %d tools without "type": "object" (each named with -v)',
                    self.name,
                    len(repaired),
                )
            name = partial(namespaced_tools, raw, server=self.name, separator=self.separator, problems=problems)
            tools = await anyio.to_thread.run_sync(name) if len(raw) > OFF_LOOP_TOOLS else name()
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
        if self._relay is None:
            return await self.request(
                f"tool {tool!r}", lambda client: client.call_tool(tool, dict(arguments or {})), timeout_s=timeout_s
            )
        relay = self._relay
        async with relay.in_flight(self.name) as downstream:
            progress = relay.progress_callback(downstream)
            return await self.request(
                f"tool {tool!r}",
                lambda client: client.call_tool(tool, dict(arguments or {}), progress_callback=progress),
                timeout_s=timeout_s,
            )

    def _too_many_tools(self) -> ToolProblem:
        most = self.limits.max_tools
        message = (
            f"lists more than {most:,} tools (toolscout.upstream_max_tools); those past the first {most:,} are left out"
        )
        logger.warning("upstream %r: %s", self.name, message)
        return ToolProblem(server=self.name, tool=None, message=message)

    def _note_oversize(self, size: int) -> None:
        logger.warning(
            "upstream %r: sent a message of over %s bytes, more than toolscout.upstream_max_message_bytes (%s); "
            "refused it",
            self.name,
            f"{size:,}",
            _size(self.limits.max_message_bytes),
        )

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
                        limits=self.limits,
                        on_end=self._lost.set,
                    ),
                    cache=None,
                    client_info=Implementation(name="toolscout", version=__version__),
                    message_handler=self._on_message,
                    **self._relay_callbacks(),
                )
                await stack.enter_async_context(client)
                async with anyio.create_task_group() as listeners:
                    if self._on_tools_changed is not None and _announces_changes(client):
                        listeners.start_soon(self._listen_for_changes, client)
                    task_status.started(client)
                    started = True
                    await self._closing.wait()
                    listeners.cancel_scope.cancel()
        except Exception as exc:
            if not started:
                raise
            # The connection broke after start-up: requests already fail with "closed".
            logger.warning("upstream %r: connection lost: %s", self.name, leaf(exc))
        finally:
            self._lost.set()

    def _relay_callbacks(self) -> dict[str, Any]:
        """The client callbacks that hand the server's requests and logs to the relay."""
        relay, name = self._relay, self.name
        if relay is None:
            return {}
        return {
            "sampling_callback": lambda context, params: relay.sampling(name, context, params),
            "elicitation_callback": lambda context, params: relay.elicitation(name, context, params),
            "list_roots_callback": lambda context: relay.roots(name, context),
            "logging_callback": lambda params: relay.log(name, params),
        }

    def announces(self, kind: ListKind) -> bool:
        """Whether the server says when its `kind` list changes (a 2025-era one declaring ``listChanged``)."""
        client = self._client
        if client is None or client.protocol_version in MODERN_PROTOCOL_VERSIONS:
            return False
        capability = client.server_capabilities.resources if kind == "resources" else client.server_capabilities.prompts
        return capability is not None and bool(capability.list_changed)

    async def _on_message(self, message: IncomingMessage) -> None:
        if isinstance(message, ResourceListChangedNotification):
            self.listings.changed("resources")
        elif isinstance(message, PromptListChangedNotification):
            self.listings.changed("prompts")
        if isinstance(message, ToolListChangedNotification):
            if self._on_tools_changed is not None:
                self._on_tools_changed()
        elif self._on_notification is not None and not isinstance(message, Exception):
            await self._on_notification(self.name, message)

    async def _listen_for_changes(self, client: Client) -> None:
        """2026-07-28 servers announce list changes only on a ``subscriptions/listen`` stream."""
        assert self._on_tools_changed is not None
        try:
            async with client.listen(tools_list_changed=True) as subscription:
                async for _event in subscription:
                    self._on_tools_changed()
        except Exception as exc:  # boundary: losing the stream must not take the connection down
            if not self._closing.is_set():
                logger.info("upstream %r: stopped listening for tool list changes: %s", self.name, leaf(exc))

    async def _transport(self, stack: AsyncExitStack) -> Transport:
        if isinstance(self.config, HttpServer):
            headers = self.config.plain_headers()
            if self._chain is not None:
                headers[CHAIN_HEADER] = self._chain.encoded
            bounded = BoundedTransport(httpx2.AsyncHTTPTransport(), self.limits.max_message_bytes, self._note_oversize)
            http = await stack.enter_async_context(
                httpx2.AsyncClient(
                    headers=headers,
                    timeout=httpx2.Timeout(self.connect_timeout_s, read=300.0),
                    event_hooks={"response": [self._note_reach]},
                    transport=bounded,
                )
            )
            # The transport counts every event against the gateway's own limit, not the SDK's 1 MiB.
            return streamable_http_client(self.config.url, http_client=http, max_sse_event_size=None)
        env = self.config.plain_env()
        if self._chain is not None:
            env[CHAIN_ENV] = self._chain.encoded
        params = StdioServerParameters(
            command=self.config.command, args=list(self.config.args), env=env, cwd=self.config.cwd
        )
        return bounded_stdio_client(
            params,
            errlog=self._stderr.file if self._stderr is not None else sys.stderr,
            max_message_bytes=self.limits.max_message_bytes,
            on_oversize=self._note_oversize,
        )

    async def _note_reach(self, response: httpx2.Response) -> None:
        reach = response.headers.get(REACH_HEADER)
        if reach is not None:
            self.reach = decode_reach(reach)

    def _connected(self) -> Client:
        if self._client is None:
            raise self._error("not connected (use `async with Upstream(...)`)", "closed")
        return self._client

    def _request_error(self, exc: Exception, what: str) -> UpstreamError:
        if isinstance(exc, MCPError) and OVERSIZE_MARK in exc.message:
            limit = _size(self.limits.max_message_bytes)
            return self._error(
                f"{what}: its answer is over toolscout.upstream_max_message_bytes ({limit}); it was refused, "
                "the server carries on",
                "too_large",
            )
        if isinstance(exc, MCPError) and exc.code == CONNECTION_CLOSED:
            return self._error(f"{what}: the connection is closed (the server exited or crashed)", "closed")
        if isinstance(exc, MCPError):
            return self._error(f"{what}: the server answered with error {exc.code}: {exc.message}", "protocol")
        return self._error(f"{what}: malformed answer: {leaf(exc)}", "protocol")

    def _error(self, message: str, kind: UpstreamFailure) -> UpstreamError:
        tail = self._stderr.tail() if self._stderr is not None and kind in ("start", "closed") else ""
        return UpstreamError(message, server=self.name, kind=kind, stderr=tail)


def upstream_limits(settings: GatewaySettings) -> UpstreamLimits:
    """The limits the ``toolscout.upstream_max_*`` settings put on every upstream."""
    return UpstreamLimits(
        max_tools=settings.upstream_max_tools,
        max_resources=settings.upstream_max_resources,
        max_prompts=settings.upstream_max_prompts,
        max_description_chars=settings.upstream_max_description_chars,
        max_schema_bytes=settings.upstream_max_schema_bytes,
        max_message_bytes=settings.upstream_max_message_bytes,
    )


def _size(count: int) -> str:
    """A byte count as people read it: ``16 MiB``, ``512 KiB``, else ``1,234 bytes``."""
    for unit, shift in (("MiB", 20), ("KiB", 10)):
        if count >= 1 << shift and count % (1 << shift) == 0:
            return f"{count >> shift:,} {unit}"
    return f"{count:,} bytes"


def _announces_changes(client: Client) -> bool:
    tools = client.server_capabilities.tools
    return client.protocol_version in MODERN_PROTOCOL_VERSIONS and tools is not None and bool(tools.list_changed)
