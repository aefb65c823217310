"""Type aliases shared across toolscout."""

from __future__ import annotations

from typing import Literal, TypeAlias

JsonObject: TypeAlias = dict[str, object]
"""A decoded JSON object (a tool's JSON Schema, arguments, a result payload)."""

DeferPolicy: TypeAlias = Literal["never", "auto", "always"]
"""Per-tool deferral policy: never deferred, deferred when search is active, or always deferred."""

Transport: TypeAlias = Literal["stdio", "http"]
"""How MCP peers are reached: a child process's stdin/stdout, or Streamable HTTP."""
