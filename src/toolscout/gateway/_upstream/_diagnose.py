"""Explaining upstream failures: a stdio server's stderr tail, and why a start-up failed."""

from __future__ import annotations

import os
import select
import threading
import time

import httpx2
from mcp.shared.exceptions import MCPError
from mcp_types import CONNECTION_CLOSED

from .._config import HttpServer, ServerConfig

__all__ = ["StderrCapture", "leaf", "start_failure"]

_TAIL_BYTES = 1500
_KEEP_BYTES = 64 * 1024
_DRAIN_WAIT_S = 0.2


class StderrCapture:
    """A pipe a stdio server writes its stderr to; keeps only the last `limit` bytes, to explain failures.

    A daemon thread drains the pipe as the server writes, so the server never blocks on a full
    pipe and a chatty server costs at most `limit` bytes of memory however long it runs.
    """

    def __init__(self, limit: int = _KEEP_BYTES) -> None:
        """Open the pipe and start draining it."""
        read_fd, write_fd = os.pipe()
        self.file = os.fdopen(write_fd, "w", encoding="utf-8", errors="replace")
        """The write end, handed to the server process as its stderr."""
        self._read_fd = read_fd
        self._limit = limit
        self._kept = bytearray()
        self._lock = threading.Lock()
        self._ended = False
        threading.Thread(target=self._drain, name="toolscout-upstream-stderr", daemon=True).start()

    @property
    def held(self) -> int:
        """How many bytes are kept now (at most `limit`)."""
        with self._lock:
            return len(self._kept)

    def tail(self) -> str:
        """The last lines written, joined with `` | `` (empty once closed)."""
        if self.file.closed:
            return ""
        deadline = time.monotonic() + _DRAIN_WAIT_S
        while True:
            with self._lock:  # the drain thread reads under this lock: no bytes are between pipe and `_kept`
                if self._ended or not _readable(self._read_fd) or time.monotonic() >= deadline:
                    data = bytes(self._kept[-_TAIL_BYTES:])
                    break
            time.sleep(0.005)  # let the drain thread take in what the server wrote just before failing
        return " | ".join(line.strip() for line in data.decode("utf-8", "replace").splitlines() if line.strip())

    def close(self) -> None:
        """Close our write end; the drain thread ends when the server's copy closes too."""
        self.file.close()

    def _drain(self) -> None:
        while True:
            _readable(self._read_fd, wait=True)  # wait without the lock; the read below cannot block
            with self._lock:
                chunk = os.read(self._read_fd, 65536)
                if not chunk:  # every write end is closed
                    self._ended = True
                    os.close(self._read_fd)
                    return
                self._kept += chunk
                del self._kept[: -self._limit]


def _readable(fd: int, *, wait: bool = False) -> bool:
    """Whether `fd` has bytes or its end to read; with `wait`, block until it has (poll: no fd-number limit)."""
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    return bool(poller.poll(None if wait else 0))


def start_failure(exc: Exception, config: ServerConfig) -> str:
    """Say why starting or reaching an upstream failed, from the exception it raised."""
    cause = leaf(exc)
    if isinstance(config, HttpServer):
        if isinstance(cause, httpx2.HTTPError):
            return f"cannot reach {config.url}: {cause}"
        return f"handshake with {config.url} failed: {cause}"
    if isinstance(cause, OSError) and not isinstance(cause, TimeoutError):
        if config.cwd is not None and not config.cwd.is_dir():
            return f"cannot start {config.command!r}: its cwd {str(config.cwd)!r} is not a folder"
        return f"cannot start {config.command!r}: {cause.strerror or cause}"
    if isinstance(cause, MCPError) and cause.code == CONNECTION_CLOSED:
        return "the server exited during start-up"
    return f"start-up failed: {cause}"


def leaf(exc: BaseException) -> BaseException:
    """The first real exception inside (possibly nested) exception groups."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc
