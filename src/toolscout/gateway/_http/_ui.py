"""The gateway's web page under ``/ui/``: catalog, search playground, activity, token budget and learned requests.

The page and its assets ship in the package (``toolscout/data/ui``; no CDN, works offline). Its
data comes from JSON endpoints under ``/ui/api/``, protected by the same bearer tokens as
``/mcp`` (the page takes a token from its ``#token=`` fragment and sends it as a header); each
answer covers what the caller's grant may see (its `Viewer`).

The endpoints' work (a catalog of thousands of tools, a token budget rendered for every provider)
runs in one worker thread at a time, never on the event loop, so ``/mcp`` and ``/healthz`` answer
while it runs; the budget is computed once per catalog (by its fingerprint) and scope however many ask.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Awaitable, Callable, Hashable, Sequence
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
from ..._errors import StoreError
from ..._scope import Scope
from ..._scout import ScoutSession, ToolScout
from ..._tokens import tool_tokens
from ..._types import JsonObject
from ...catalog import Catalog
from ...learning import UsagePair
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
_LEARNED_TOOLS = 100
"""The most tools the learned view lists (the most recently learned first)."""
_LEARNED_REQUESTS = 20
"""The most requests it lists per tool (the most recently learned first)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class UiSource:
    """What the page shows: the live scout, the activity log, each caller's view of them."""

    scout: Callable[[], ToolScout]
    activity: ActivityLog
    search_mode: Callable[[], str]
    """The engine ``tool_search`` uses now (``lexical`` or ``hybrid``)."""
    viewer: Callable[[Request], Viewer]
    """What the caller of a request may see, the upstreams' states included."""
    learning_store: str
    """The kind of store learned pairs are kept in (``sqlite``, ``redis``, ``memory``), never its path."""


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

    async def learning(request: Request) -> Response:
        viewer = source.viewer(request)
        return JSONResponse(await work.run(lambda: _learned_view(source, viewer)))

    assets = resources.files("toolscout") / "data" / "ui"
    api = [
        Route(f"{UI_PATH}/api/catalog", protect(AsgiEndpoint(catalog)), methods=["GET"]),
        Route(f"{UI_PATH}/api/search", protect(AsgiEndpoint(search)), methods=["GET"]),
        Route(f"{UI_PATH}/api/activity", protect(AsgiEndpoint(activity)), methods=["GET"]),
        Route(f"{UI_PATH}/api/budget", protect(AsgiEndpoint(budget)), methods=["GET"]),
        Route(f"{UI_PATH}/api/learning", protect(AsgiEndpoint(learning)), methods=["GET"]),
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


def _learned_view(source: UiSource, viewer: Viewer) -> JsonObject:
    """Whether learning is on, the pairs per learning scope, and per tool the requests the viewer's scope learned.

    Pairs of the viewer's own learning scope only, for tools it may see; an admin (or everyone, without tokens)
    also gets every scope's pair count. Bounded: `_LEARNED_TOOLS` tools, `_LEARNED_REQUESTS` requests each.
    """
    scout = source.scout()
    usage = scout.usage
    own = viewer.learning_scope
    answer: JsonObject = {"enabled": usage is not None, "store": source.learning_store, "scope": own}
    if usage is None or own is None:
        return {**answer, "scopes": [], "tools": []}
    store = usage.store
    try:
        pairs = store.pairs(own)
        others = [scope for scope in store.scopes() if scope != own] if viewer.admin else []
        counts = {own: len(pairs), **{scope: len(store.pairs(scope)) for scope in others}}
    except StoreError:
        return {**answer, "scopes": [], "tools": [], "error": "the usage store cannot be read now"}
    visible = {tool.name for tool in _visible(scout, viewer.scope)}
    scopes: list[JsonObject] = [{"scope": scope, "pairs": counts[scope]} for scope in sorted(counts)]
    return {**answer, "scopes": scopes, **_learned_tools([pair for pair in pairs if pair.tool in visible])}


def _learned_tools(pairs: Sequence[UsagePair]) -> JsonObject:
    """Per tool, the most recently learned first: its pairs, and its requests with distinct sessions and last time."""
    by_tool: dict[str, dict[str, list[UsagePair]]] = defaultdict(lambda: defaultdict(list))
    for pair in pairs:
        by_tool[pair.tool][pair.request].append(pair)
    last = {tool: max(pair.at for found in requests.values() for pair in found) for tool, requests in by_tool.items()}
    ordered = sorted(by_tool, key=lambda tool: -last[tool])
    tools = [_learned_tool(tool, by_tool[tool]) for tool in ordered[:_LEARNED_TOOLS]]
    return {"tools": tools, "more_tools": max(0, len(ordered) - _LEARNED_TOOLS)}


def _learned_tool(tool: str, requests: dict[str, list[UsagePair]]) -> JsonObject:
    latest = {request: max(pair.at for pair in found) for request, found in requests.items()}
    ordered = sorted(requests, key=lambda request: -latest[request])
    rows = [
        {
            "request": request,
            "sessions": len({pair.session for pair in requests[request]}),
            "last": latest[request],
            "missed": any(pair.missed for pair in requests[request]),
        }
        for request in ordered[:_LEARNED_REQUESTS]
    ]
    return {
        "name": tool,
        "pairs": sum(len(found) for found in requests.values()),
        "last": latest[ordered[0]],
        "requests": rows,
        "more_requests": max(0, len(ordered) - _LEARNED_REQUESTS),
    }


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
