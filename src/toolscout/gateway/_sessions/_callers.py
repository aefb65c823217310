"""Who is calling: each downstream request mapped to a toolscout session id and a `Scope`.

Session ids are chosen so that discoveries outlive a connection and a gateway restart:

- **stdio**: ``toolscout.session_id`` when set, else ``stdio:<config>:client:<the client's name>`` (from
  ``clientInfo``), where ``<config>`` is a digest of the config file's resolved path (of the server set for a
  config without a file). The same desktop app running the same config file finds its discoveries after a
  restart, even once the file is edited; another config file starts with none of them, though both share the
  data folder's default store and the client has the same name (a first turn depends only on its own config).
- **HTTP**: the ``Toolscout-Session`` request header when sent (any stable string the client
  picks, e.g. one per conversation), else the ``Mcp-Session-Id`` of a 2025-era connection (one
  session per connection), else the request alone (a 2026-07-28 request without the header).
  The header is the only key that moves between replicas: with Redis stores every replica serves
  the session, and a 2026-07-28 client may send each request to any of them (an
  ``Mcp-Session-Id`` lives in one replica's SDK session manager).

HTTP ids are prefixed with the caller's grant label (a static token's name, ``oauth/<sub>`` for an
access token: `toolscout.gateway.Grant`), so two callers never share a session whatever
headers they send, and one user's refreshed tokens keep theirs. Ids that are too long or not printable are hashed.

A session's `Lifetime` says when it can never be used again: a stateless request's session
when the request ends, an ``Mcp-Session-Id`` session when its connection ends, a durable one
never (it only goes idle).
"""

from __future__ import annotations

import hashlib
import json
import secrets
from collections import Counter, OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

import anyio
from mcp.server.context import ServerRequestContext
from mcp.server.session import ServerSession
from mcp.server.subscriptions import ServerEvent, ToolsListChanged
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from starlette.requests import Request

from ..._scope import Scope
from ..._types import Transport
from .._config import GatewayConfig
from .._identity import grant_of

__all__ = ["SESSION_HEADER", "Caller", "ChangeBus", "Identities", "LegacySessions", "Lifetime"]

SESSION_HEADER = "toolscout-session"
"""The HTTP header a client may send to name its session."""

_MAX_ID_CHARS = 200

Lifetime: TypeAlias = Literal["durable", "connection", "request"]
"""Until when a session id can be used: ``durable`` (stdio, a chosen ``Toolscout-Session``) for good,
``connection`` while its ``Mcp-Session-Id`` connection lasts, ``request`` for one stateless request."""
_NOTHING = Scope(allow=())


@dataclass(frozen=True, slots=True, kw_only=True)
class Caller:
    """The session and scope one downstream request runs in."""

    session_id: str
    """The toolscout session id (the discovery store's key)."""
    principal: str
    """The caller's grant label, ``local`` without auth."""
    scope: Scope
    """What this caller may see and call."""
    legacy: bool
    """True on a 2025-era (handshake) connection, where list changes are plain notifications."""
    lifetime: Lifetime = "durable"
    """Until when the session id can be used."""


class Identities:
    """Maps request contexts to `Caller`s for one transport."""

    def __init__(self, config: GatewayConfig, transport: Transport) -> None:
        """Read whether HTTP callers authenticate, and the stdio session id, from `config`."""
        self.transport = transport
        self._fixed_id = config.settings.session_id
        self._stdio_prefix = f"stdio:{_config_key(config)}:client:"
        self._auth = config.settings.auth is not None

    def caller(self, ctx: ServerRequestContext[Any, Any]) -> Caller:
        """The caller of the request `ctx` belongs to."""
        legacy = ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS
        request = ctx.request if isinstance(ctx.request, Request) else None
        if request is None:
            session_id = self._fixed_id or _bounded(self._stdio_prefix + _client_name(ctx))
            return Caller(session_id=session_id, principal="local", scope=Scope(), legacy=legacy)
        principal, scope = self.grant(request.scope)
        headers = request.headers
        lifetime: Lifetime = "durable"
        if chosen := headers.get(SESSION_HEADER):
            key = f"s:{chosen}"
        elif transport_id := headers.get("mcp-session-id"):
            key, lifetime = f"mcp:{transport_id}", "connection"
        else:
            # Stateless request: its own scope. A self-declared client name is never an identity.
            key, lifetime = f"request:{secrets.token_hex(12)}", "request"
        session_id = _bounded(f"http:{principal}:{key}")
        return Caller(session_id=session_id, principal=principal, scope=scope, legacy=legacy, lifetime=lifetime)

    def ended_by(self, request: Request) -> str | None:
        """The session a finished HTTP ``DELETE`` (the client closing its connection) ends, if any.

        A session the client named with ``Toolscout-Session`` outlives its connections: None.
        """
        transport_id = request.headers.get("mcp-session-id")
        if request.method != "DELETE" or not transport_id or request.headers.get(SESSION_HEADER):
            return None
        principal, _ = self.grant(request.scope)
        return _bounded(f"http:{principal}:mcp:{transport_id}")

    def grant(self, request_scope: Mapping[str, Any]) -> tuple[str, Scope]:
        """The grant label and scope of an HTTP request (nothing at all for a stranger)."""
        if not self._auth:
            return "local", Scope()
        grant = grant_of(request_scope)
        return (grant.label, grant.scope) if grant is not None else ("-", _NOTHING)


class ChangeBus:
    """Tool-list changes for 2026-07-28 ``subscriptions/listen`` streams, per session or for all.

    `view` gives the SDK's `ListenHandler` a bus that only hears its own session's events. Each stream
    counts toward its owner's share (`held`): a token, or a client address without auth.
    """

    def __init__(self) -> None:
        """Start with no listeners."""
        self._listeners: dict[object, tuple[str, Callable[[ServerEvent], None]]] = {}
        self._held: Counter[str] = Counter()

    def __len__(self) -> int:
        return len(self._listeners)

    def held(self, owner: str) -> int:
        """The streams `owner` has open."""
        return self._held[owner]

    def view(self, session_id: str, owner: str = "") -> _SessionView:
        """A `SubscriptionBus` for one session's listen stream, counted as `owner`'s."""
        return _SessionView(self, session_id, owner)

    def publish(self, session_id: str | None) -> None:
        """Tell the listeners of `session_id` (of every session when None) that their tools changed."""
        event = ToolsListChanged()
        for key, listener in list(self._listeners.values()):
            if session_id is None or key == session_id:
                listener(event)

    def subscribe(
        self, session_id: str, listener: Callable[[ServerEvent], None], owner: str = ""
    ) -> Callable[[], None]:
        """Register `listener` for `session_id`, as one of `owner`'s streams; returns the (idempotent) unsubscribe."""
        token = object()
        self._listeners[token] = (session_id, listener)
        self._held[owner] += 1

        def unsubscribe() -> None:
            if self._listeners.pop(token, None) is not None:
                self._held[owner] -= 1
                if not self._held[owner]:
                    del self._held[owner]

        return unsubscribe


class _SessionView:
    def __init__(self, bus: ChangeBus, session_id: str, owner: str) -> None:
        self._bus = bus
        self._session_id = session_id
        self._owner = owner

    async def publish(self, event: ServerEvent) -> None:
        self._bus.publish(self._session_id)

    def subscribe(self, listener: Callable[[ServerEvent], None]) -> Callable[[], None]:
        return self._bus.subscribe(self._session_id, listener, self._owner)


class LegacySessions:
    """The latest request proxy and the scope of recent 2025-era connections, to push list changes on their stream."""

    def __init__(self, limit: int = 1024) -> None:
        """Remember at most `limit` connections (least recently active forgotten first)."""
        self._limit = limit
        self._sessions: OrderedDict[str, ServerSession] = OrderedDict()
        self._scopes: dict[str, Scope] = {}

    def remember(self, session_id: str, session: ServerSession, scope: Scope) -> None:
        """Note `session` as the way to reach `session_id`'s client, whose requests run in `scope`."""
        self._sessions[session_id] = session
        self._sessions.move_to_end(session_id)
        self._scopes[session_id] = scope
        while len(self._sessions) > self._limit:
            forgotten, _ = self._sessions.popitem(last=False)
            self._scopes.pop(forgotten, None)

    def reachable(self) -> list[tuple[str, ServerSession, Scope]]:
        """Every remembered connection: its session id, its request proxy and its scope."""
        return [(session_id, session, self._scopes[session_id]) for session_id, session in self._sessions.items()]

    async def notify(self, session_id: str) -> None:
        """Send ``notifications/tools/list_changed`` on `session_id`'s remembered connection, if any.

        Best effort: a connection that closed meanwhile is forgotten.
        """
        session = self._sessions.get(session_id)
        if session is None:
            return
        try:
            await session.send_tool_list_changed()
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            self._sessions.pop(session_id, None)
            self._scopes.pop(session_id, None)

    async def notify_all(self) -> None:
        """Send ``notifications/tools/list_changed`` on every remembered connection (best effort)."""
        for session in list(self._sessions.values()):
            await session.send_tool_list_changed()


def _client_name(ctx: ServerRequestContext[Any, Any]) -> str:
    params = ctx.session.client_params
    if params is not None:
        return params.client_info.name
    raw: Mapping[str, Any] = ctx.params or {}
    info = raw.get("clientInfo")  # the initialize request itself, before the handshake commits
    name = info.get("name") if isinstance(info, Mapping) else None
    return name if isinstance(name, str) and name else "default"


def _config_key(config: GatewayConfig) -> str:
    """12 hex digits naming `config`: its file's resolved path, else its enabled servers' entries."""
    if config.source is not None:
        named = str(config.source)
    else:
        servers = {name: server.model_dump(mode="json") for name, server in config.enabled_servers().items()}
        named = json.dumps(servers, sort_keys=True)
    return hashlib.sha256(named.encode("utf-8", "surrogatepass")).hexdigest()[:12]


def _bounded(session_id: str) -> str:
    if len(session_id) <= _MAX_ID_CHARS and session_id.isprintable():
        return session_id
    digest = hashlib.sha256(session_id.encode("utf-8", "surrogatepass")).hexdigest()[:32]
    return f"{session_id.split(':', 1)[0]}:hashed:{digest}"
