"""Upstream failures as the structured `ToolError` results the model gets."""

from __future__ import annotations

from dataclasses import dataclass

from .._types import JsonObject
from ..dispatch._errors import ToolError
from ._records import UpstreamError

__all__ = ["UpstreamFault", "unrouted_fault", "upstream_fault"]


@dataclass(frozen=True, slots=True, kw_only=True)
class UpstreamFault:
    """What the gateway's executor returns instead of a result when the upstream failed."""

    error: ToolError
    """The error for the model."""
    server: str
    """The upstream that failed."""


def upstream_fault(exc: UpstreamError, *, tool: str, timeout_s: float) -> UpstreamFault:
    """The model-facing error for an `UpstreamError` raised while calling `tool`.

    The message never carries the server's stderr (it may hold anything); logs do.
    """
    server = exc.server
    details: JsonObject = {"server": server}
    if exc.kind == "start":
        error = ToolError(
            code="upstream_unavailable",
            message=f"The MCP server {server!r} that provides {tool} is not available: {exc.reason}.",
            hint="The tool was not run. Try again in a little while or use another tool; "
            "tell the user if the server stays unavailable.",
            tool=tool,
            details=details,
        )
    elif exc.kind == "timeout":
        error = ToolError(
            code="upstream_timeout",
            message=f"{tool} did not answer within {timeout_s:g} s (MCP server {server!r}).",
            hint="The tool may still have run: check its effect before calling it again. "
            "If the server keeps hanging, tell the user.",
            tool=tool,
            details=details,
            tool_ran=True,
        )
    elif exc.kind == "closed":
        error = ToolError(
            code="upstream_failed",
            message=f"The MCP server {server!r} crashed or exited during the call to {tool}; "
            "the gateway is restarting it.",
            hint="The tool may have partly run: check its effect, then call it again (the server comes back "
            "by itself). If it crashes again, do not retry; tell the user.",
            tool=tool,
            details=details,
            tool_ran=True,
        )
    else:
        error = ToolError(
            code="upstream_failed",
            message=f"The MCP server {server!r} gave an invalid answer to {tool}: {exc.reason}.",
            hint="The tool may have run. Do not repeat the same call; try another tool or tell the user "
            "the server is misbehaving.",
            tool=tool,
            details=details,
            tool_ran=True,
        )
    return UpstreamFault(error=error, server=server)


def unrouted_fault(tool: str) -> UpstreamFault:
    """The error for a tool whose server vanished between resolving and running the call."""
    error = ToolError(
        code="upstream_unavailable",
        message=f"{tool} is no longer offered by any connected MCP server.",
        hint="The tool was not run. Search again with tool_search; the server's tool list may have changed.",
        tool=tool,
    )
    return UpstreamFault(error=error, server="")
