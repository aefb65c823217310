"""A real MCP server that misbehaves on demand, for the gateway's fault tests.

    python fragile.py STATE_DIR

It writes its pid to STATE_DIR/pid at start-up (so a test can kill it) and to
STATE_DIR/busy when `block` is called (so a test knows the call is in flight).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import anyio
from mcp.server import MCPServer
from mcp.server.mcpserver import Context

STATE = Path(sys.argv[1])


async def garble(ctx: Any, call_next: Any) -> Any:
    result = await call_next(ctx)
    if ctx.method == "tools/call" and (ctx.params or {}).get("name") == "garbage":
        return {"content": "this should be a list", "isError": "maybe"}
    return result


server = MCPServer("fragile", middleware=[garble])


@server.tool()
def echo(text: str) -> str:
    """Return the text unchanged."""
    return text


@server.tool()
def pid() -> int:
    """Return this server's process id."""
    return os.getpid()


@server.tool()
async def block() -> str:
    """Announce the call in STATE_DIR/busy, then never answer (the test kills the process)."""
    (STATE / "busy").write_text(str(os.getpid()))
    await anyio.Event().wait()
    return "unreachable"


@server.tool()
async def hang() -> str:
    """Never answer."""
    await anyio.Event().wait()
    return "unreachable"


@server.tool()
def crash() -> str:
    """Exit the process at once, mid-call."""
    os._exit(3)


@server.tool()
def garbage() -> str:
    """Answer with a malformed result (rewritten by the middleware)."""
    return "fine"


@server.tool()
async def grow(name: str, ctx: Context) -> str:
    """Add a tool called `name` and announce that the tool list changed."""

    def added() -> str:
        return f"{name} ran"

    server.add_tool(added, name=name, description=f"A tool added at run time: {name}.")
    await ctx.notify_tools_changed()
    return f"added {name}"


if __name__ == "__main__":
    (STATE / "pid").write_text(str(os.getpid()))
    server.run()
