"""A real MCP server that shows the trace context each tool call arrived with.

    python traced.py

Tools: ``trace_context`` answers the ``traceparent`` of the request's ``_meta`` (empty when none came);
``broken_tool`` always fails (an error result).
"""

from __future__ import annotations

from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError

server = MCPServer("traced")


@server.tool(description="Answer the W3C traceparent this call arrived with, if any.")
async def trace_context(ctx: Context) -> str:
    meta = ctx.request_context.meta or {}
    return str(dict(meta).get("traceparent", ""))


@server.tool(description="Fail every time, for error spans.")
def broken_tool() -> str:
    raise ToolError("broken on purpose")


if __name__ == "__main__":
    server.run()
