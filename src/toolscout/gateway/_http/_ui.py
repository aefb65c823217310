"""The gateway's web page under ``/ui/``: catalog, search playground, activity and token budget.

The page and its assets ship in the package (``toolscout/data/ui``; no CDN, works offline). Its
data comes from JSON endpoints under ``/ui/api/``, protected by the same bearer tokens as
``/mcp`` (the page takes a token from its ``#token=`` fragment and sends it as a header); each
answer covers what the caller's grant may see (its `Viewer`).

The endpoints' work (a catalog of thousands of tools, a token budget rendered for every provider)
runs in one worker thread at a time, never on the event loop, so ``/mcp`` and ``/healthz`` answer
while it runs; the budget is computed once per catalog (by its fingerprint) and scope however many ask.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass
from importlib import resources
from typing import Any

import anyio
import anyio.to_thread
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import Receive, Send
from starlette.types import Scope as AsgiScope

from ..._cost import measure_cost
from ..._scope import Scope
from ..._scout import ScoutSession, ToolScout
from ..._tokens import tool_tokens
from ..._types import JsonObject
from ...catalog import Catalog
from ...observe import ActivityLog
from ...providers import get_provider
from ...providers._internal import measure_rendering, provider_names
from ...search import SearchMode
from ...search._internal import FIELD_NAMES, tokenize, tool_fields
from ._viewers import Viewer

__all__ = ["UI_PATH", "AsgiEndpoint", "UiSource", "ui_routes"]

UI_PATH = "/ui"
_PLAYGROUND_MODES: tuple[SearchMode, ...] = ("lexical", "hybrid")
_MAX_QUERY = 2_000


@dataclass(frozen=True, slots=True, kw_only=True)
class UiSource:
    """What the page shows: the live scout, the activity log, each caller's view of them."""

    scout: Callable[[], ToolScout]
    activity: ActivityLog
    search_mode: Callable[[], str]
    """The engine ``tool_search`` uses now (``lexical`` or ``hybrid``)."""
    viewer: Callable[[Request], Viewer]
    """What the caller of a request may see, the upstreams' states included."""


def ui_routes(source: UiSource, *, protect: Callable[[Any], Any] = lambda app: app) -> list[BaseRoute]:
    """The page's routes; `protect` wraps each API endpoint (bearer auth where tokens are configured)."""
    work = _PageWork()

    async def catalog(request: Request) -> Response:
        viewer = source.viewer(request)
        return JSONResponse(await work.run(lambda: _catalog(source, viewer)))

    async def search(request: Request) -> Response:
        query = request.query_params.get("q", "")
        if len(query) > _MAX_QUERY:
            return JSONResponse({"error": f"the query is over {_MAX_QUERY} characters"}, status_code=400)
        viewer = source.viewer(request)
        limit = _limit(request)
        return JSONResponse(await work.run(lambda: _playground(source, viewer, query, limit)))

    async def activity(request: Request) -> Response:
        after = _float(request.query_params.get("after"))
        viewer = source.viewer(request)
        return JSONResponse(await work.run(lambda: _activity(source, viewer, after)))

    async def budget(request: Request) -> Response:
        scout = source.scout()
        scope = source.viewer(request).scope
        key = (scout.catalog.fingerprint, scout, scope)  # the scout fixes settings and core tools
        return JSONResponse(await work.cached(key, lambda: _budget(scout, scope)))

    assets = resources.files("toolscout") / "data" / "ui"
    api = [
        Route(f"{UI_PATH}/api/catalog", protect(AsgiEndpoint(catalog)), methods=["GET"]),
        Route(f"{UI_PATH}/api/search", protect(AsgiEndpoint(search)), methods=["GET"]),
        Route(f"{UI_PATH}/api/activity", protect(AsgiEndpoint(activity)), methods=["GET"]),
        Route(f"{UI_PATH}/api/budget", protect(AsgiEndpoint(budget)), methods=["GET"]),
    ]
    return [
        *api,
        Route("/", lambda request: RedirectResponse(f"{UI_PATH}/"), methods=["GET"]),
        Route(UI_PATH, lambda request: RedirectResponse(f"{UI_PATH}/"), methods=["GET"]),
        Mount(UI_PATH, app=StaticFiles(directory=str(assets), html=True), name="ui"),
    ]


class _PageWork:
    """Runs the page's work in one worker thread at a time, and keeps the latest answer per key."""

    def __init__(self) -> None:
        self._limiter = anyio.CapacityLimiter(1)
        self._lock = anyio.Lock()
        self._key: Hashable = None
        self._answer: JsonObject | None = None

    async def run(self, compute: Callable[[], JsonObject]) -> JsonObject:
        """`compute()` in the worker thread."""
        return await anyio.to_thread.run_sync(compute, limiter=self._limiter)

    async def cached(self, key: Hashable, compute: Callable[[], JsonObject]) -> JsonObject:
        """The answer for `key`: computed once (callers arriving meanwhile wait for it), then reused."""
        async with self._lock:
            if self._answer is None or self._key != key:
                self._answer = await self.run(compute)
                self._key = key
            return self._answer


