"""Every upstream's resources and resource templates, behind one namespaced URI space.

An upstream resource ``URI`` of server ``S`` is shown as ``toolscout://S/URI``: the original URI
follows the server's name unchanged (templates too, so a client expands ``{id}`` as before).
Server names are unique, so two servers' URIs never collide, and the original is everything after
the first ``/`` following the server name, so the mapping is reversed exactly (a gateway behind a
gateway simply nests the prefix). URIs inside read contents and update notifications are mapped
the same way.

A resource, template or URI is in a caller's scope when its scope permits the server as a whole
(`Scope.permits_namespace`): a grant of ``S:*`` (``servers: [S]``) sees all of ``S``'s resources, a
grant naming tools or tool globs sees none, and a deny of ``S:*`` hides them. Patterns are never
matched against a URI, which is the client's text.

Subscriptions (2025-era clients, `Subscriptions`): the gateway subscribes upstream once per URI and
tells each subscribed client session when the upstream says the resource changed; the last session to
unsubscribe, or to end, unsubscribes upstream.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types import (
    INVALID_PARAMS,
    BlobResourceContents,
    CompleteRequestParams,
    CompleteResult,
    EmbeddedResource,
    EmptyResult,
    ListResourcesResult,
    ListResourceTemplatesResult,
    PaginatedRequestParams,
    ReadResourceRequestParams,
    ReadResourceResult,
    Resource,
    ResourceLink,
    ResourceTemplate,
    ResourceTemplateReference,
    ResourceUpdatedNotification,
    ResourceUpdatedNotificationParams,
    SubscribeRequest,
    SubscribeRequestParams,
    TextResourceContents,
    UnsubscribeRequest,
    UnsubscribeRequestParams,
)

from .._sessions import Caller, Outboxes, Subscriptions
from .._upstream import Relay, UpstreamPool
from ._forward import forward
from ._listings import gather, offering, page

__all__ = ["SCHEME", "ResourceProxy", "namespaced_blocks", "namespaced_uri", "original_uri"]

logger = logging.getLogger("toolscout.gateway")

_Block = TypeVar("_Block")

SCHEME = "toolscout://"
"""The prefix of every URI the gateway shows: ``toolscout://<server>/<the upstream's URI>``."""


def namespaced_uri(server: str, uri: str) -> str:
    """The URI a client sees for `server`'s `uri`."""
    return f"{SCHEME}{server}/{uri}"


def original_uri(uri: str) -> tuple[str, str] | None:
    """``(server, upstream URI)`` of a namespaced URI, or None when it is not one."""
    if not uri.startswith(SCHEME):
        return None
    server, slash, original = uri[len(SCHEME) :].partition("/")
    if not server or not slash or not original:
        return None
    return server, original


def namespaced_blocks(server: str, blocks: Sequence[_Block]) -> list[_Block]:
    """Content blocks with their resource links and embedded resources under namespaced URIs.

    A tool result or prompt message that points at one of the server's resources then names it
    as ``resources/read`` through the gateway reads it.
    """
    shown: list[_Block] = []
    for block in blocks:
        if isinstance(block, ResourceLink):
            block = block.model_copy(update={"uri": namespaced_uri(server, block.uri)})
        elif isinstance(block, EmbeddedResource):
            inner = block.resource.model_copy(update={"uri": namespaced_uri(server, block.resource.uri)})
            block = block.model_copy(update={"resource": inner})
        shown.append(block)
    return shown


