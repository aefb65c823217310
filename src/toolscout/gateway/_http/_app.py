"""The gateway's HTTP app: ``/mcp``, ``/metrics``, the ``/ui/`` page (all behind the bearer tokens), ``/healthz``.

Each caller sees only its grant (see `toolscout.gateway._http._viewers`); bound to loopback, every path
answers only loopback ``Host`` and ``Origin`` headers.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager

from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecurityMiddleware, TransportSecuritySettings
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..._settings import ScoutSettings
from ...learning._internal import store_kind
from ...observe._internal import CONTENT_TYPE
from .._config import CHAIN_HEADER, REACH_HEADER, GatewayChain
from .._identity import Guard, grant_of
from .._server import Gateway
from .._upstream import health_report
from ._bodies import body_limit, json_error, refuse_oversized
from ._session_cap import SessionCap
from ._session_rate import SessionRate
from ._ui import AsgiEndpoint, UiSource, ui_routes
from ._viewers import Viewers

__all__ = ["MCP_PATH", "http_app"]

MCP_PATH = "/mcp"
_LOOPBACK = ("127.0.0.1", "localhost", "::1")
_METRICS_NEED_ADMIN = (
    "/metrics counts every client's calls and names every upstream: it answers only a caller whose grant has "
    "admin: true (toolscout.auth.tokens.NAME.admin, or toolscout.auth.oauth.grants.NAME.admin)"
)


def http_app(gateway: Gateway, *, host: str) -> Starlette:
    """The ASGI app serving `gateway` (the SDK's session manager and bearer middleware).

    Bound to a loopback `host`, requests to every path must also carry a loopback ``Host`` header,
    and a loopback ``Origin`` when they send one (DNS rebinding protection, the SDK's check): ``421``
    or ``403`` otherwise.
    """
    security = None
    if host in _LOOPBACK:
        security = TransportSecuritySettings(
            enable_dns_rebinding_protection=True,
            allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*"],
            allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
        )
    settings = gateway.config.settings
    largest = body_limit(settings)
    manager = StreamableHTTPSessionManager(
        app=gateway.server, security_settings=security, max_request_body_size=largest
    )
    auth = gateway.config.settings.auth
    guard = Guard(auth)
    sessions = SessionRate(
        SessionCap(_EndingSessions(StreamableHTTPASGIApp(manager), gateway), settings.max_sessions_per_token),
        settings.new_sessions_per_minute,
        largest,
        known_ids=settings.max_sessions_per_token,
    )
    mcp = _LimitedBodies(_RefusingLoops(sessions, gateway.chain, gateway.pool.reach), settings)
    viewers = Viewers(gateway)
    middleware: list[Middleware] = []
    if security is not None:
        middleware.append(Middleware(_TrustedHosts, security=security))
    middleware += guard.middleware

    async def healthz(request: Request) -> JSONResponse:
        statuses = gateway.pool.status()
        if auth is None:
            scout = gateway.scout
            return JSONResponse(
                health_report(statuses, tools=len(scout.catalog), search=scout.search_status(), renamed=scout.renamed)
            )
        if grant_of(request.scope) is None:
            # Enough for a load balancer; nothing about the catalog.
            return JSONResponse({"status": health_report(statuses)["status"]})
        return JSONResponse(health_report(viewers(request).upstreams))

    def lifespan(app: Starlette) -> AbstractAsyncContextManager[None]:
        return manager.run()

    async def metrics(request: Request) -> Response:
        if not viewers(request).admin:
            return JSONResponse({"error": _METRICS_NEED_ADMIN}, status_code=403)
        return Response(gateway.metrics.render(), media_type=CONTENT_TYPE)

    ui = UiSource(
        scout=lambda: gateway.scout,
        activity=gateway.activity,
        search_mode=lambda: gateway.scout.search_mode,
        viewer=viewers,
        learning_store=store_kind(settings.usage_store_spec()),
    )
    routes = [
        Route(MCP_PATH, endpoint=guard.protect(mcp)),
        Route("/healthz", endpoint=healthz, methods=["GET"]),
        Route("/metrics", endpoint=guard.protect(AsgiEndpoint(metrics)), methods=["GET"]),
        *ui_routes(ui, protect=guard.protect),
        *guard.routes,
    ]
    return Starlette(routes=routes, middleware=middleware, lifespan=lifespan)


class _TrustedHosts:
    """Every path: the SDK's DNS rebinding check (``Host``, and ``Origin`` when sent), not ``/mcp`` alone."""

    def __init__(self, app: ASGIApp, security: TransportSecuritySettings) -> None:
        self._app = app
        self._check = TransportSecurityMiddleware(security)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            refusal = await self._check.validate_request(Request(scope), is_post=False)
            if refusal is not None:
                await refusal(scope, receive, send)
                return
        await self._app(scope, receive, send)


class _LimitedBodies:
    """``/mcp``: a body declared larger than any valid call is answered by `refuse_oversized` (``_bodies.py``).

    A body without a length is cut off at the limit by whatever reads it first (`SessionRate`, the SDK).
    """

    def __init__(self, app: ASGIApp, settings: ScoutSettings) -> None:
        self._app = app
        self._settings = settings
        self._limit = body_limit(settings)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        declared = Request(scope).headers.get("content-length", "") if scope["type"] == "http" else ""
        if not declared.isdigit() or int(declared) <= self._limit:
            await self._app(scope, receive, send)
            return
        await refuse_oversized(receive, send, self._settings, int(declared))


class _RefusingLoops:
    """``/mcp``: ``508 Loop Detected`` for a gateway upstream whose chain holds this gateway or one it reaches.

    Every answer carries this gateway's reach (`REACH_HEADER`), so that gateways calling it can tell.
    """

    def __init__(self, app: ASGIApp, chain: GatewayChain, reach: Callable[[], tuple[tuple[str, ...], ...]]) -> None:
        self._app = app
        self._chain = chain
        self._reach = reach

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        reach = self._reach()
        header = Request(scope).headers.get(CHAIN_HEADER)
        refusal = self._chain.refusal(header, reach) if header is not None else None
        advertised = (REACH_HEADER.lower().encode(), self._chain.reach(reach).encode())

        async def send_with_reach(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), advertised]}
            await send(message)

        if refusal is None:
            await self._app(scope, receive, send_with_reach)
            return
        await json_error(send_with_reach, 508, refusal)


class _EndingSessions:
    """``/mcp``: the SDK's app, then, after a client's ``DELETE``, the end of the session it closed."""

    def __init__(self, app: ASGIApp, gateway: Gateway) -> None:
        self._app = app
        self._gateway = gateway

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self._app(scope, receive, send)
        if scope["type"] == "http" and scope["method"] == "DELETE":
            ended = self._gateway.identities.ended_by(Request(scope))
            if ended is not None:
                await self._gateway.end_session(ended)