class AsgiEndpoint:
    """A request handler as an ASGI app, so auth middleware can wrap it as it wraps ``/mcp``.

    (Starlette routes call plain functions as request handlers; an object is called as ASGI.)
    """

    def __init__(self, handler: Callable[[Request], Awaitable[Response]]) -> None:
        """Wrap `handler`."""
        self._handler = handler

    async def __call__(self, scope: AsgiScope, receive: Receive, send: Send) -> None:
        """Answer one request."""
        response = await self._handler(Request(scope, receive))
        await response(scope, receive, send)


def _visible(scout: ToolScout, scope: Scope) -> Catalog:
    """The part of the live catalog `scope` lets through."""
    return scope.filter(scout.catalog, keep=scout.core)


def _catalog(source: UiSource, viewer: Viewer) -> JsonObject:
    scout = source.scout()
    visible = _visible(scout, viewer.scope)
    plan = scout.plan()
    core = {tool.name for tool in plan.classification.core}
    pinned = {tool.name for tool in plan.classification.pinned}
    counter = scout.counter
    servers = [
        {
            "name": status.name,
            "state": status.state,
            "tools": status.tools,
            "error": status.error,
            "tokens": sum(tool_tokens(tool, counter) for tool in visible if tool.namespace == status.name),
        }
        for status in viewer.upstreams
    ]
    tools = [
        {
            "name": tool.name,
            "server": tool.namespace,
            "description": tool.description,
            "parameters": tool.parameters,
            "policy": "core" if tool.name in core else "pinned" if tool.name in pinned else "deferred",
        }
        for tool in visible
    ]
    return {"servers": servers, "tools": tools, "search_mode": source.search_mode(), "style": scout.settings.style}


def _playground(source: UiSource, viewer: Viewer, query: str, limit: int) -> JsonObject:
    scout = source.scout()
    index = scout.searcher()
    visible = _visible(scout, viewer.scope)
    allowed = None if visible is scout.catalog else frozenset(tool.name for tool in visible)
    terms = set(tokenize(query))
    columns: JsonObject = {}
    for mode in _PLAYGROUND_MODES:
        searched = bool(query.strip()) and (allowed is None or bool(allowed))
        result = index.search(query, limit=limit, mode=mode, allowed=allowed) if searched else None
        hits = []
        for hit in result.hits if result is not None else ():
            fields = tool_fields(scout.catalog[hit.name])
            matched = {
                field: sorted(terms & set(tokenize(getattr(fields, field))))
                for field in FIELD_NAMES
                if terms & set(tokenize(getattr(fields, field)))
            }
            hits.append({"name": hit.name, "score": round(hit.score, 4), "matched": matched})
        columns[mode] = {"mode": result.mode if result is not None else mode, "hits": hits}
    return {"query": query, "tool_search_mode": source.search_mode(), "results": columns}


def _activity(source: UiSource, viewer: Viewer, after: float) -> JsonObject:
    seen = [event for event in source.activity.recent() if viewer.sees_event(event)]
    return {"events": [event.to_dict() for event in seen[-500:] if event.time > after]}


def _budget(scout: ToolScout, scope: Scope) -> JsonObject:
    report = measure_cost(_visible(scout, scope), core=scout.core, settings=scout.settings, counter=scout.counter)
    return {
        "full_tokens": report.full_tokens,
        "styles": [
            {"style": "bridge", "tokens": report.bridge_tokens},
            {"style": "reveal", "tokens": report.reveal_tokens},
            {"style": "reveal with stubs", "tokens": report.stub_tokens},
        ],
        "servers": [
            {"name": item.namespace or "(none)", "tools": item.tools, "tokens": item.full_tokens}
            for item in report.namespaces
        ],
        "providers": _provider_budgets(scout, scope),
    }


def _provider_budgets(scout: ToolScout, scope: Scope) -> list[JsonObject]:
    """First-turn tokens the model reads in `scope`, per registered provider and style (deferral on, no discoveries).

    One scout per client style, sharing one plan (`ToolScout.replace`): the catalog is planned once.
    """
    sessions: dict[str, ScoutSession] = {}
    planner = scout
    for client_style in ("bridge", "reveal"):
        settings = scout.settings.model_copy(update={"style": client_style, "mode": "on", "pre_discovered": ()})
        planner = planner.replace(settings=settings)  # the second shares the first's plans
        sessions[client_style] = planner.session("toolscout-ui-budget", scope=scope)
    rows: list[JsonObject] = []
    for name in provider_names():
        adapter = get_provider(name)
        for style in ("bridge", "reveal", *(("native",) if adapter.native_search else ())):
            session = sessions["reveal" if style == "reveal" else "bridge"]
            size = measure_rendering(adapter.render(session, style=style), scout.counter)
            rows.append({"provider": name, "style": style, "tokens": size.context_tokens})
    return rows


def _limit(request: Request) -> int:
    raw = request.query_params.get("limit", "10")
    return min(max(int(raw), 1), 50) if raw.isdigit() else 10


def _float(raw: str | None) -> float:
    try:
        return float(raw) if raw is not None else 0.0
    except ValueError:
        return 0.0
