"""Upstream failures as the structured `ToolError` results the model gets."""

from __future__ import annotations

from dataclasses import dataclass

from ..._settings import BridgeNames
from ..._texts import Upstream
from ..._types import JsonObject
from ...dispatch import ToolError
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
            message=Upstream.unavailable(server, tool, exc.reason),
            hint=Upstream.UNAVAILABLE_HINT,
            tool=tool,
            details=details,
        )
    elif exc.kind == "timeout":
        error = ToolError(
            code="upstream_timeout",
            message=Upstream.timeout(tool, timeout_s, server),
            hint=Upstream.TIMEOUT_HINT,
            tool=tool,
            details=details,
            tool_ran=True,
        )
    elif exc.kind == "too_large":
        error = ToolError(
            code="upstream_result_too_large",
            message=Upstream.too_large(server, tool, exc.reason),
            hint=Upstream.TOO_LARGE_HINT,
            tool=tool,
            details=details,
            tool_ran=True,
        )
    elif exc.kind == "closed":
        error = ToolError(
            code="upstream_failed",
            message=Upstream.crashed(server, tool),
            hint=Upstream.CRASHED_HINT,
            tool=tool,
            details=details,
            tool_ran=True,
        )
    else:
        error = ToolError(
            code="upstream_failed",
            message=Upstream.invalid(server, tool, exc.reason),
            hint=Upstream.INVALID_HINT,
            tool=tool,
            details=details,
            tool_ran=True,
        )
    return UpstreamFault(error=error, server=server)


def unrouted_fault(tool: str, bridge: BridgeNames) -> UpstreamFault:
    """The error for a tool whose server vanished between resolving and running the call."""
    error = ToolError(
        code="upstream_unavailable",
        message=Upstream.unrouted(tool),
        hint=Upstream.unrouted_hint(bridge),
        tool=tool,
    )
    return UpstreamFault(error=error, server="")
