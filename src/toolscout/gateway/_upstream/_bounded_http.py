"""`BoundedTransport`: the HTTP transport under a Streamable HTTP upstream, with every message's size capped.

The `mcp` SDK reads a JSON answer whole (``response.aread()``, no limit) and cuts an SSE event at its
own 1 MiB whatever the gateway allows. This transport counts an answer's bytes while they stream and
refuses it the moment it outgrows `max_message_bytes`: a JSON body as a whole (at once when its
``Content-Length`` says so), an event stream per event (the bytes since the last blank line, so a
long-lived stream of small events is never cut). The refusal is an exception the SDK turns into an
error for the one request that answer belonged to, and the response is closed unread: the connection
to the server stays usable (each request has its own answer). Its message carries `OVERSIZE_MARK`,
by which `Upstream` tells it from other errors. Answers are asked for uncompressed, so what is
counted is what would be parsed.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

import httpx2

__all__ = ["OVERSIZE_MARK", "BoundedTransport"]

OVERSIZE_MARK = "[toolscout: message over upstream_max_message_bytes]"
"""Carried by the error of an answer refused for its size (the SDK passes the exception's text on)."""

_EVENT_ENDS = (b"\n\n", b"\r\n\r\n", b"\r\r")


class _JsonTooLarge(httpx2.StreamError):
    """A JSON answer over the limit (a `StreamError`: the SDK answers the request with its text)."""


class _EventTooLarge(httpx2.SSEError):
    """An SSE event over the limit (an `SSEError`: the SDK fails the request with its text)."""


def _message(size: int, limit: int) -> str:
    return f"{OVERSIZE_MARK} the server sent a message of over {size:,} bytes; the limit is {limit:,}"


class BoundedTransport(httpx2.AsyncBaseTransport):
    """Wraps `inner`; every answer's messages are refused past `limit` bytes (see the module docs).

    `on_oversize` is called with the size reached when an answer is refused; it must not raise.
    """

    def __init__(self, inner: httpx2.AsyncBaseTransport, limit: int, on_oversize: Callable[[int], None]) -> None:
        self._inner = inner
        self._limit = limit
        self._on_oversize = on_oversize

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        """Send `request`; its response's body is counted as it is read."""
        request.headers["accept-encoding"] = "identity"
        response = await self._inner.handle_async_request(request)
        kind = response.headers.get("content-type", "").lower()
        declared = response.headers.get("content-length", "")
        assert isinstance(response.stream, httpx2.AsyncByteStream)
        counted = _EventsCounted if kind.startswith("text/event-stream") else _BodyCounted
        stream = counted(response.stream, self._limit, self._on_oversize)
        if counted is _BodyCounted and declared.isdigit() and int(declared) > self._limit:
            stream.refuse(int(declared))  # raised where the body is read, the one place the SDK expects it
        return httpx2.Response(
            status_code=response.status_code,
            headers=response.headers,
            stream=stream,
            extensions=response.extensions,
            request=request,
        )

    async def aclose(self) -> None:
        """Close the wrapped transport."""
        await self._inner.aclose()


class _BodyCounted(httpx2.AsyncByteStream):
    """A body refused (`_JsonTooLarge`) once its bytes pass the limit."""

    def __init__(self, stream: httpx2.AsyncByteStream, limit: int, on_oversize: Callable[[int], None]) -> None:
        self._stream = stream
        self._limit = limit
        self._on_oversize = on_oversize

        self._declared: int | None = None

    def refuse(self, declared: int) -> None:
        """Refuse the body unread: its ``Content-Length`` (`declared`) is over the limit."""
        self._declared = declared

    async def __aiter__(self) -> AsyncIterator[bytes]:
        if self._declared is not None:
            self._on_oversize(self._declared)
            raise _JsonTooLarge(_message(self._declared, self._limit))
        size = 0
        async for chunk in self._stream:
            size += len(chunk)
            if size > self._limit:
                self._on_oversize(size)
                raise _JsonTooLarge(_message(size, self._limit))
            yield chunk

    async def aclose(self) -> None:
        await self._stream.aclose()


class _EventsCounted(_BodyCounted):
    """An event stream refused (`_EventTooLarge`) once one event's bytes pass the limit."""

    async def __aiter__(self) -> AsyncIterator[bytes]:
        size = 0  # bytes since the last event ended
        tail = b""  # the last bytes of the previous chunk: an event's end may straddle two chunks
        async for chunk in self._stream:
            window = tail + chunk
            end = max(window.rfind(mark) + len(mark) if mark in window else -1 for mark in _EVENT_ENDS)
            size = len(window) - end if end >= 0 else size + len(chunk)
            if size > self._limit:
                self._on_oversize(size)
                raise _EventTooLarge(_message(size, self._limit))
            tail = window[-3:]
            yield chunk
