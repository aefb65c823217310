"""`UpstreamPool`: every configured upstream kept connected, restarted when it dies.

Each upstream has a supervisor task: connect, list the tools, then wait until the connection
is lost (re-listing when the server announces a tool list change, however often it does at most
once every 2 s or ten times the last re-list's time, telling the gateway only when the tools differ);
after a loss or a failed start, wait with capped exponential backoff (tenacity: ``restart_backoff_s``, doubling,
at most 60 s) and try again. After ``max_restarts`` failures in a row the upstream is marked
failed for good, its last error kept for ``/healthz`` and ``toolscout status``.

Entering the pool starts every supervisor at once; `attached` waits (up to a deadline) for the
upstreams still making their first attempt with no tools known. At most ``start_concurrency``
upstreams start at the same time (so dozens of servers do not starve each other of CPU), and a
server that misses its handshake deadline is retried with a doubled deadline (up to 8x) in the
background; being slow does not count as a failure. A server keeps its last known tools while it
restarts, and, with `RememberedListings`, starts with the tools it listed in an earlier run;
calls to it wait (within the call timeout) for it to come (back) up.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from types import TracebackType
from typing import TYPE_CHECKING, Literal, TypeAlias

import anyio
import anyio.abc
import anyio.to_thread
from mcp_types import CallToolResult, ServerCapabilities, ServerNotification
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception_type, wait_exponential

from ..._redact import redact
from ..._types import Transport
from .._config import GatewayChain, GatewayConfig, HttpServer, ServerConfig
from ._connection import Upstream, upstream_limits
from ._records import ToolListing, ToolProblem, UpstreamError, UpstreamTool
from ._remembered import RememberedListings

if TYPE_CHECKING:
    from ._relay import Relay

__all__ = ["UpstreamPool", "UpstreamState", "UpstreamStatus"]

logger = logging.getLogger("toolscout.gateway")

UpstreamState: TypeAlias = Literal["starting", "connected", "restarting", "failed"]
"""`restarting`: the connection was lost and a new one is due; `failed`: the last attempt to
start or reach it failed (another is due)."""


_MAX_BACKOFF_S = 60.0
_MAX_CONNECT_STRETCH = 8  # a slow server's handshake deadline grows up to this multiple
_STABLE_S = 30.0  # a connection that lived this long resets the backoff
_CLOSE_GRACE_S = 10.0
_RELIST_EVERY_S = 2.0  # a server announcing tool list changes without pause is re-listed at most this often
_RELIST_WINDOW_PER_S = 10.0  # ... and at most once per this many times the seconds its last re-list took


@dataclass(frozen=True, slots=True, kw_only=True)
class UpstreamStatus:
    """One upstream's state, as `/healthz` and `toolscout status` report it."""

    name: str
    """The server's namespace (its name, unless that needed changing; see `label`)."""
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
    stderr: str | None = None
    """The end of a stdio server's stderr when that failure happened (redacted), if it explains it."""
    restarts: int
    """Connection attempts after the first one."""
    protocol_version: str | None
    """The negotiated MCP version while connected."""
    gave_up: bool = False
    """True once it failed too many times in a row: no further attempt is made."""
    label: str | None = None
    """The server's name as written in the config, when its namespace differs from it."""


class _Slot:
    """The mutable state of one upstream, owned by its supervisor."""

    def __init__(self, name: str, config: ServerConfig) -> None:
        self.name = name
        self.config = config
        self.state: UpstreamState = "starting"
        self.upstream: Upstream | None = None
        self.listing: ToolListing | None = None
        self.error: str | None = None
        self.stderr: str | None = None
        self.restarts = 0
        self.retry_at = 0.0
        self.settled = anyio.Event()
        self.transition = anyio.Event()
        self.scope = anyio.CancelScope()
        self.connect_timeout_s = 0.0
        self.attempts = 0
        self.crashes = 0  # failed attempts in a row that were not just slow
        self.gave_up = False
        self.capabilities: ServerCapabilities | None = None

    def enter(self, state: UpstreamState) -> None:
        self.state = state
        old, self.transition = self.transition, anyio.Event()
        old.set()