class ResourceProxy:
    """The ``resources/*`` handlers of the gateway, and the subscriptions they hold upstream."""

    def __init__(
        self,
        pool: UpstreamPool,
        relay: Relay,
        *,
        caller: Callable[[ServerRequestContext[Any, Any]], Caller],
        outbox: Outboxes,
    ) -> None:
        """Serve `pool`'s resources; `caller(ctx)` gives a request's `Caller`; updates go out through `outbox`."""
        self._pool = pool
        self._relay = relay
        self._outbox = outbox
        self._caller = caller
        self.subscriptions = Subscriptions(self._subscription, per_session=pool.settings.max_subscriptions_per_session)

    def _servers(self) -> list[str]:
        return offering(self._pool, [status.name for status in self._pool.status()], lambda c: c.resources is not None)

    async def list_resources(
        self, ctx: ServerRequestContext[Any, Any], params: PaginatedRequestParams | None
    ) -> ListResourcesResult:
        """``resources/list``: every upstream's resources in scope, namespaced, in pages."""
        scope = self._caller(ctx).scope
        servers = self._servers()
        found = await gather(self._pool, servers, "resources/list", _resources_page)
        permitted = {server for server in servers if scope.permits_namespace(server)}
        visible = [(server, resource) for server, resource in found if server in permitted]
        entries, following = page(visible, params.cursor if params else None)  # only the page is namespaced
        resources = [
            resource.model_copy(update={"uri": namespaced_uri(server, resource.uri)}) for server, resource in entries
        ]
        return ListResourcesResult(resources=resources, next_cursor=following, ttl_ms=0, cache_scope="private")

    async def list_templates(
        self, ctx: ServerRequestContext[Any, Any], params: PaginatedRequestParams | None
    ) -> ListResourceTemplatesResult:
        """``resources/templates/list``: every upstream's templates in scope, namespaced, in pages."""
        scope = self._caller(ctx).scope
        servers = self._servers()
        found = await gather(self._pool, servers, "resources/templates/list", _templates_page)
        permitted = {server for server in servers if scope.permits_namespace(server)}
        visible = [(server, template) for server, template in found if server in permitted]
        entries, following = page(visible, params.cursor if params else None)  # only the page is namespaced
        templates = [
            template.model_copy(update={"uri_template": namespaced_uri(server, template.uri_template)})
            for server, template in entries
        ]
        return ListResourceTemplatesResult(
            resource_templates=templates, next_cursor=following, ttl_ms=0, cache_scope="private"
        )

    async def read(self, ctx: ServerRequestContext[Any, Any], params: ReadResourceRequestParams) -> ReadResourceResult:
        """``resources/read``: read on the upstream the URI names; contents keep their bytes, URIs namespaced."""
        caller = self._caller(ctx)
        server, uri = self._route(caller, params.uri)
        async with self._relay.forwarding(ctx, caller):
            result = await self._request(server, f"resources/read {uri!r}", lambda client: client.read_resource(uri))
        contents: list[TextResourceContents | BlobResourceContents] = [
            content.model_copy(update={"uri": namespaced_uri(server, content.uri)}) for content in result.contents
        ]
        return ReadResourceResult(contents=contents, _meta=result.meta, ttl_ms=0, cache_scope="private")

    async def complete(self, ctx: ServerRequestContext[Any, Any], params: CompleteRequestParams) -> CompleteResult:
        """``completion/complete`` for a template's argument, on the template's upstream."""
        assert isinstance(params.ref, ResourceTemplateReference)
        caller = self._caller(ctx)
        server, uri = self._route(caller, params.ref.uri)
        ref = ResourceTemplateReference(uri=uri)
        argument = {"name": params.argument.name, "value": params.argument.value}
        context = params.context.arguments if params.context is not None else None
        async with self._relay.forwarding(ctx, caller):
            result: CompleteResult = await self._request(
                server,
                "completion/complete",
                lambda client: client.complete(ref, argument, context),
            )
        return result

    async def subscribe(self, ctx: ServerRequestContext[Any, Any], params: SubscribeRequestParams) -> EmptyResult:
        """``resources/subscribe``: subscribe upstream (once per URI); updates reach this session."""
        caller = self._caller(ctx)
        server, uri = self._route(caller, params.uri)
        await self.subscriptions.subscribe(caller.session_id, ctx.session, params.uri, server, uri)
        return EmptyResult()

    async def unsubscribe(self, ctx: ServerRequestContext[Any, Any], params: UnsubscribeRequestParams) -> EmptyResult:
        """``resources/unsubscribe``: this session stops hearing; the last one unsubscribes upstream."""
        caller = self._caller(ctx)
        self._route(caller, params.uri)
        await self.subscriptions.unsubscribe(caller.session_id, params.uri)
        return EmptyResult()

    def updated(self, server: str, uri: str) -> None:
        """An upstream said `uri` changed: tell the sessions subscribed to it (through their outboxes: never waits)."""
        shown = namespaced_uri(server, uri)
        notification = ResourceUpdatedNotification(params=ResourceUpdatedNotificationParams(uri=shown))
        key = f"{notification.method} {shown}"  # a session that lags hears of each changed resource once
        for session_id, session in self.subscriptions.sessions(shown).items():
            self._outbox.post(session_id, session, key, notification, on_closed=self.subscriptions.forget)

    async def _subscription(self, server: str, uri: str, subscribe: bool) -> None:
        """Send ``resources/subscribe`` (or ``unsubscribe``) for `uri` to `server`."""
        if subscribe:
            request: SubscribeRequest | UnsubscribeRequest = SubscribeRequest(params=SubscribeRequestParams(uri=uri))
        else:
            request = UnsubscribeRequest(params=UnsubscribeRequestParams(uri=uri))
        await self._request(server, f"{request.method} {uri!r}", lambda client: _send(client, request))

    def _route(self, caller: Caller, uri: str) -> tuple[str, str]:
        route = original_uri(uri)
        servers = {status.name for status in self._pool.status()}
        if route is None or route[0] not in servers:
            raise MCPError(
                INVALID_PARAMS,
                f"unknown resource {uri!r}: resources through the toolscout gateway are "
                f"{SCHEME}<server>/<uri>, as resources/list and resources/templates/list show them",
            )
        if not caller.scope.permits_namespace(route[0]):
            raise MCPError(INVALID_PARAMS, f"unknown resource {uri!r}: not in this session's scope")
        return route

    async def _request(self, server: str, what: str, send: Any) -> Any:
        return await forward(self._pool, self._relay, server, what, send)


async def _send(client: Any, request: SubscribeRequest | UnsubscribeRequest) -> EmptyResult:
    """Send a 2025-era subscription request (the SDK's helpers for them are deprecated, not gone)."""
    result: EmptyResult = await client.session.send_request(request, EmptyResult)
    return result


async def _resources_page(client: Any, cursor: str | None) -> tuple[list[Resource], str | None]:
    result = await client.list_resources(cursor=cursor)
    return result.resources, result.next_cursor


async def _templates_page(client: Any, cursor: str | None) -> tuple[list[ResourceTemplate], str | None]:
    result = await client.list_resource_templates(cursor=cursor)
    return result.resource_templates, result.next_cursor
