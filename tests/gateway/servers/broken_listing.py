"""A real MCP server whose tools/list answer is broken the way some published servers' are.

Its tools are fine, but a middleware rewrites the wire answer: ``echo`` loses
``"type": "object"`` (as every tool of server-gitlab 2025.4.25 does), and two truly
malformed tools are added: ``broken`` (a string schema) and one without a name.

    python broken_listing.py                  # stdio
    python broken_listing.py --http TOKEN     # Streamable HTTP on a free loopback port; prints the URL
"""

from __future__ import annotations

import os
import socket
import sys
from typing import Any

import anyio
from mcp.server import MCPServer


async def break_listing(ctx: Any, call_next: Any) -> Any:
    result = await call_next(ctx)
    if ctx.method != "tools/list":
        return result
    for tool in result["tools"]:
        if tool["name"] == "echo":
            tool["inputSchema"].pop("type")
    result["tools"].append({"name": "broken", "description": "Schema is a string.", "inputSchema": {"type": "string"}})
    result["tools"].append({"description": "Has no name.", "inputSchema": {"type": "object"}})
    return result


server = MCPServer("broken-listing", middleware=[break_listing])


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@server.tool()
def echo(text: str) -> str:
    """Return the text unchanged."""
    return text


@server.tool()
async def hang() -> str:
    """Never answer (for timeout tests)."""
    await anyio.Event().wait()
    return "unreachable"


@server.tool()
def crash() -> str:
    """Exit the server process at once, mid-call."""
    os._exit(3)


async def serve_http(token: str) -> None:
    import uvicorn

    app = server.streamable_http_app()

    async def require_token(scope: Any, receive: Any, send: Any) -> None:
        headers = dict(scope.get("headers") or [])
        if scope["type"] == "http" and headers.get(b"authorization") != f"Bearer {token}".encode():
            await send({"type": "http.response.start", "status": 401, "headers": []})
            await send({"type": "http.response.body", "body": b""})
            return
        await app(scope, receive, send)

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    print(f"http://127.0.0.1:{sock.getsockname()[1]}/mcp", flush=True)
    config = uvicorn.Config(require_token, log_level="error", lifespan="on")
    await uvicorn.Server(config).serve(sockets=[sock])


if __name__ == "__main__":
    if sys.argv[1:2] == ["--http"]:
        anyio.run(serve_http, sys.argv[2])
    else:
        server.run()
