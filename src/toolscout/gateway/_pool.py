"""`UpstreamPool`: every configured upstream kept connected, restarted when it dies.

Each upstream has a supervisor task: connect, list the tools, then wait until the connection
is lost (re-listing whenever the server announces a tool list change); after a loss or a
failed start, wait with exponential backoff (``restart_backoff_s``, doubling, at most 60 s)
and try again. Entering the pool waits for every upstream's first attempt, so the gateway
starts with whatever could be reached and reports the rest. A server keeps its last known
tools while it restarts; calls to it wait (within the call timeout) for it to come back.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from types import TracebackType
from typing import Literal, TypeAlias

import anyio
import anyio.abc
from mcp_types import CallToolResult

from .._types import Transport
from ._config import GatewayConfig, HttpServer, ServerConfig
from ._records import ToolListing, ToolProblem, UpstreamError, UpstreamTool
from ._upstream import Upstream

__all__ = ["UpstreamPool", "UpstreamState", "UpstreamStatus"]

logger = logging.getLogger("toolscout.gateway")

UpstreamState: TypeAlias = Literal["starting", "connected", "restarting", "failed"]
"""`restarting`: the connection was lost and a new one is due; `failed`: the last attempt to
start or reach it failed (another is due)."""

_MAX_BACKOFF_S = 60.0
_STABLE_S = 30.0  # a connection that lived this long resets the backoff
_CLOSE_GRACE_S = 10.0


@dataclass(frozen=True, slots=True, kw_only=True)
class UpstreamStatus:
    """One upstream's state, as `/healthz` and `toolscout status` report it."""

    name: str
    """The server's name."""
    transport: Transport
    """How it is reached."""
    state: UpstreamState
    """Where its connection stands."""
    tools: int
    """Tools it contributes (its last listing's, while restarting)."""
    repaired: tuple[str, ...]
    """Tools whose input schema was normalized."""
    problems: tuple[ToolProblem, ...]
    """Tools left out, by name."""
    error: str | None
    """Why it last failed or was lost, if it did."""
    restarts: int
    """Connection attempts after the first one."""
    protocol_version: str | None
    """The negotiated MCP version while connected."""


class _Slot:
    """The mutable state of one upstream, owned by its supervisor."""

    def __init__(self, name: str, config: ServerConfig) -> None:
        self.name = name
        self.config = config
        self.state: UpstreamState = "starting"
        self.upstream: Upstream | None = None
        self.listing: ToolListing | None = None
        self.error: str | None = None
        self.restarts = 0
        self.retry_at = 0.0
        self.settled = anyio.Event()
        self.transition = anyio.Event()
        self.scope = anyio.CancelScope()

    def enter(self, state: UpstreamState) -> None:
        self.state = state
        old, self.transition = self.transition, anyio.Event()
        old.set()


