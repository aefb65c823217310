"""Request bodies on ``/mcp``: their size limit, the ``413`` answer past it, and reading one within it."""

from __future__ import annotations

import json
from collections.abc import Sequence

from mcp_types import INVALID_REQUEST
from starlette.types import Message, Receive, Send

__all__ = ["ENVELOPE_BYTES", "json_error", "read_body", "too_large"]

ENVELOPE_BYTES = 64 * 1024
"""What a request may add around the largest arguments a call may have (``max_argument_bytes``)."""


async def read_body(receive: Receive, limit: int) -> tuple[bytes, Receive] | int | None:
    """Read a whole request body of at most `limit` bytes.

    Returns:
        The body and a `receive` that hands it to the next app; the bytes read so far when the body
        outgrows `limit` (nothing more is read); None when the client disconnected first.
    """
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return None
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            return size
        chunks.append(chunk)
        if not message.get("more_body", False):
            return (body := b"".join(chunks)), _replaying(body, receive)


async def too_large(send: Send, limit: int, size: int, *, declared: bool) -> None:
    """Answer ``413``: the body is (or, not declared, already is past) `size` bytes; the limit is `limit`."""
    what = f"is {size:,} bytes" if declared else f"is over {limit:,} bytes (cut off at {size:,})"
    message = (
        f"The request body {what}; the limit is {limit:,} "
        f"(max_argument_bytes plus {ENVELOPE_BYTES // 1024} KiB for the rest of the message)."
    )
    await json_error(send, 413, message)


async def json_error(send: Send, status: int, message: str, headers: Sequence[tuple[bytes, bytes]] = ()) -> None:
    """Answer `status` with a JSON-RPC error body carrying `message`."""
    body = json.dumps({"jsonrpc": "2.0", "id": None, "error": {"code": INVALID_REQUEST, "message": message}})
    start_headers = [(b"content-type", b"application/json"), *headers]
    await send({"type": "http.response.start", "status": status, "headers": start_headers})
    await send({"type": "http.response.body", "body": body.encode()})


def _replaying(body: bytes, receive: Receive) -> Receive:
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay
