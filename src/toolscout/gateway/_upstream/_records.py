"""What talking to an upstream produces: tool listings, left-out tools, and errors."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypeAlias

from ..._errors import ToolscoutError
from ..._redact import redact
from ...catalog import ToolSpec

__all__ = [
    "DEFAULT_LIMITS",
    "ToolListing",
    "ToolProblem",
    "UpstreamError",
    "UpstreamFailure",
    "UpstreamLimits",
    "UpstreamTool",
]

UpstreamFailure: TypeAlias = Literal["start", "timeout", "closed", "too_large", "protocol"]
"""`start`: could not start or finish the handshake; `timeout`: no answer in time; `closed`: the
connection is gone (the server exited); `too_large`: the server sent a message over
``upstream_max_message_bytes`` (the connection is gone too: the server is restarted); `protocol`: the
server answered with an error or garbage."""


class UpstreamError(ToolscoutError):
    """An upstream server could not be started, or a request to it failed.

    Its message and stderr are redacted (`toolscout._redact.redact`): every report of an upstream
    failure (``/healthz``, the page, the model's error, the log) starts here.

    Attributes:
        server: The upstream's name.
        kind: What went wrong (see `UpstreamFailure`).
        reason: The message without the server's name or stderr.
        stderr: The end of a stdio server's stderr, when it helps explain the failure.
    """

    def __init__(self, message: str, *, server: str, kind: UpstreamFailure, stderr: str = "") -> None:
        self.server = server
        self.kind: UpstreamFailure = kind
        message, stderr = redact(message), redact(stderr)
        self.reason = message
        self.stderr = stderr
        super().__init__(f"upstream {server!r}: {message}{f'; its stderr ends with: {stderr}' if stderr else ''}")


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolProblem:
    """An upstream tool left out of the catalog, and why."""

    server: str
    """The upstream server's name."""
    tool: str | None
    """The tool's name, or None when it has no readable name."""
    message: str
    """What is wrong with it."""

    def __str__(self) -> str:
        return f"{self.server}: tool {self.tool or '(unnamed)'}: {self.message}"


@dataclass(frozen=True, slots=True, kw_only=True)
class UpstreamTool:
    """A tool as the gateway presents it, with the name to call it by upstream."""

    spec: ToolSpec
    """The namespaced record (``server__tool``, namespace = server)."""
    upstream_name: str
    """The tool's own name on its server, for routing calls."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolListing:
    """Everything one upstream offers, after repair."""

    server: str
    """The upstream's name."""
    tools: tuple[UpstreamTool, ...]
    """Usable tools, in the server's order."""
    repaired: tuple[str, ...] = ()
    """Upstream names of tools whose input schema was normalized (see `toolscout.gateway._upstream._lenient`)."""
    problems: tuple[ToolProblem, ...] = ()
    """Tools left out, by name where they have one."""
    complete: bool = True
    """False when the server's pages never ended (a cursor came back): the tools read so far are kept."""


@dataclass(frozen=True, slots=True, kw_only=True)
class UpstreamLimits:
    """What one upstream may list and send (the ``toolscout.upstream_max_*`` settings)."""

    max_tools: int = 5_000
    """Tools kept from its listing; the rest are left out."""
    max_resources: int = 10_000
    """Resources, and resource templates, kept from its listings; the rest are left out."""
    max_prompts: int = 1_000
    """Prompts kept from its listing; the rest are left out."""
    max_description_chars: int = 10_000
    """A longer tool description is cut to this many characters."""
    max_schema_bytes: int = 100_000
    """A tool whose input or output schema is larger (as JSON) is left out."""
    max_message_bytes: int = 16 << 20
    """A larger message is refused: only the request it answers fails."""


DEFAULT_LIMITS = UpstreamLimits()
"""The limits of the settings' defaults."""
