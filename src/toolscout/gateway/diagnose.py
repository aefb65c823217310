"""Explaining upstream failures: a stdio server's stderr tail, and why a start-up failed."""

from __future__ import annotations

import os
import tempfile

import httpx2
from mcp.shared.exceptions import MCPError
from mcp_types import CONNECTION_CLOSED

from .config import HttpServer, ServerConfig

__all__ = ["StderrCapture", "leaf", "start_failure"]

_TAIL_BYTES = 1500


class StderrCapture:
    """A temporary file a stdio server writes its stderr to, read back to explain failures."""

    def __init__(self) -> None:
        """Create the (anonymous, deleted-on-close) file."""
        self.file = tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")

    def tail(self) -> str:
        """The last lines written, joined with `` | `` (empty once closed)."""
        if self.file.closed:
            return ""
        fd = self.file.fileno()
        size = os.fstat(fd).st_size
        # pread leaves the offset the child process shares with us untouched.
        data = os.pread(fd, _TAIL_BYTES, max(0, size - _TAIL_BYTES))
        return " | ".join(line.strip() for line in data.decode("utf-8", "replace").splitlines() if line.strip())

    def close(self) -> None:
        """Close (and so delete) the file."""
        self.file.close()


def start_failure(exc: Exception, config: ServerConfig) -> str:
    """Say why starting or reaching an upstream failed, from the exception it raised."""
    cause = leaf(exc)
    if isinstance(config, HttpServer):
        if isinstance(cause, httpx2.HTTPError):
            return f"cannot reach {config.url}: {cause}"
        return f"handshake with {config.url} failed: {cause}"
    if isinstance(cause, OSError) and not isinstance(cause, TimeoutError):
        return f"cannot start {config.command!r}: {cause.strerror or cause}"
    if isinstance(cause, MCPError) and cause.code == CONNECTION_CLOSED:
        return "the server exited during start-up"
    return f"start-up failed: {cause}"


def leaf(exc: BaseException) -> BaseException:
    """The first real exception inside (possibly nested) exception groups."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc
