"""`bounded_stdio_client`: the stdio transport to an upstream, with every message's size capped.

The `mcp` SDK's stdio client splits the server's output into lines by concatenating text chunks,
which costs time quadratic in a line's length (a 60 MB result kept a core busy for 18 s, 200 MB
for minutes after its call had timed out), and it reads any line whole. This transport reads bytes,
splits lines in linear time, and stops keeping a line the moment it outgrows `max_message_bytes`:
it reads that line to its end, keeping only its first and last few KiB, and drops it. An answer
so dropped is answered for the server, to the one request it answered, with an error that names
the limit (its id is read from those ends: servers write ``jsonrpc`` and ``id`` before the result
or after it); a dropped message that answers no request is only logged. The server and every other
call in flight on it carry on: a large answer is its caller's problem, never a crash. Large lines
are parsed in a worker thread, so the event loop keeps serving other clients meanwhile.

Process start-up and shutdown follow the SDK's (its own process group; at the end, stdin closed,
a grace period, then SIGTERM and SIGKILL to the group). On Windows the SDK's client is used as is.
"""

from __future__ import annotations

import json
import logging
import os
import re
import signal
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass
from typing import TextIO

import anyio
import anyio.abc
import anyio.streams.memory
import anyio.to_thread
import mcp_types as types
from mcp.client import Transport
from mcp.client.stdio import StdioServerParameters, get_default_environment, stdio_client
from mcp.shared.message import SessionMessage
from mcp_types import INTERNAL_ERROR

from ._bounded_http import OVERSIZE_MARK

_Streams = tuple[
    anyio.streams.memory.MemoryObjectReceiveStream[SessionMessage | Exception],
    anyio.streams.memory.MemoryObjectSendStream[SessionMessage],
]

__all__ = ["bounded_stdio_client"]

logger = logging.getLogger("toolscout.gateway")

_PARSE_IN_THREAD_BYTES = 256 << 10  # lines this long are parsed off the event loop
_EXIT_GRACE_S = 2.0  # after stdin closes, before SIGTERM
_KILL_GRACE_S = 2.0  # after SIGTERM, before SIGKILL
_FLUSH_S = 0.5  # for the writer to send what it accepted before stdin closes


_HEAD_BYTES = 4 << 10  # kept of a dropped line's start, where its id and the key of its result are
_TAIL_BYTES = 512  # kept of its end, where the TypeScript SDK writes the id (a short tail keeps the search cheap)


@dataclass(slots=True)
class _Dropped:
    """A line over the limit, read to its end: its size and its two ends."""

    head: bytes
    tail: bytes
    size: int = 0

    def refusal(self, limit: int) -> SessionMessage | None:
        """The error answering the request this line answered; None when it answers none."""
        members, big = _head_members(self.head)
        if big not in ("result", "error"):
            return None  # a request or notification of the server's: no caller waits for it
        request = members.get("id", _tail_members(self.tail).get("id"))
        if isinstance(request, bool) or not isinstance(request, int | str):
            return None
        message = f"{OVERSIZE_MARK} the server sent an answer of {self.size:,} bytes; the limit is {limit:,}"
        error = types.JSONRPCError(
            jsonrpc="2.0", id=request, error=types.ErrorData(code=INTERNAL_ERROR, message=message)
        )
        return SessionMessage(error)


_STRING = rb'"(?:[^"\\]|\\.)*"'
_SCALAR = rb"(?:" + _STRING + rb"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)"
_HEAD_MEMBER = re.compile(rb"\s*(" + _STRING + rb")\s*:\s*(?:(" + _SCALAR + rb")\s*,|([{\[]))")
_TAIL_MEMBERS = re.compile(rb'(?:,\s*"[^"\\]*"\s*:\s*' + _SCALAR + rb"\s*)+\}\s*$")
_TAIL_MEMBER = re.compile(rb'"([^"\\]*)"\s*:\s*(' + _SCALAR + rb")")


def _head_members(head: bytes) -> tuple[dict[str, object], str | None]:
    """The top-level scalar members a JSON object starts with, and the key of its first object or array."""
    members: dict[str, object] = {}
    opening = re.match(rb"\s*\{", head)
    position = opening.end() if opening else len(head)
    while match := _HEAD_MEMBER.match(head, position):
        key = _scalar(match[1])
        if match[3]:
            return members, key if isinstance(key, str) else None
        if isinstance(key, str):
            members[key] = _scalar(match[2])
        position = match.end()
    return members, None


def _tail_members(tail: bytes) -> dict[str, object]:
    """The top-level scalar members a JSON object ends with (plain keys and strings only)."""
    found = _TAIL_MEMBERS.search(tail)
    if found is None:
        return {}
    return {match[1].decode(errors="replace"): _scalar(match[2]) for match in _TAIL_MEMBER.finditer(found[0])}


def _scalar(raw: bytes) -> object:
    """One JSON scalar; None when it is not valid JSON after all (an invalid escape)."""
    try:
        return json.loads(raw)
    except ValueError:
        return None


class _Lines:
    """Splits a byte stream into lines in linear time; a line over `limit` bytes comes out as `_Dropped`."""

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._parts: list[bytes] = []
        self._size = 0
        self._dropped: _Dropped | None = None  # the line being read past the limit

    def feed(self, chunk: bytes) -> list[bytes | _Dropped]:
        """The lines `chunk` completes (without their newline)."""
        lines: list[bytes | _Dropped] = []
        start = 0
        while (end := chunk.find(b"\n", start)) >= 0:
            self._add(chunk[start:end])
            lines.append(self._take())
            start = end + 1
        self._add(chunk[start:])
        return lines

    def _add(self, piece: bytes) -> None:
        if not piece:
            return
        self._size += len(piece)
        if self._dropped is not None:
            self._dropped.tail = (self._dropped.tail + piece)[-_TAIL_BYTES:]
        elif self._size > self._limit:
            self._parts.append(piece)
            line = b"".join(self._parts)  # once a line: what was kept is at most the limit
            self._dropped = _Dropped(head=line[:_HEAD_BYTES], tail=line[-_TAIL_BYTES:])
            self._parts = []
        else:
            self._parts.append(piece)

    def _take(self) -> bytes | _Dropped:
        dropped, parts, size = self._dropped, self._parts, self._size
        self._dropped, self._parts, self._size = None, [], 0
        if dropped is not None:
            dropped.size = size
            return dropped
        return parts[0] if len(parts) == 1 else b"".join(parts)


def _parse(line: bytes) -> SessionMessage | Exception:
    """One line as a JSON-RPC message; a parse error is returned for the session to surface."""
    try:
        return SessionMessage(types.jsonrpc_message_adapter.validate_json(line, by_name=False))
    except ValueError as exc:
        logger.warning("an upstream wrote a line that is not a JSON-RPC message: %s", exc)
        return exc


def bounded_stdio_client(
    server: StdioServerParameters, *, errlog: TextIO, max_message_bytes: int, on_oversize: Callable[[int], None]
) -> Transport:
    """A stdio transport to `server` that refuses any message over `max_message_bytes` (see the module docs).

    Args:
        server: How to start the server.
        errlog: Where its stderr goes.
        max_message_bytes: The longest line (one JSON-RPC message) read from its stdout.
        on_oversize: Called with the size of each line over the limit (dropped; the request it
            answered gets an error naming the limit); must not raise.
    """
    if sys.platform == "win32":  # pragma: no cover - the SDK's process handling is Windows-aware
        return stdio_client(server, errlog=errlog)
    return _bounded(server, errlog, max_message_bytes, on_oversize)


@asynccontextmanager
async def _bounded(
    server: StdioServerParameters, errlog: TextIO, limit: int, on_oversize: Callable[[int], None]
) -> AsyncIterator[_Streams]:
    process = await anyio.open_process(
        [server.command, *server.args],
        env=get_default_environment() | (server.env or {}),
        stderr=errlog,
        cwd=server.cwd,
        start_new_session=True,
    )
    # No await between the spawn and the task group, or a cancellation could leak the process.
    to_session, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, from_session = anyio.create_memory_object_stream[SessionMessage](0)
    writer_done = anyio.Event()
    assert process.stdin is not None and process.stdout is not None
    stdin, stdout = process.stdin, process.stdout

    async def read() -> None:
        lines = _Lines(limit)
        try:
            async with to_session:  # closing it ends the session's stream: calls in flight fail at once
                async for chunk in stdout:
                    for line in lines.feed(chunk):
                        if isinstance(line, _Dropped):
                            on_oversize(line.size)
                            refusal = line.refusal(limit)
                            if refusal is None:
                                continue
                            message: SessionMessage | Exception = refusal
                        elif not line.strip():
                            continue
                        elif len(line) > _PARSE_IN_THREAD_BYTES:
                            message = await anyio.to_thread.run_sync(_parse, line)
                        else:
                            message = _parse(line)
                        await to_session.send(message)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, ConnectionError, OSError):
            pass  # shutdown closed a stream under the read, or the server's pipe broke: the session sees the end
        finally:
            await _drain(stdout)

    async def write() -> None:
        try:
            async with from_session:
                async for item in from_session:
                    line = item.message.model_dump_json(by_alias=True, exclude_unset=True) + "\n"
                    await stdin.send(line.encode(server.encoding, errors=server.encoding_error_handler))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            await to_session.aclose()  # the server stopped reading: end the session's stream too
        finally:
            writer_done.set()

    async with anyio.create_task_group() as group:
        group.start_soon(read)
        group.start_soon(write)
        try:
            yield read_stream, write_stream
        finally:
            with anyio.CancelScope(shield=True):  # every wait below is bounded
                read_stream.close()
                write_stream.close()
                with anyio.move_on_after(_FLUSH_S):
                    await writer_done.wait()
                await _stop(process)
                for stream in (read_stream, write_stream, to_session, from_session):
                    await stream.aclose()
            group.cancel_scope.cancel()


async def _drain(stdout: anyio.abc.ByteReceiveStream) -> None:
    """Discard what the server still writes, so a server blocked on a full pipe can exit."""
    with (
        anyio.CancelScope(shield=True),
        suppress(anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError, ConnectionError, OSError),
    ):
        while True:
            await stdout.receive()


def _kill_group(process: anyio.abc.Process) -> None:
    with suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)


async def _stop(process: anyio.abc.Process) -> None:
    """Close stdin, give the server a grace period to exit, then SIGTERM and SIGKILL its group."""
    assert process.stdin is not None and process.stdout is not None
    with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
        await process.stdin.aclose()
    if not await _exited(process, _EXIT_GRACE_S):
        with suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGTERM)
        if not await _exited(process, _KILL_GRACE_S):
            _kill_group(process)
            if not await _exited(process, _KILL_GRACE_S):
                logger.warning("upstream process %d is still alive after SIGKILL; abandoning it", process.pid)
    with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
        await process.stdout.aclose()
    if process.returncode is not None:
        with anyio.move_on_after(_KILL_GRACE_S), suppress(OSError):
            await process.aclose()  # releases the subprocess transport; bounded, as a child may hold a pipe


async def _exited(process: anyio.abc.Process, timeout_s: float) -> bool:
    """Whether the process exited within `timeout_s` (polled: `wait()` would also wait for its pipes)."""
    with anyio.move_on_after(timeout_s):
        while process.returncode is None:
            await anyio.sleep(0.01)
        return True
    return False
