"""Every upstream's prompts, namespaced like tools (``server__prompt``), and their completions.

A prompt ``p`` of server ``S`` is shown as ``S`` + separator + ``p`` (the tools' separator,
``__`` by default) and is in a caller's scope exactly when a tool of that name in ``S``'s
namespace would be. ``prompts/get`` and ``completion/complete`` (a prompt argument) go to the
server the name starts with (the longest server name when several would match).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types import (
    INVALID_PARAMS,
    CompleteRequestParams,
    CompleteResult,
    GetPromptRequestParams,
    GetPromptResult,
    ListPromptsResult,
    PaginatedRequestParams,
    Prompt,
    PromptReference,
)

from .._sessions import Caller
from .._upstream import Relay, UpstreamPool
from ._forward import forward
from ._listings import gather, offering, page
from ._resources import namespaced_blocks

__all__ = ["PromptProxy"]


class PromptProxy:
    """The ``prompts/*`` handlers of the gateway, and prompt-argument completion."""

    def __init__(
        self, pool: UpstreamPool, relay: Relay, *, caller: Callable[[ServerRequestContext[Any, Any]], Caller]
    ) -> None:
        """Serve `pool`'s prompts; `caller(ctx)` gives a request's `Caller`."""
        self._pool = pool
        self._relay = relay
        self._caller = caller
        self._separator = pool.settings.separator

    async def list_prompts(
        self, ctx: ServerRequestContext[Any, Any], params: PaginatedRequestParams | None
    ) -> ListPromptsResult:
        """``prompts/list``: every upstream's prompts in scope, namespaced, in pages."""
        scope = self._caller(ctx).scope
        servers = offering(self._pool, self._server_names(), lambda c: c.prompts is not None)
        found = await gather(self._pool, servers, "prompts/list", _prompts_page)
        visible = [
            (server, prompt)
            for server, prompt in found
            if scope.permits_name(server, f"{server}{self._separator}{prompt.name}")
        ]
        entries, following = page(visible, params.cursor if params else None)  # only the page is namespaced
        prompts = [
            prompt.model_copy(update={"name": f"{server}{self._separator}{prompt.name}"}) for server, prompt in entries
        ]
        return ListPromptsResult(prompts=prompts, next_cursor=following, ttl_ms=0, cache_scope="private")

    async def get(self, ctx: ServerRequestContext[Any, Any], params: GetPromptRequestParams) -> GetPromptResult:
        """``prompts/get``: the prompt from its upstream, with the client's arguments."""
        caller = self._caller(ctx)
        server, name = self._route(caller, params.name)
        arguments = params.arguments
        async with self._relay.forwarding(ctx, caller):
            result = await forward(
                self._pool, self._relay, server, f"prompt {name!r}", lambda client: client.get_prompt(name, arguments)
            )
        messages = [
            message.model_copy(update={"content": namespaced_blocks(server, [message.content])[0]})
            for message in result.messages
        ]
        return result.model_copy(update={"messages": messages})

    async def complete(self, ctx: ServerRequestContext[Any, Any], params: CompleteRequestParams) -> CompleteResult:
        """``completion/complete`` for a prompt's argument, on the prompt's upstream."""
        assert isinstance(params.ref, PromptReference)
        caller = self._caller(ctx)
        server, name = self._route(caller, params.ref.name)
        ref = PromptReference(name=name)
        argument = {"name": params.argument.name, "value": params.argument.value}
        context = params.context.arguments if params.context is not None else None
        async with self._relay.forwarding(ctx, caller):
            return await forward(
                self._pool,
                self._relay,
                server,
                "completion/complete",
                lambda client: client.complete(ref, argument, context),
            )

    def _server_names(self) -> list[str]:
        return [status.name for status in self._pool.status()]

    def _route(self, caller: Caller, shown: str) -> tuple[str, str]:
        for server in sorted(self._server_names(), key=len, reverse=True):
            prefix = f"{server}{self._separator}"
            if shown.startswith(prefix) and len(shown) > len(prefix):
                if not caller.scope.permits_name(server, shown):
                    break
                return server, shown[len(prefix) :]
        raise MCPError(INVALID_PARAMS, f"unknown prompt {shown!r}: use a name as prompts/list shows it")


async def _prompts_page(client: Any, cursor: str | None) -> tuple[list[Prompt], str | None]:
    result = await client.list_prompts(cursor=cursor)
    return result.prompts, result.next_cursor
