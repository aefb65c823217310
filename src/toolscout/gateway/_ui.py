"""The gateway's web page under ``/ui/``: catalog, search playground, activity and token budget.

The page and its assets ship in the package (``toolscout/data/ui``; no CDN, works offline). Its
data comes from JSON endpoints under ``/ui/api/``, protected by the same bearer tokens as
``/mcp`` (the page takes a token from its ``#token=`` fragment and sends it as a header).

The endpoints' work (a catalog of thousands of tools, a token budget rendered for every provider)
runs in one worker thread at a time, never on the event loop, so ``/mcp`` and ``/healthz`` answer
while it runs; the budget is computed once per catalog (by its fingerprint) however many ask.
"""

from __future__ import annotations

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
from starlette.types import Receive, Scope, Send

from .._cost import measure_cost
from .._scout import ToolScout
from .._settings import Style
from .._tokens import tool_tokens
from .._types import JsonObject
from ..observe import ActivityLog
from ..providers import get_provider, provider_names
from ..providers._measure import measure_rendering
from ..search._base import SearchMode
from ..search._fields import FIELD_NAMES, tool_fields
from ..search._tokenize import tokenize
from ._pool import UpstreamStatus

__all__ = ["UI_PATH", "AsgiEndpoint", "UiSource", "ui_routes"]

UI_PATH = "/ui"
_PLAYGROUND_MODES: tuple[SearchMode, ...] = ("lexical", "hybrid")
_MAX_QUERY = 2_000


@dataclass(frozen=True, slots=True, kw_only=True)
class UiSource:
    """What the page shows: the live scout, the upstreams' states, the activity log."""

    scout: Callable[[], ToolScout]
    upstreams: Callable[[], Sequence[UpstreamStatus]]
    activity: ActivityLog
    search_mode: Callable[[], str]
    """The engine ``tool_search`` uses now (``lexical`` or ``hybrid``)."""


def ui_routes(source: UiSource, *, protect: Callable[[Any], Any] = lambda app: app) -> list[BaseRoute]:
    """The page's routes; `protect` wraps each API endpoint (bearer auth where tokens are configured)."""
    work = _PageWork()

    async def catalog(request: Request) -> Response:
        return JSONResponse(await work.run(lambda: _catalog(source)))

    async def search(request: Request) -> Response:
        query = request.query_params.get("q", "")
        if len(query) > _MAX_QUERY:
            return JSONResponse({"error": f"the query is over {_MAX_QUERY} characters"}, status_code=400)
        limit = _limit(request)
        return JSONResponse(await work.run(lambda: _playground(source, query, limit)))

    async def activity(request: Request) -> Response:
        after = _float(request.query_params.get("after"))
        return JSONResponse(await work.run(lambda: _activity(source, after)))

    async def budget(request: Request) -> Response:
        scout = source.scout()
        key = (scout.catalog.fingerprint, scout)  # the scout fixes settings and core tools
        return JSONResponse(await work.cached(key, lambda: _budget(scout)))

    assets = resources.files("toolscout") / "data" / "ui"
    api = [
        Route(f"{UI_PATH}/api/catalog", protect(AsgiEndpoint(catalog)), methods=["GET"]),
        Route(f"{UI_PATH}/api/search", protect(AsgiEndpoint(search)), methods=["GET"]),
        Route(f"{UI_PATH}/api/activity", protect(AsgiEndpoint(activity)), methods=["GET"]),
        Route(f"{UI_PATH}/api/budget", protect(AsgiEndpoint(budget)), methods=["GET"]),
    ]
    return [
        *api,
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

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Answer one request."""
        response = await self._handler(Request(scope, receive))
        await response(scope, receive, send)


def _catalog(source: UiSource) -> JsonObject:
    scout = source.scout()
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
            "tokens": sum(tool_tokens(tool, counter) for tool in scout.catalog if tool.namespace == status.name),
        }
        for status in source.upstreams()
    ]
    tools = [
        {
            "name": tool.name,
            "server": tool.namespace,
            "description": tool.description,
            "parameters": tool.parameters,
            "policy": "core" if tool.name in core else "pinned" if tool.name in pinned else "deferred",
        }
        for tool in scout.catalog
    ]
    return {"servers": servers, "tools": tools, "search_mode": source.search_mode()}


def _playground(source: UiSource, query: str, limit: int) -> JsonObject:
    scout = source.scout()
    index = scout.index()
    terms = set(tokenize(query))
    columns: JsonObject = {}
    for mode in _PLAYGROUND_MODES:
        result = index.search(query, limit=limit, mode=mode) if query.strip() else None
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


def _activity(source: UiSource, after: float) -> JsonObject:
    return {"events": [event.to_dict() for event in source.activity.recent(500) if event.time > after]}


def _budget(scout: ToolScout) -> JsonObject:
    report = measure_cost(scout.catalog, core=scout.core, settings=scout.settings, counter=scout.counter)
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
        "providers": _provider_budgets(scout),
    }


def _provider_budgets(scout: ToolScout) -> list[JsonObject]:
    """First-turn tokens the model reads, per registered provider and style (deferral on, no discoveries)."""
    rows: list[JsonObject] = []
    for name in provider_names():
        adapter = get_provider(name)
        for style in ("bridge", "reveal", *(("native",) if adapter.native_search else ())):
            client_style: Style = "reveal" if style == "reveal" else "bridge"
            settings = scout.settings.model_copy(update={"style": client_style, "mode": "on", "pre_discovered": ()})
            session = scout.replace(settings=settings).session("toolscout-ui-budget")
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
