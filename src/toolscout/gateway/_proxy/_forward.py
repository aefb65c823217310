"""`forward`: one downstream request answered by one upstream, its failure as the client's error."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

from mcp.client import Client
from mcp.shared.exceptions import MCPError
from mcp_types import INTERNAL_ERROR

from .._upstream import Relay, UpstreamError, UpstreamPool

__all__ = ["forward"]

_T = TypeVar("_T")


async def forward(
    pool: UpstreamPool, relay: Relay, server: str, what: str, send: Callable[[Client], Awaitable[_T]]
) -> _T:
    """Run `send` on `server`'s connection as the current downstream request's work.

    Raises:
        MCPError: The upstream answered with an error (its code and message, prefixed with the
            server's name), or it failed otherwise (internal error naming the server and why).
    """
    try:
        upstream = await pool.connection(server)
        async with relay.in_flight(server):
            return await upstream.request(what, send, timeout_s=pool.settings.call_timeout_s)
    except UpstreamError as exc:
        cause = exc.__cause__
        if isinstance(cause, MCPError):
            raise MCPError(cause.code, f"{exc.server}: {cause.message}", cause.error.data) from None
        raise MCPError(INTERNAL_ERROR, str(exc)) from None
