"""`Gateway`: the downstream MCP server in front of every upstream, built on the SDK's `Server`.

Its `ToolScout` holds the union of the upstream tools (``server__tool``) and proxies every
resolved call to the right upstream through its executor. ``tools/list`` answers with the
session's assembly: core and pinned tools plus the bridge tools, and in the ``reveal`` style
the tools the session has revealed, announced by ``notifications/tools/list_changed`` (on
2026-07-28 connections, on the client's ``subscriptions/listen`` stream) to the session's clients
on this replica and, through the `ChangeFeed` (Redis pub/sub with a Redis store), on every other
replica. With learning's auto-pin, the tools the caller's grant keeps calling are listed too, and a
session that listed before they changed is told at its next call. The style's guidance is the server's
``instructions``, rendered per caller so it lists only tools in scope.
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging
import time
from collections.abc import Sequence
from types import TracebackType
from typing import Any

import anyio
import anyio.abc
import anyio.to_thread
from mcp.client import Client
from mcp.server import Server
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.subscriptions import ListenHandler
from mcp.shared.exceptions import MCPError
from mcp_types import (
    INTERNAL_ERROR,
    INVALID_REQUEST,
    CallToolRequestParams,
    CallToolResult,
    CompleteRequestParams,
    CompleteResult,
    EmptyResult,
    InputRequiredResult,
    ListToolsResult,
    LoggingLevel,
    PaginatedRequestParams,
    PromptListChangedNotification,
    PromptReference,
    ResourceListChangedNotification,
    ResourceUpdatedNotification,
    ServerNotification,
    SetLevelRequest,
    SetLevelRequestParams,
    SubscriptionsListenRequestParams,
    SubscriptionsListenResult,
    ToolListChangedNotification,
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from starlette.requests import Request

from .._errors import CatalogError, StoreError
from .._scope import Scope
from .._scout import ScoutSession, ToolScout
from .._texts import STORE_DOWN, SUBSCRIPTION_LIMIT, Search, Upstream
from .._types import Transport
from .._version import __version__
from ..disclosure import Assembly
from ..disclosure._internal import assemble
from ..dispatch import AfterCall, ToolCall, ToolError
from ..dispatch._internal import AnswerContext, ServerNotReady
from ..search._internal import resolve_search_mode
from ..search.embeddings._internal import resolve_backend
from ..session import DiscoveryStore
from ._compose import Hooks, compose
from ._config import GatewayChain, GatewayConfig
from ._proxy import call_result, mcp_tool, offered_capabilities, upstream_result
from ._sessions import Caller, PinListings, TimedOutputStore
from ._upstream import Exchange, UpstreamError, UpstreamFault, unrouted_fault, upstream_fault, visible_servers

__all__ = ["Gateway"]

logger = logging.getLogger("toolscout.gateway")

_MAX_LISTEN_STREAMS = 4096
"""Listen streams of every owner together (each owner has ``max_listen_streams_per_token`` of them)."""


class Gateway:
    """Every upstream of a config behind one searchable MCP server; use as an async context manager.

    ```python
    async with Gateway(load_config("mcp.json"), transport="stdio") as gateway:
        await serve_stdio(gateway)
    ```
    """

    def __init__(
        self,
        config: GatewayConfig,
        *,
        transport: Transport,
        store: DiscoveryStore | None = None,
        start_concurrency: int | None = None,
        wait_for_upstreams: bool = False,
        chain: GatewayChain | None = None,
        after_call: Sequence[AfterCall] = (),
    ) -> None:
        """Build the gateway (upstreams start in `__aenter__`).

        Args:
            config: Upstream servers and the ``toolscout`` settings.
            transport: How clients reach it; decides how sessions are identified.
            store: Discovery store (default: the one ``toolscout.store`` names); every call to it, and
                to the output store ``toolscout.offload.store`` names, is bounded by
                ``toolscout.store_timeout_s`` (see `TimedStore`, `TimedOutputStore`).
            start_concurrency: Upstreams started at the same time (default: ``toolscout.start_concurrency``).
            wait_for_upstreams: Let `__aenter__` wait for every upstream's first start attempt
                (default: return at once; tools appear as upstreams attach).
            chain: The gateways that led to this one, this one last (default: entered from the
                environment, see `GatewayChain.enter`); passed on to every upstream.
            after_call: Hooks run after every tool call with its finished `ToolOutcome`: the answer its
                client receives (an audit of an embedding host; see `ToolScout`).

        Raises:
            ConfigError: The store setting is unusable, or this gateway is already in its chain.
            StoreError: The store cannot be opened.
        """
        hooks = Hooks(
            execute=self._execute,
            tools_changed=self._tools_changed,
            upstream_notified=self._upstream_notified,
            set_upstream_level=self._set_upstream_level,
            scoped_caller=self._scoped_caller,
            end_session=self._end_session,
        )
        parts = compose(
            config,
            hooks,
            transport=transport,
            store=store,
            start_concurrency=start_concurrency,
            chain=chain,
            after_call=after_call,
        )
        self.config = config
        self.chain = parts.chain
        self.store = parts.store
        self.activity = parts.activity
        self.tracing = parts.tracing
        self.scout = parts.scout
        self.relay = parts.relay
        self.pool = parts.pool
        self.rounds = parts.rounds
        self.outbox = parts.outbox
        self.resources = parts.resources
        self.prompts = parts.prompts
        self.identities = parts.identities
        self.metrics = parts.metrics
        self.changes = parts.changes
        self.feed = parts.feed
        self.reach = parts.reach
        self.reaper = parts.reaper
        self._legacy = parts.legacy
        self._pin_listings = PinListings()
        self._settings_scope = parts.settings_scope
        self._attach_deadline = 0.0
        self._wait_for_upstreams = wait_for_upstreams
        self._tasks: anyio.abc.TaskGroup | None = None
        self.server: Server[Any] = Server(
            "toolscout",
            version=__version__,
            title="toolscout gateway",
            on_list_tools=self._list_tools,
            on_call_tool=self._call_tool,
            on_subscriptions_listen=self._listen,
            on_list_resources=self.resources.list_resources,
            on_list_resource_templates=self.resources.list_templates,
            on_read_resource=self.resources.read,
            on_subscribe_resource=self.resources.subscribe,
            on_unsubscribe_resource=self.resources.unsubscribe,
            on_list_prompts=self.prompts.list_prompts,
            on_get_prompt=self.prompts.get,
            on_completion=self._complete,
            # Mcp-Param header checks would otherwise run tools/list unscoped on every call;
            # arguments are validated against the tool's schema by the core anyway.
            get_tool_input_schema=lambda name: None,
        )
        # Registered directly: the constructor argument warns that 2026-07-28 deprecates logging.
        self.server.add_request_handler("logging/setLevel", SetLevelRequestParams, self._set_level)
        self.server.middleware.append(self._per_caller_handshake)

    async def __aenter__(self) -> Gateway:
        """Start the upstreams; those that fail are reported and retried, never fatal."""
        self._set_catalog()  # the remembered tools, if any, stand in from the first answer on
        self._attach_deadline = anyio.current_time() + self.config.settings.startup_wait_s
        try:
            await self.pool.__aenter__()
        except BaseException:
            self.scout.close()
            raise
        self._tasks = anyio.create_task_group()
        await self._tasks.__aenter__()
        self._tasks.start_soon(self.reaper.run, name="session reaper")
        self._tasks.start_soon(self.outbox.run, name="notifications to client sessions")
        self.rounds.tasks = self._tasks
        self._tasks.start_soon(self.feed.run, self._changed_elsewhere, name="tool-list changes of other replicas")
        # While the upstreams start (other processes), load the token tables and index what stands in.
        self._tasks.start_soon(anyio.to_thread.run_sync, self._prepare, name="token tables and index")
        if self._wait_for_upstreams:
            try:
                await self.pool.started()
            except BaseException as exc:
                await self.__aexit__(type(exc), exc, exc.__traceback__)
                raise
            connected = sum(status.state == "connected" for status in self.pool.status())
            logger.info("gateway ready: %d of %d upstreams connected", connected, len(self.pool.status()))
        else:
            logger.info("gateway ready: %d upstreams attaching in the background", len(self.pool.status()))
        logger.info("search: %s", _search_engine(self.scout))
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        """Stop the upstreams and close the store.

        The upstreams stop even when waiting for the gateway's own tasks is cancelled (a SIGTERM
        while the token tables still load in their thread): the pool's task group must be left.
        """
        try:
            if self._tasks is not None:
                self._tasks.cancel_scope.cancel()
                await self._tasks.__aexit__(None, None, None)
        finally:
            try:
                await self.pool.__aexit__(exc_type, exc, tb)
            finally:
                self.scout.close()
                await self.feed.aclose()

    def session(self, caller: Caller) -> ScoutSession:
        """The toolscout session a caller's requests run in.

        Learning: pairs go to the caller's grant label as their scope. A stateless request (a 2026-07-28 client
        sending no ``Toolscout-Session``) is its own session, so its calls are credited to the searches its
        principal made within ``learning.window_s``, sessionless (`UsageRecorder`: a chain only when unambiguous).
        """
        sessionless = caller.lifetime == "request"
        return self.scout.session(
            caller.session_id,
            scope=caller.scope,
            learning_scope=caller.principal,
            learning_session=f"principal:{caller.principal}" if sessionless else caller.session_id,
            learning_sessionless=sessionless,
        )

    async def _assemble(self, caller: Caller) -> Assembly:
        """The caller's assembly, built in a worker thread (the reveal style reads the store)."""
        try:
            return await anyio.to_thread.run_sync(self.session(caller).assemble)
        except StoreError as exc:
            raise _store_down(exc) from None

    async def _guidance(self, caller: Caller) -> str:
        """The caller's guidance: it depends on the catalog and scope only, never on the store."""
        scout = self.scout
        return await anyio.to_thread.run_sync(
            lambda: assemble(scout.plan(caller.scope), settings=scout.settings).guidance
        )

    async def _list_tools(
        self, ctx: ServerRequestContext[Any, Any], params: PaginatedRequestParams | None
    ) -> ListToolsResult:
        offloading = self.scout.offload is not None
        bridge = self.scout.settings.bridge_names
        await self.pool.attached(until=self._attach_deadline)
        caller = self._caller(ctx)
        self.reach.listed(caller.session_id)
        assembly = await self._assemble(caller)
        pins = self.scout.auto_pins
        if pins is not None and caller.lifetime != "request":
            self._pin_listings.listed(caller.session_id, pins.generation(caller.principal))
        tools = [mcp_tool(tool, bridge, offloading=offloading) for tool in assembly.tools]
        # The list varies by session and token and changes on reveal: never cache it.
        return ListToolsResult(tools=tools, ttl_ms=0, cache_scope="private")

    async def _call_tool(
        self, ctx: ServerRequestContext[Any, Any], params: CallToolRequestParams
    ) -> CallToolResult | InputRequiredResult:
        await self.pool.attached(until=self._attach_deadline)  # a search must not answer from half a catalog
        caller = self._caller(ctx)
        if caller.legacy:
            return await self._serve_call(ctx, caller, params)
        # A stateless request's session is the request itself: its retry is bound to the token instead.
        owner = caller.session_id if caller.lifetime != "request" else f"principal:{caller.principal}"
        return await self.rounds.serve(
            owner,
            caller.principal,
            params.request_state,
            params.input_responses,
            lambda exchange: self._serve_call(ctx, caller, params, exchange),
        )

    async def _serve_call(
        self,
        ctx: ServerRequestContext[Any, Any],
        caller: Caller,
        params: CallToolRequestParams,
        exchange: Exchange | None = None,
    ) -> CallToolResult:
        self.activity.label_session(caller.session_id, caller.principal)
        await self.reaper.touch(caller.session_id, caller.lifetime, caller.principal)
        self.reach.called(caller.session_id)
        settings = self.scout.settings
        sees_reveals = self.reach.sees_reveals(caller)
        context = self._answer_context(params.name, caller, sees_reveals=sees_reveals)
        try:
            with TimedOutputStore.acting_for(caller.principal):  # its outputs count against the caller's share
                async with self.relay.forwarding(ctx, caller, exchange=exchange):
                    outcome = await self.session(caller).dispatch(params.name, params.arguments or {}, context=context)
        except StoreError as exc:
            await self.reaper.finished(caller.session_id, caller.lifetime, discovered=False, token=caller.principal)
            raise _store_down(exc) from None
        await self.reaper.finished(
            caller.session_id, caller.lifetime, discovered=bool(outcome.revealed), token=caller.principal
        )
        pins = self.scout.auto_pins
        repinned = pins is not None and self._pin_listings.outdated(
            caller.session_id, pins.generation(caller.principal)
        )
        revealed = bool(outcome.revealed) and settings.style == "reveal"
        if repinned or revealed:
            if revealed and sees_reveals and settings.reveal_call_tool:
                self.reach.changed(caller.session_id)
            if caller.legacy:
                await ctx.session.send_notification(ToolListChangedNotification(), related_request_id=ctx.request_id)
            self.changes.publish(caller.session_id)
            if self._tasks is not None:  # the other replicas' clients of this session, without waiting on Redis
                self._tasks.start_soon(self.feed.publish, caller.session_id)
        return call_result(outcome)

    async def _changed_elsewhere(self, session_id: str) -> None:
        """Another replica revealed tools to `session_id`: tell its clients connected here."""
        self.changes.publish(session_id)
        await self._legacy.notify(session_id)

    def _answer_context(self, name: str, caller: Caller, *, sees_reveals: bool) -> AnswerContext:
        """What the answer to `caller`'s call of `name` adds, handed to dispatch before it is built.

        A reveal that the caller's tool list will not show (reveal style, with the call tool) tells it to run
        found tools with the call tool. A search names the caller's upstreams whose tools it misses: those not
        connected with no tools known, still starting or failed (with their error); an upstream restarting,
        or starting with remembered tools, is searched as usual.
        """
        settings = self.scout.settings
        unseen = not sees_reveals and settings.style == "reveal" and settings.reveal_call_tool
        hint = Search.reveal_unseen(settings.bridge_names) if unseen else None
        if name != settings.bridge_names.search:
            return AnswerContext(reveal_hint=hint)
        statuses = [status for status in self.pool.status() if status.state != "connected" and not status.tools]
        if not caller.scope.unrestricted:
            visible = visible_servers(self.pool, caller.scope, None)
            statuses = [status for status in statuses if status.name in visible]
        pending = tuple(
            ServerNotReady(
                server=status.name,
                state=status.state,
                error=status.error if status.error and status.state != "starting" else None,
            )
            for status in statuses
        )
        starting = any(status.state == "starting" for status in statuses)
        failed = any(status.state != "starting" for status in statuses)
        note = " ".join(
            text
            for text, applies in ((Upstream.STILL_STARTING, starting), (Upstream.FAILED_TO_START, failed))
            if applies
        )
        return AnswerContext(servers_not_ready=pending, servers_note=note, reveal_hint=hint)

    async def _listen(
        self, ctx: ServerRequestContext[Any, Any], params: SubscriptionsListenRequestParams
    ) -> SubscriptionsListenResult:
        caller = self._caller(ctx)
        owner = self._owner(ctx, caller)
        share = self.config.settings.max_listen_streams_per_token
        if self.changes.held(owner) >= share:
            raise MCPError(
                INVALID_REQUEST,
                f"subscriptions/listen refused: {owner} already has {share} listen streams open, the most "
                f"toolscout.max_listen_streams_per_token ({share}) allows; close one first",
            )
        if len(self.changes) >= _MAX_LISTEN_STREAMS:
            raise MCPError(INTERNAL_ERROR, SUBSCRIPTION_LIMIT)
        return await ListenHandler(self.changes.view(caller.session_id, owner))(ctx, params)

    def _owner(self, ctx: ServerRequestContext[Any, Any], caller: Caller) -> str:
        """Whose share a request draws on: its token's (grant label), else its client address's."""
        if self.config.settings.auth is not None or not isinstance(ctx.request, Request):
            return f"token {caller.principal!r}"
        client = ctx.request.client
        return f"client address {client.host if client else '-'}"

    async def _per_caller_handshake(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        """Give each caller the guidance for its own scope, and announce list changes on 2025-era wires."""
        result = await call_next(ctx)
        if ctx.method not in ("initialize", "server/discover") or not isinstance(result, dict):
            return result
        guidance = await self._guidance(self._caller(ctx))
        result = {key: value for key, value in result.items() if key != "instructions"}
        if guidance:
            result["instructions"] = guidance
        tools = result.get("capabilities", {}).get("tools")
        if ctx.method == "initialize" and isinstance(tools, dict):
            tools["listChanged"] = True
        if isinstance(result.get("capabilities"), dict):
            result["capabilities"] = offered_capabilities(
                result["capabilities"], self.pool.capabilities().values(), handshake=ctx.method == "initialize"
            )
        return result

    async def _complete(self, ctx: ServerRequestContext[Any, Any], params: CompleteRequestParams) -> CompleteResult:
        if isinstance(params.ref, PromptReference):
            return await self.prompts.complete(ctx, params)
        return await self.resources.complete(ctx, params)

    async def _set_level(self, ctx: ServerRequestContext[Any, Any], params: SetLevelRequestParams) -> EmptyResult:
        caller = self._caller(ctx)
        if caller.lifetime != "request":  # a stateless request's level would apply to nothing after it
            await self.reaper.touch(caller.session_id, caller.lifetime)
            await self.relay.set_level(caller.session_id, params.level)
        return EmptyResult()

    async def _set_upstream_level(self, level: LoggingLevel) -> None:
        """Ask every connected 2025-era upstream that logs for messages from `level` up."""
        request = SetLevelRequest(params=SetLevelRequestParams(level=level))

        async def send(client: Client) -> EmptyResult:
            return await client.session.send_request(request, EmptyResult)

        for name, capabilities in self.pool.capabilities().items():
            if capabilities is None or capabilities.logging is None:
                continue
            try:
                upstream = await self.pool.connection(name)
                if upstream.protocol_version not in MODERN_PROTOCOL_VERSIONS:
                    await upstream.request("logging/setLevel", send, timeout_s=self.config.settings.call_timeout_s)
            except UpstreamError as exc:
                logger.warning("%s; its log level stays as it was", exc)

    async def _upstream_notified(self, server: str, message: ServerNotification) -> None:
        """Pass an upstream's resource and prompt notifications on to the clients concerned."""
        if isinstance(message, ResourceUpdatedNotification):
            self.resources.updated(server, message.params.uri)
        elif isinstance(message, ResourceListChangedNotification | PromptListChangedNotification):
            self._announce(server, message)

    def _announce(self, server: str, message: ResourceListChangedNotification | PromptListChangedNotification) -> None:
        """Tell the 2025-era sessions whose grant reaches `server` that its resources or prompts changed."""
        reaches: dict[Scope, bool] = {}
        for session_id, session, scope in self._legacy.reachable():
            if scope not in reaches:
                reaches[scope] = server in visible_servers(self.pool, self._settings_scope.narrowed(scope), None)
            if reaches[scope]:
                self.outbox.post(session_id, session, message.method, message)

    def _caller(self, ctx: ServerRequestContext[Any, Any]) -> Caller:
        caller = self.identities.caller(ctx)
        if caller.legacy and ctx.method != "initialize":
            self._legacy.remember(caller.session_id, ctx.session, caller.scope)
        return caller

    def _scoped_caller(self, ctx: ServerRequestContext[Any, Any]) -> Caller:
        """The caller, with the settings' ``scope`` applied to its own (as plans apply it to tools)."""
        caller = self._caller(ctx)
        return dataclasses.replace(caller, scope=self._settings_scope.narrowed(caller.scope))

    async def end_session(self, session_id: str) -> None:
        """The client closed the connection `session_id` was tied to: delete its outputs and discoveries.

        Its resource subscriptions go too (the last subscriber of a resource unsubscribes upstream).
        """
        await self.reaper.closed(session_id)
        await self.resources.subscriptions.forget(session_id)

    async def _end_session(self, session_id: str, forget_discoveries: bool) -> None:
        """Delete a session's offloaded outputs (and its discoveries if asked); store errors are logged."""
        await self.relay.forget(session_id)
        self.reach.forget(session_id)
        self._pin_listings.forget(session_id)
        offload = self.scout.offload
        if offload is not None:
            await anyio.to_thread.run_sync(offload.forget, session_id)
        if forget_discoveries:
            try:
                await anyio.to_thread.run_sync(self.store.forget, session_id)
            except StoreError as exc:
                logger.warning("could not forget an ended session's discoveries: %s", exc)

    async def _execute(self, call: ToolCall) -> object:
        """The `ToolScout` executor: run a resolved call on its upstream, by its upstream name.

        An upstream failure comes back as its `ToolError`, so dispatch records the call as failed.
        """
        route = self.pool.route(call.name)
        if route is None:
            return unrouted_fault(call.name, self.scout.settings.bridge_names).error
        server, tool = route
        if self.tracing is None:
            return await self._call_upstream(call, server, tool)
        with self.tracing.upstream(
            session=call.session_id, tool=call.name, server=server, upstream_tool=tool, arguments=call.arguments
        ) as span:
            result = await self._call_upstream(call, server, tool)
            self.tracing.upstream_result(span, _code(result))
            return result

    async def _call_upstream(self, call: ToolCall, server: str, tool: str) -> object:
        """Call `tool` on `server`; the result, or the upstream failure's `ToolError`."""
        started = time.perf_counter()
        result: CallToolResult | UpstreamFault
        try:
            result = upstream_result(server, await self.pool.call(server, tool, call.arguments))
        except UpstreamError as exc:
            result = upstream_fault(exc, tool=call.name, timeout_s=self.config.settings.call_timeout_s)
            logger.warning("upstream failure: %s", exc)
        _log_call(call, server, tool, result, time.perf_counter() - started)
        return result.error if isinstance(result, UpstreamFault) else result

    def _prepare(self) -> None:
        """Load the token counter's tables (the first count does) and index the catalog standing in, if any."""
        self.scout.counter.count("")
        if len(self.scout.catalog):
            self.scout.index()

    def _set_catalog(self) -> bool:
        """Make the pool's tools the catalog; returns whether it changed (a bad catalog is logged and kept out)."""
        before = self.scout.catalog.fingerprint
        try:
            self.scout.set_tools(tool.spec for tool in self.pool.tools())
        except CatalogError as exc:
            logger.error("the upstream tools do not form a catalog; keeping the previous one: %s", exc)
            return False
        return self.scout.catalog.fingerprint != before

    async def _tools_changed(self) -> None:
        """An upstream's tool list changed: rebuild the catalog and tell every client."""
        if not self._set_catalog():
            return
        # Index the new catalog off the event loop now (its embeddings follow in the background),
        # so no client's search pays for it.
        await anyio.to_thread.run_sync(self.scout.index)
        self.changes.publish(None)
        await self._legacy.notify_all()


def _search_engine(scout: ToolScout) -> str:
    """The start-up log's description of the engine behind ``tool_search``."""
    settings = scout.settings
    mode = resolve_search_mode(settings.search_mode, settings.embeddings)
    if mode == "lexical":
        return "lexical (no embedding backend configured or installed)"
    if mode != "hybrid":
        return f"the registered engine {mode!r}"
    backend = resolve_backend(settings.embeddings)
    return f"hybrid with the {backend} embedder (lexical until each catalog's embeddings are computed)"


def _store_down(exc: StoreError) -> MCPError:
    logger.error("session store failure: %s", exc)
    return MCPError(INTERNAL_ERROR, STORE_DOWN)


def _code(result: object) -> str | None:
    """An upstream call's error code: its `ToolError`'s, ``tool_reported_error`` for an error result, else None."""
    if isinstance(result, ToolError):
        return result.code
    return "tool_reported_error" if getattr(result, "is_error", False) else None


def _log_call(call: ToolCall, server: str, tool: str, result: object, latency_s: float) -> None:
    code: str = result.error.code if isinstance(result, UpstreamFault) else "-"
    ok = not isinstance(result, UpstreamFault) and not getattr(result, "is_error", False)
    latency_ms = round(latency_s * 1000, 2)
    session = hashlib.sha256(call.session_id.encode()).hexdigest()[:12]
    logger.info(
        "call tool=%s server=%s upstream_tool=%s bridged=%s ok=%s code=%s latency_ms=%.2f session=%s",
        call.name,
        server,
        tool,
        call.bridged,
        ok,
        code,
        latency_ms,
        session,
        extra={
            "event": "tool_call",
            "tool": call.name,
            "server": server,
            "upstream_tool": tool,
            "bridged": call.bridged,
            "ok": ok,
            "code": code,
            "latency_ms": latency_ms,
            "session": session,
            "argument_names": sorted(call.arguments),
        },
    )
