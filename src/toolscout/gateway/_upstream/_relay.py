"""`Relay`: what an upstream sends back (progress, logs, requests, notifications) reaches the right client.

Every downstream request that goes to an upstream (a tool call, ``prompts/get``,
``resources/read``, ``completion/complete``) runs inside `Relay.forwarding`, which records it as
in flight on that upstream and makes it the *current* request of its task:

- **progress**: the upstream request carries a progress token of its own whenever the downstream
  request carried one; each upstream progress notification is re-sent against the client's token,
  on the client's request stream (exact by construction).
- **sampling, elicitation, roots** (server → client requests) and **log messages**: the protocol
  of a 2025-era upstream does not say which request they belong to. A request made while the
  gateway awaits a 2026-07-28 upstream's multi-round result runs in the calling task and is
  routed exactly; otherwise it goes to the one downstream session with requests in flight on that
  upstream. When none, or several sessions, are in flight, nothing is guessed: a request is
  answered with the protocol's error and a log message stays in the gateway's log. A client that
  did not declare the capability (or whose connection cannot take server requests, as on
  2026-07-28) gets nothing; the upstream gets the error at once, never a hang.
- **cancellation**: the SDK cancels the handler of a cancelled downstream request; the upstream
  request awaited inside it is abandoned with ``notifications/cancelled`` to the upstream.
- **logging/setLevel**: each session's level is kept until the session ends (at most
  `MAX_SESSION_LEVELS`, the least recently set dropped first; a stateless request's is not kept, as
  nothing follows it); upstream log messages below it are not forwarded to that session. Each upstream
  that logs is set to the lowest level any session asked for, never above `DEFAULT_LOG_LEVEL`, and set
  back up when the sessions that asked for less end. A session that never asked gets what upstreams
  send by their own default until some session asks, and from then on `DEFAULT_LOG_LEVEL` and above:
  another session asking for ``debug`` never floods it.
"""

from __future__ import annotations

import contextvars
import logging
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import anyio
from mcp.client.session import ClientRequestContext
from mcp.server.connection import allowed_log_levels
from mcp.server.context import ServerRequestContext
from mcp.shared.dispatcher import ProgressFnT
from mcp.shared.jsonrpc_dispatcher import progress_token_from_params
from mcp.shared.message import ServerMessageMetadata
from mcp_types import (
    INVALID_REQUEST,
    ClientCapabilities,
    CreateMessageRequest,
    CreateMessageRequestParams,
    CreateMessageResult,
    CreateMessageResultWithTools,
    ElicitationCapability,
    ElicitRequest,
    ElicitRequestParams,
    ElicitResult,
    ErrorData,
    ListRootsRequest,
    ListRootsResult,
    LoggingLevel,
    LoggingMessageNotification,
    LoggingMessageNotificationParams,
    RootsCapability,
    SamplingCapability,
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from .._sessions import Caller
from ._rounds import Exchange

__all__ = ["DEFAULT_LOG_LEVEL", "LOG_LEVELS", "MAX_SESSION_LEVELS", "Downstream", "Relay"]

logger = logging.getLogger("toolscout.gateway")

LOG_LEVELS: tuple[LoggingLevel, ...] = (
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
)
"""Syslog severities, least severe first (the order ``logging/setLevel`` compares by)."""
DEFAULT_LOG_LEVEL: LoggingLevel = "info"
"""The level of a session that never sent ``logging/setLevel``, once upstreams' levels are the gateway's to set."""
MAX_SESSION_LEVELS = 10_000
"""Sessions whose ``logging/setLevel`` is remembered at once."""


@dataclass(eq=False, slots=True)
class Downstream:
    """One downstream request being served by an upstream."""

    ctx: ServerRequestContext[Any, Any]
    caller: Caller
    server: str = ""
    progress_token: str | int | None = field(default=None)
    exchange: Exchange | None = None
    """Set for a 2026-07-28 client's call: the server's requests become its ``input_required`` rounds."""


_current: contextvars.ContextVar[Downstream | None] = contextvars.ContextVar("toolscout_downstream", default=None)


class Relay:
    """Routes what upstreams send back to the downstream request or session it belongs to."""

    def __init__(self) -> None:
        """Start with nothing in flight and every session at the default log level."""
        self._in_flight: dict[str, list[Downstream]] = {}
        self._levels: OrderedDict[str, LoggingLevel] = OrderedDict()
        self._upstream_level: LoggingLevel | None = None
        self.set_upstream_level: Callable[[LoggingLevel], Awaitable[None]] | None = None
        """Called with the level upstreams should log from when that changes (set by the gateway)."""

    def current(self) -> Downstream | None:
        """The downstream request this task serves, if any."""
        return _current.get()

    @asynccontextmanager
    async def forwarding(
        self, ctx: ServerRequestContext[Any, Any], caller: Caller, *, exchange: Exchange | None = None
    ) -> AsyncIterator[Downstream]:
        """Make `ctx` the current downstream request for the upstream requests made inside."""
        token = progress_token_from_params(ctx.params)
        downstream = Downstream(ctx=ctx, caller=caller, progress_token=token, exchange=exchange)
        reset = _current.set(downstream)
        try:
            yield downstream
        finally:
            _current.reset(reset)

    @asynccontextmanager
    async def in_flight(self, server: str) -> AsyncIterator[Downstream | None]:
        """Record the current downstream request as waiting on `server` while the block runs."""
        downstream = _current.get()
        if downstream is None:
            yield None
            return
        downstream.server = server
        waiting = self._in_flight.setdefault(server, [])
        waiting.append(downstream)
        try:
            yield downstream
        finally:
            waiting.remove(downstream)
            if not waiting:
                self._in_flight.pop(server, None)

    def progress_callback(self, downstream: Downstream | None) -> ProgressFnT | None:
        """The upstream progress callback re-sending progress to `downstream`'s client, if it asked."""
        if downstream is None or downstream.progress_token is None:
            return None
        ctx = downstream.ctx

        async def forward(progress: float, total: float | None, message: str | None) -> None:
            try:
                await ctx.session.report_progress(progress, total, message)
            except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                pass

        return forward

    def _target(self, server: str) -> Downstream | None:
        """The downstream request an upstream's unattributed message belongs to, when that is certain."""
        downstream = _current.get()
        if downstream is not None and downstream.server == server:
            return downstream
        waiting = self._in_flight.get(server, [])
        sessions = {request.caller.session_id for request in waiting}
        return waiting[-1] if len(sessions) == 1 else None

    # Server -> client requests ------------------------------------------------------------------

    async def sampling(
        self, server: str, context: ClientRequestContext, params: CreateMessageRequestParams
    ) -> CreateMessageResult | CreateMessageResultWithTools | ErrorData:
        """Forward an upstream's ``sampling/createMessage`` to the client it belongs to."""
        downstream = self._request_target(server, "sampling/createMessage", sampling=SamplingCapability())
        if isinstance(downstream, ErrorData):
            return downstream
        result_type: type[CreateMessageResult] | type[CreateMessageResultWithTools] = (
            CreateMessageResultWithTools if params.tools or params.tool_choice else CreateMessageResult
        )
        answer: CreateMessageResult | CreateMessageResultWithTools | ErrorData = await self._ask(
            downstream, CreateMessageRequest(params=params), result_type
        )
        return answer

    async def elicitation(
        self, server: str, context: ClientRequestContext, params: ElicitRequestParams
    ) -> ElicitResult | ErrorData:
        """Forward an upstream's ``elicitation/create`` to the client it belongs to."""
        downstream = self._request_target(server, "elicitation/create", elicitation=ElicitationCapability())
        if isinstance(downstream, ErrorData):
            return downstream
        answer: ElicitResult | ErrorData = await self._ask(downstream, ElicitRequest(params=params), ElicitResult)
        return answer

    async def roots(self, server: str, context: ClientRequestContext) -> ListRootsResult | ErrorData:
        """Forward an upstream's ``roots/list`` to the client it belongs to."""
        downstream = self._request_target(server, "roots/list", roots=RootsCapability())
        if isinstance(downstream, ErrorData):
            return downstream
        answer: ListRootsResult | ErrorData = await self._ask(downstream, ListRootsRequest(), ListRootsResult)
        return answer

    def _request_target(self, server: str, method: str, **capability: Any) -> Downstream | ErrorData:
        """The downstream request to put `method` to, or the error the upstream gets instead."""
        downstream = self._target(server)
        if downstream is None:
            return ErrorData(
                code=INVALID_REQUEST,
                message=(
                    f"{method}: the toolscout gateway cannot tell which client this request is for "
                    "(send it while serving that client's request, and only one client's)"
                ),
            )
        session = downstream.ctx.session
        if not session.check_client_capability(ClientCapabilities(**capability)):
            return ErrorData(code=INVALID_REQUEST, message=f"{method}: the client does not support it")
        if downstream.exchange is None and (
            downstream.ctx.protocol_version in MODERN_PROTOCOL_VERSIONS or not session.can_send_request
        ):
            return ErrorData(
                code=INVALID_REQUEST, message=f"{method}: the client's connection cannot take requests from the server"
            )
        return downstream

    async def _ask(self, downstream: Downstream, request: Any, result_type: type[Any]) -> Any:
        if downstream.exchange is not None:
            answer = await downstream.exchange.ask(request)
            return result_type.model_validate(answer.model_dump(by_alias=True, exclude_none=True))
        ctx = downstream.ctx
        try:
            result = await ctx.session.send_request(
                request, result_type, metadata=ServerMessageMetadata(related_request_id=ctx.request_id)
            )
        except Exception as exc:  # boundary: the client's failure becomes the upstream's error answer
            error = getattr(exc, "error", None)
            if isinstance(error, ErrorData):
                return error
            return ErrorData(code=INVALID_REQUEST, message=f"{request.method}: the client did not answer: {exc}")
        return result

    # Notifications ------------------------------------------------------------------------------

    async def log(self, server: str, params: LoggingMessageNotificationParams) -> None:
        """Forward an upstream's log message to the client it belongs to, at or above its level."""
        downstream = self._target(server)
        if downstream is None:
            logger.info("upstream %r log (%s, no client to attribute it to): %s", server, params.level, params.data)
            return
        level = self._levels.get(downstream.caller.session_id)
        if level is None and self._upstream_level is not None:
            level = DEFAULT_LOG_LEVEL  # upstreams may log below their default for another session
        if level is not None and LOG_LEVELS.index(params.level) < LOG_LEVELS.index(level):
            return
        ctx = downstream.ctx
        if params.level not in allowed_log_levels(ctx.protocol_version, ctx.meta):
            return  # a 2026-07-28 request gets logs only at the level its _meta opted in to
        logger_name = f"{server}.{params.logger}" if params.logger else server
        message = LoggingMessageNotification(
            params=LoggingMessageNotificationParams(level=params.level, data=params.data, logger=logger_name)
        )
        try:
            await downstream.ctx.session.send_notification(message, related_request_id=downstream.ctx.request_id)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            pass

    async def set_level(self, session_id: str, level: LoggingLevel) -> None:
        """Record a session's ``logging/setLevel`` and set the upstreams' level to match (see the module docs)."""
        self._levels[session_id] = level
        self._levels.move_to_end(session_id)
        while len(self._levels) > MAX_SESSION_LEVELS:
            self._levels.popitem(last=False)
        await self._tune_upstreams()

    async def forget(self, session_id: str) -> None:
        """Drop an ended session's log level, setting upstreams back up if it was the lowest."""
        if self._levels.pop(session_id, None) is not None:
            await self._tune_upstreams()

    async def _tune_upstreams(self) -> None:
        wanted = min((*self._levels.values(), DEFAULT_LOG_LEVEL), key=LOG_LEVELS.index)
        if wanted != self._upstream_level and self.set_upstream_level is not None:
            self._upstream_level = wanted
            await self.set_upstream_level(wanted)