class UpstreamPool:
    """The live upstreams of a gateway config; use as an async context manager."""

    def __init__(
        self,
        config: GatewayConfig,
        *,
        on_change: Callable[[], Awaitable[None]],
        start_concurrency: int | None = None,
        max_restarts: int | None = None,
        chain: GatewayChain | None = None,
        remembered: RememberedListings | None = None,
        relay: Relay | None = None,
        on_notification: Callable[[str, ServerNotification], Awaitable[None]] | None = None,
    ) -> None:
        """Prepare the pool (nothing starts before `__aenter__`).

        Args:
            config: The gateway config; every enabled server gets a supervisor.
            on_change: Awaited after any upstream's tool listing changed (connected, re-listed).
            start_concurrency: Upstreams starting at the same time (at least 1; default:
                ``toolscout.start_concurrency``).
            max_restarts: Failed attempts in a row (crashes, failed starts; not handshakes that were
                merely slow) after which an upstream is marked failed for good (at least 1; default:
                ``toolscout.max_restarts``).
            chain: The gateways that led here, passed on to every upstream (see `GatewayChain`).
            remembered: Where each upstream's listings are kept; an upstream starts with the one kept
                from an earlier run (its tools are listed and routed while it starts), and every new
                listing is kept.
            relay: Given to every upstream (see `Upstream`): where server requests and logs go.
            on_notification: Given to every upstream (see `Upstream`).

        Raises:
            ValueError: `start_concurrency` or `max_restarts` is not a positive integer.
        """
        if start_concurrency is None:
            start_concurrency = config.settings.start_concurrency
        if max_restarts is None:
            max_restarts = config.settings.max_restarts
        for name, value in (("start_concurrency", start_concurrency), ("max_restarts", max_restarts)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be an integer of at least 1, got {value!r}")
        self._max_restarts = max_restarts
        self._chain = chain
        self._remembered = remembered
        self._relay = relay
        self._on_notification = on_notification
        self.settings = config.settings
        self._starting = anyio.CapacityLimiter(start_concurrency)
        self._slots = {name: _Slot(name, server) for name, server in config.enabled_servers().items()}
        if remembered is not None:
            for slot in self._slots.values():
                slot.listing = remembered.recall(slot.name, slot.config)
        self._labels = config.labels
        self._on_change = on_change
        self._routes = self._routing()
        self._closing = anyio.Event()
        self._stopped = anyio.Event()
        self._running = len(self._slots)
        self._task_group: anyio.abc.TaskGroup | None = None

    async def __aenter__(self) -> UpstreamPool:
        """Start every supervisor (upstreams attach in the background; see `started`)."""
        self._task_group = anyio.create_task_group()
        await self._task_group.__aenter__()
        for slot in self._slots.values():
            self._task_group.start_soon(self._supervise, slot, name=f"upstream {slot.name}")
        return self

    async def started(self) -> None:
        """Return once every upstream's first attempt has finished (connected or failed)."""
        for slot in self._slots.values():
            await slot.settled.wait()

    async def attached(self, *, until: float) -> None:
        """Return once no upstream is making its first attempt with no tools known, or at `until`.

        `until` is a deadline on anyio's clock (`anyio.current_time`). An upstream with remembered
        tools is not waited for: its tools stand in until it attaches.
        """
        waiting = [slot.settled for slot in self._slots.values() if slot.listing is None and not slot.settled.is_set()]
        if not waiting or anyio.current_time() >= until:
            return
        with anyio.move_on_at(until):
            for settled in waiting:
                await settled.wait()

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

    def reach(self) -> tuple[tuple[str, ...], ...]:
        """What each connected HTTP gateway upstream says it reaches, itself first (see `GatewayChain`)."""
        upstreams = (slot.upstream for slot in self._slots.values())
        return tuple(upstream.reach for upstream in upstreams if upstream is not None and upstream.reach)

    def status(self) -> tuple[UpstreamStatus, ...]:
        """Every upstream's state, in config order."""
        return tuple(_status(slot, self._labels.get(slot.name)) for slot in self._slots.values())

    def capabilities(self) -> dict[str, ServerCapabilities | None]:
        """Each upstream's declared capabilities: None until it first connected (its last known after)."""
        return {name: slot.capabilities for name, slot in self._slots.items()}

    async def connection(self, server: str) -> Upstream:
        """`server`'s live connection, waiting (within the call timeout) for it to be connected.

        Raises:
            KeyError: No upstream of that name.
            UpstreamError: (kind ``start``) it is not connected and does not come back in time.
        """
        slot = self._slots[server]
        return await self._connected(slot, anyio.current_time() + self.settings.call_timeout_s)

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
        last = f" (last error: {slot.error})" if slot.error else ""
        if slot.gave_up:
            message = f"is not running: gave up after {slot.crashes} failed attempts in a row{last}"
            raise UpstreamError(message, server=slot.name, kind="start")
        wait = max(slot.retry_at - anyio.current_time(), 0)
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
        slot.connect_timeout_s = self.settings.connect_timeout_s
        while not self._closing.is_set():
            retrying = AsyncRetrying(
                wait=wait_exponential(
                    multiplier=self.settings.restart_backoff_s, min=self.settings.restart_backoff_s, max=_MAX_BACKOFF_S
                ),
                stop=lambda state: slot.crashes >= self._max_restarts,
                retry=retry_if_exception_type(_AttemptEnded),
                sleep=self._pause,
                before_sleep=lambda state: _schedule(slot, state),
                reraise=True,
            )
            try:
                async for attempt in retrying:
                    with attempt:
                        await self._attempt(slot)
                return  # closing
            except _StableLoss:
                continue  # it ran long enough: the next loss starts a fresh backoff
            except _AttemptEnded:
                slot.gave_up = True
                slot.enter("failed")
                logger.error(
                    "upstream %r: gave up after %d failed attempts in a row; last error: %s",
                    slot.name,
                    slot.crashes,
                    slot.error,
                )
                return

    async def _attempt(self, slot: _Slot) -> None:
        """One connection attempt; raises `_AttemptEnded` when it failed or was lost (unless closing)."""
        if self._closing.is_set():
            return
        if slot.attempts:
            slot.restarts += 1
        slot.attempts += 1
        began = anyio.current_time()
        connected_at = await self._run_once(slot)
        slot.upstream = None
        if self._closing.is_set():
            slot.enter("restarting" if connected_at is not None else "failed")
            slot.settled.set()
            return
        now = anyio.current_time()
        if connected_at is not None and now - connected_at >= _STABLE_S:
            slot.crashes = 0
            slot.enter("restarting")
            raise _StableLoss
        if connected_at is None and now - began >= slot.connect_timeout_s:
            # Too slow rather than broken (e.g. a busy machine): give the next attempt longer.
            limit = self.settings.connect_timeout_s * _MAX_CONNECT_STRETCH
            slot.connect_timeout_s = min(slot.connect_timeout_s * 2, limit)
        else:
            slot.crashes += 1
        slot.retry_at = now + _MAX_BACKOFF_S  # until the backoff says when
        slot.enter("restarting" if connected_at is not None else "failed")
        slot.settled.set()
        raise _AttemptEnded

    async def _pause(self, seconds: float) -> None:
        with anyio.move_on_after(seconds):
            await self._closing.wait()

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
            connect_timeout_s=slot.connect_timeout_s,
            on_tools_changed=announce,
            chain=self._chain,
            relay=self._relay,
            on_notification=self._on_notification,
            limits=upstream_limits(settings),
        )
        connected_at: float | None = None
        await self._starting.acquire()
        starting = True
        try:
            async with upstream:
                try:
                    listing = await upstream.list_tools(timeout_s=settings.call_timeout_s)
                finally:
                    self._starting.release()
                    starting = False
                connected_at = anyio.current_time()
                slot.upstream, slot.error, slot.stderr = upstream, None, None
                slot.capabilities = upstream.server_capabilities
                await self._publish(slot, listing)
                slot.enter("connected")
                slot.settled.set()
                logger.info("upstream %r: connected, %d tools", slot.name, len(listing.tools))
                listed, took = anyio.current_time(), 0.0
                while True:
                    await _first(upstream.wait_lost, changed.wait, self._closing.wait)
                    # A storm of list changes costs one re-list per window (2 s, or 10 times what the last one
                    # took, so re-listing a large server takes at most a tenth of the time): later ones wait.
                    window = max(_RELIST_EVERY_S, _RELIST_WINDOW_PER_S * took)
                    with anyio.move_on_after(listed + window - anyio.current_time()):
                        await _first(upstream.wait_lost, self._closing.wait)
                    if upstream.lost or self._closing.is_set():
                        break
                    changed = anyio.Event()
                    listed = anyio.current_time()
                    try:
                        listing = await upstream.list_tools(timeout_s=settings.call_timeout_s)
                    except UpstreamError as exc:
                        if exc.kind == "closed":
                            break
                        logger.warning("%s; keeping its previous tool list", exc)
                        continue
                    took = anyio.current_time() - listed
                    if listing == slot.listing:
                        logger.debug("upstream %r: tool list changed, re-listed: the same tools", slot.name)
                        continue
                    await self._publish(slot, listing)
                    logger.info("upstream %r: tool list changed, re-listed: %d tools", slot.name, len(listing.tools))
        except UpstreamError as exc:
            slot.error, slot.stderr = exc.reason, exc.stderr or None
            logger.warning("%s", exc)
        except Exception as exc:  # boundary: one upstream's fault must never stop the others
            slot.error = redact(f"unexpected failure: {type(exc).__name__}: {exc}")
            logger.exception("upstream %r: unexpected failure", slot.name)
        finally:
            if starting:
                self._starting.release()
        if connected_at is not None and not self._closing.is_set():
            slot.error = slot.error or "the connection was lost (the server exited or crashed)"
            logger.warning("upstream %r: connection lost; restarting it", slot.name)
        return connected_at

    async def _publish(self, slot: _Slot, listing: ToolListing) -> None:
        slot.listing = listing
        self._routes = self._routing()
        await self._on_change()
        if self._remembered is not None:
            await anyio.to_thread.run_sync(self._remembered.keep, listing, slot.config)

    def _routing(self) -> dict[str, tuple[str, str]]:
        return {
            tool.spec.name: (name, tool.upstream_name)
            for name, slot in self._slots.items()
            if slot.listing
            for tool in slot.listing.tools
        }


class _AttemptEnded(Exception):
    """A connection attempt failed, or its connection was lost: another is due after a backoff."""


class _StableLoss(Exception):
    """A connection that had been up for a while was lost: restart with a fresh backoff."""


def _schedule(slot: _Slot, state: RetryCallState) -> None:
    """Record when the next attempt is due (tenacity's ``before_sleep``)."""
    slot.retry_at = anyio.current_time() + (state.upcoming_sleep or 0.0)


async def _first(*waits: Callable[[], Awaitable[None]]) -> None:
    """Return as soon as any of `waits` returns."""
    async with anyio.create_task_group() as group:

        async def run(wait: Callable[[], Awaitable[None]]) -> None:
            await wait()
            group.cancel_scope.cancel()

        for wait in waits:
            group.start_soon(run, wait)


def _status(slot: _Slot, label: str | None) -> UpstreamStatus:
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
        stderr=slot.stderr,
        restarts=slot.restarts,
        protocol_version=upstream.protocol_version if upstream is not None else None,
        gave_up=slot.gave_up,
        label=label,
    )