class UpstreamPool:
    """The live upstreams of a gateway config; use as an async context manager."""

    def __init__(self, config: GatewayConfig, *, on_change: Callable[[], Awaitable[None]]) -> None:
        """Prepare the pool (nothing starts before `__aenter__`).

        Args:
            config: The gateway config; every enabled server gets a supervisor.
            on_change: Awaited after any upstream's tool listing changed (connected, re-listed).
        """
        self.settings = config.settings
        self._slots = {name: _Slot(name, server) for name, server in config.enabled_servers().items()}
        self._on_change = on_change
        self._routes: dict[str, tuple[str, str]] = {}
        self._closing = anyio.Event()
        self._stopped = anyio.Event()
        self._running = len(self._slots)
        self._task_group: anyio.abc.TaskGroup | None = None

    async def __aenter__(self) -> UpstreamPool:
        """Start every supervisor and wait for each upstream's first attempt."""
        self._task_group = anyio.create_task_group()
        await self._task_group.__aenter__()
        try:
            for slot in self._slots.values():
                self._task_group.start_soon(self._supervise, slot, name=f"upstream {slot.name}")
            for slot in self._slots.values():
                await slot.settled.wait()
        except BaseException as exc:  # cancelled while starting: stop what already started
            await self.__aexit__(type(exc), exc, exc.__traceback__)
            raise
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        """Close every connection (stopping stdio servers)."""
        self._closing.set()
        for slot in self._slots.values():
            if slot.upstream is None:  # starting or waiting to restart: nothing in flight to finish
                slot.scope.cancel()
        if self._running == 0:
            self._stopped.set()
        if self._task_group is not None:
            self._task_group.start_soon(self._force_close, self._task_group.cancel_scope)
            await self._task_group.__aexit__(exc_type, exc, tb)

    async def _force_close(self, scope: anyio.CancelScope) -> None:
        with anyio.move_on_after(_CLOSE_GRACE_S):
            await self._stopped.wait()
            return
        logger.warning("upstreams did not close within %g s; cancelling them", _CLOSE_GRACE_S)
        scope.cancel()

    def tools(self) -> tuple[UpstreamTool, ...]:
        """Every upstream's tools (last known listing while restarting), in config order."""
        return tuple(tool for slot in self._slots.values() if slot.listing for tool in slot.listing.tools)

    def route(self, name: str) -> tuple[str, str] | None:
        """The ``(server, upstream tool name)`` a namespaced tool name is called by, if known."""
        return self._routes.get(name)

    def status(self) -> tuple[UpstreamStatus, ...]:
        """Every upstream's state, in config order."""
        return tuple(_status(slot) for slot in self._slots.values())

    async def call(self, server: str, tool: str, arguments: Mapping[str, object]) -> CallToolResult:
        """Call `tool` on `server`, waiting (within the call timeout) for it to be connected.

        Raises:
            UpstreamError: ``start`` when the server is not connected and does not come back in
                time; otherwise whatever `Upstream.call_tool` raised.
        """
        slot = self._slots[server]
        timeout = self.settings.call_timeout_s
        deadline = anyio.current_time() + timeout
        upstream = await self._connected(slot, deadline)
        try:
            return await upstream.call_tool(tool, arguments, timeout_s=timeout)
        except UpstreamError as exc:
            if exc.kind == "closed":
                upstream.mark_lost()
            raise

    async def _connected(self, slot: _Slot, deadline: float) -> Upstream:
        with anyio.move_on_at(deadline):
            while True:
                upstream = slot.upstream
                if slot.state == "connected" and upstream is not None and not upstream.lost:
                    return upstream
                if slot.state == "failed" or (slot.state == "restarting" and slot.retry_at > deadline):
                    break
                await slot.transition.wait()
        wait = max(slot.retry_at - anyio.current_time(), 0)
        last = f" (last error: {slot.error})" if slot.error else ""
        state = "is restarting" if slot.state == "restarting" else "is not running"
        raise UpstreamError(f"{state}; next attempt in {wait:.0f} s{last}", server=slot.name, kind="start")

    async def _supervise(self, slot: _Slot) -> None:
        try:
            with slot.scope:
                await self._keep_connected(slot)
        finally:
            self._running -= 1
            if self._running == 0:
                self._stopped.set()

    async def _keep_connected(self, slot: _Slot) -> None:
        delay = self.settings.restart_backoff_s
        while not self._closing.is_set():
            connected_at = await self._run_once(slot)
            slot.upstream = None
            if connected_at is not None and anyio.current_time() - connected_at >= _STABLE_S:
                delay = self.settings.restart_backoff_s
            slot.retry_at = anyio.current_time() + delay
            slot.enter("restarting" if connected_at is not None else "failed")
            slot.settled.set()
            if self._closing.is_set():
                return
            with anyio.move_on_after(delay):
                await self._closing.wait()
            delay = min(delay * 2, _MAX_BACKOFF_S)
            slot.restarts += 1

    async def _run_once(self, slot: _Slot) -> float | None:
        """Connect once and serve until the connection is lost; returns when it connected, if it did."""
        changed = anyio.Event()

        def announce() -> None:
            changed.set()

        settings = self.settings
        upstream = Upstream(
            slot.name,
            slot.config,
            separator=settings.separator,
            connect_timeout_s=settings.connect_timeout_s,
            on_tools_changed=announce,
        )
        connected_at: float | None = None
        try:
            async with upstream:
                listing = await upstream.list_tools(timeout_s=settings.call_timeout_s)
                connected_at = anyio.current_time()
                slot.upstream, slot.error = upstream, None
                await self._publish(slot, listing)
                slot.enter("connected")
                slot.settled.set()
                logger.info("upstream %r: connected, %d tools", slot.name, len(listing.tools))
                while True:
                    await _first(upstream.wait_lost, changed.wait, self._closing.wait)
                    if upstream.lost or self._closing.is_set():
                        break
                    changed = anyio.Event()
                    try:
                        listing = await upstream.list_tools(timeout_s=settings.call_timeout_s)
                    except UpstreamError as exc:
                        if exc.kind == "closed":
                            break
                        logger.warning("%s; keeping its previous tool list", exc)
                        continue
                    await self._publish(slot, listing)
                    logger.info("upstream %r: tool list changed, re-listed: %d tools", slot.name, len(listing.tools))
        except UpstreamError as exc:
            slot.error = exc.reason
            logger.warning("%s", exc)
        except Exception as exc:  # boundary: one upstream's fault must never stop the others
            slot.error = f"unexpected failure: {type(exc).__name__}: {exc}"
            logger.exception("upstream %r: unexpected failure", slot.name)
        if connected_at is not None and not self._closing.is_set():
            slot.error = slot.error or "the connection was lost (the server exited or crashed)"
            logger.warning("upstream %r: connection lost; restarting it", slot.name)
        return connected_at

    async def _publish(self, slot: _Slot, listing: ToolListing) -> None:
        slot.listing = listing
        self._routes = {
            tool.spec.name: (name, tool.upstream_name)
            for name, other in self._slots.items()
            if other.listing
            for tool in other.listing.tools
        }
        await self._on_change()


async def _first(*waits: Callable[[], Awaitable[None]]) -> None:
    """Return as soon as any of `waits` returns."""
    async with anyio.create_task_group() as group:

        async def run(wait: Callable[[], Awaitable[None]]) -> None:
            await wait()
            group.cancel_scope.cancel()

        for wait in waits:
            group.start_soon(run, wait)


def _status(slot: _Slot) -> UpstreamStatus:
    listing = slot.listing
    upstream = slot.upstream
    return UpstreamStatus(
        name=slot.name,
        transport="http" if isinstance(slot.config, HttpServer) else "stdio",
        state=slot.state,
        tools=len(listing.tools) if listing else 0,
        repaired=listing.repaired if listing else (),
        problems=listing.problems if listing else (),
        error=slot.error,
        restarts=slot.restarts,
        protocol_version=upstream.protocol_version if upstream is not None else None,
    )
