"""Stdin lines for the stdio transport, read without a worker thread.

The SDK reads stdin in a thread, which no cancellation can interrupt: a SIGTERM then waits
until the client writes or closes the pipe. Waiting for readability on the event loop
instead lets a shutdown finish at once, even in the middle of a client's handshake.
"""

from __future__ import annotations

import logging
import os
import stat

import anyio

__all__ = ["StdinLines", "pollable"]

logger = logging.getLogger("toolscout.gateway")

_CHUNK = 1 << 16
_STRAY_WARNINGS = 3
"""Lines that are not MCP messages warned about per run (a client sending garbage does not flood the log)."""


def pollable(fd: int = 0) -> bool:
    """True when `fd` is a pipe, socket or terminal (a regular file cannot be waited on)."""
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or stat.S_ISCHR(mode)


class StdinLines:
    """Async iterator over the text lines of `fd` (newline kept; a last unterminated line too)."""

    def __init__(self, fd: int = 0) -> None:
        self._fd = fd
        self._lines: list[bytes] = []
        self._partial = b""
        self._ended = False
        self._strays = 0

    def __aiter__(self) -> StdinLines:
        return self

    async def __anext__(self) -> str:
        while not self._lines:
            if self._ended:
                raise StopAsyncIteration
            await anyio.wait_readable(self._fd)
            chunk = os.read(self._fd, _CHUNK)
            if not chunk:
                self._ended = True
                if self._partial:
                    self._lines.append(self._partial)
                    self._partial = b""
                continue
            *complete, self._partial = (self._partial + chunk).split(b"\n")
            self._lines.extend(line + b"\n" for line in complete)
        line = self._lines.pop(0)
        if line.strip() and line.lstrip()[:1] not in (b"{", b"[") and self._strays < _STRAY_WARNINGS:
            self._strays += 1
            logger.warning(
                "a stdin line is not an MCP message (JSON-RPC) and is ignored: toolscout serve talks to an MCP client "
                "over stdin; start it from the client's config, or serve a URL with --transport http"
            )
        return line.decode("utf-8", errors="replace")
