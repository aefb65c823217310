"""Request bodies on ``/mcp``: their size limit, the answer past it, and reading one within it.

A body declared past the limit (``max_argument_bytes`` plus `ENVELOPE_BYTES`) but within `HARD_CAP_FACTOR`
times it is read and parsed: a tool call whose arguments are over ``max_argument_bytes`` is answered with the
tool error the model gets over stdio (which it can read and retry); any other such body, and every body past
the hard cap, is answered ``413`` before anything reads it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import anyio.to_thread
from mcp_types import INVALID_REQUEST, CallToolResult, TextContent
from starlette.types import Message, Receive, Send

from ..._settings import ScoutSettings
from ..._texts import Dispatch
from ...dispatch import ToolError

__all__ = ["ENVELOPE_BYTES", "body_limit", "json_error", "read_body", "refuse_oversized", "too_large"]

ENVELOPE_BYTES = 64 * 1024
"""What a request may add around the largest arguments a call may have (``max_argument_bytes``)."""
HARD_CAP_FACTOR = 4
"""A body up to this many times the limit is read to tell a tool call with too-large arguments from other bodies."""
_ARGUMENTS = "arguments payload (in bytes)"


def body_limit(settings: ScoutSettings) -> int:
    """The largest body a valid request may have."""
    return settings.max_argument_bytes + ENVELOPE_BYTES


async def refuse_oversized(receive: Receive, send: Send, settings: ScoutSettings, declared: int) -> None:
    """Answer a body declared `declared` bytes long, past `body_limit`: a tool error for a tool call, else ``413``."""
    limit = body_limit(settings)
    if declared <= limit * HARD_CAP_FACTOR:
        read = await read_body(receive, declared)
        if read is None:  # the client is gone
            return
        if not isinstance(read, int):
            answer = await anyio.to_thread.run_sync(_tool_error_answer, read[0], settings)
            if answer is not None:
                await _send_json(send, 200, answer)
                return
    await too_large(send, limit, declared, declared=True)


def _tool_error_answer(body: bytes, settings: ScoutSettings) -> bytes | None:
    """The JSON-RPC answer to a tool call whose arguments are over the limit; None for any other body."""
    try:
        request = json.loads(body)
    except (ValueError, RecursionError):
        return None
    if not isinstance(request, dict) or request.get("method") != "tools/call":
        return None
    request_id, params = request.get("id"), request.get("params")
    if isinstance(request_id, bool) or not isinstance(request_id, str | int) or not isinstance(params, dict):
        return None
    name = params.get("name")
    if not isinstance(name, str) or len(name) > settings.max_name_chars:
        return None
    size = len(json.dumps(params.get("arguments"), ensure_ascii=False).encode())
    if size <= settings.max_argument_bytes:
        return None
    limit = settings.max_argument_bytes
    error = ToolError(
        code="invalid_request",
        message=Dispatch.too_long(_ARGUMENTS, size, limit),
        hint=Dispatch.SHORTER,
        tool=name,
        details={"limit": limit},
    )
    result = CallToolResult(content=[TextContent(type="text", text=error.to_text())], is_error=True)
    answer = {"jsonrpc": "2.0", "id": request_id, "result": result.model_dump(by_alias=True, exclude_none=True)}
    return json.dumps(answer).encode()


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
    await _send_json(send, status, body.encode(), headers)


async def _send_json(send: Send, status: int, body: bytes, headers: Sequence[tuple[bytes, bytes]] = ()) -> None:
    start_headers = [(b"content-type", b"application/json"), *headers]
    await send({"type": "http.response.start", "status": status, "headers": start_headers})
    await send({"type": "http.response.body", "body": body})


def _replaying(body: bytes, receive: Receive) -> Receive:
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay
