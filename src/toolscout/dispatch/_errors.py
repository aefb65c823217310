"""`ToolError`: the structured refusal the model gets instead of an exception."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Literal, TypeAlias

from .._types import JsonObject

__all__ = ["ErrorCode", "ToolError"]

ErrorCode: TypeAlias = Literal[
    "invalid_request",
    "unknown_tool",
    "bridge_recursion",
    "call_directly",
    "invalid_arguments_json",
    "arguments_not_object",
    "invalid_arguments",
    "search_failed",
    "refused",
    "not_executable",
    "tool_failed",
    "upstream_unavailable",
    "upstream_timeout",
    "upstream_failed",
    "upstream_result_too_large",
    "output_not_found",
    "output_expired",
    "query_failed",
    "busy",
    "reveal_unreachable",
]
"""Stable error codes. The model and host code can branch on them; messages may change.
The ``upstream_*`` codes come from the MCP gateway: the server is down or restarting (the tool
did not run), did not answer in time, crashed or answered garbage during the call, or answered with more
than ``upstream_max_message_bytes``.
The ``output_*`` and ``query_failed`` codes come from the offload tools: an unknown (or another
session's) handle, an output evicted to respect the session's size cap, a bad regex or jq query.
``busy``: a shared resource (e.g. the jq workers) stayed saturated; the call did not run, retry it.
``reveal_unreachable``: reveal style where the host can never offer or run a found tool (a LangChain agent whose
model was bound to its tools once, or whose tool executor holds one turn's tools); the search did not run."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolError:
    """A failure reported to the model as a result, never raised.

    The JSON form is ``{"error": {"code", "message", "hint", ...}, "tool_not_run": true}``.
    """

    code: ErrorCode
    """Stable machine-readable code."""
    message: str
    """What went wrong, in one or two sentences."""
    hint: str
    """What the model should do next."""
    tool: str | None = None
    """The tool the call was meant for, when known."""
    candidates: tuple[str, ...] = ()
    """Close tool names to try instead."""
    details: JsonObject = field(default_factory=dict)
    """Extra structured facts (e.g. the failing argument path, the tool's schema)."""
    tool_ran: bool = False
    """True only when the tool itself ran and failed (`tool_failed`)."""

    def to_json(self) -> JsonObject:
        """The JSON object sent to the model."""
        error: JsonObject = {"code": self.code, "message": self.message, "hint": self.hint}
        if self.tool is not None:
            error["tool"] = self.tool
        if self.candidates:
            error["candidates"] = list(self.candidates)
        error.update(self.details)
        return {"error": error, "tool_not_run": not self.tool_ran}

    def to_text(self) -> str:
        """The JSON text sent to the model."""
        return json.dumps(self.to_json(), ensure_ascii=False)
