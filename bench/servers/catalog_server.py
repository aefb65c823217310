"""A stdio MCP server (the SDK's lowlevel `Server`) that lists a labelled set's catalog and answers every call "ok".

    python catalog_server.py TOOLS.json   # a JSON list of {"name", "description", "inputSchema", "title",
                                          #   "annotations", "_meta"} (the last three optional)

For `bench/learning_serve_replay.py`: the gateway in front of it sees the catalog as a real upstream, and every
``tool_call`` the replay makes succeeds (the arguments are not looked at).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp.server import Server
from mcp.server.stdio import stdio_server

TOOLS = [
    types.Tool(
        name=row["name"],
        title=row.get("title"),
        description=row.get("description") or None,
        input_schema=row["inputSchema"],
        annotations=row.get("annotations"),
        meta=row.get("_meta"),
    )
    for row in json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
]
OK = types.CallToolResult(content=[types.TextContent(type="text", text="ok")])


async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
    return types.ListToolsResult(tools=TOOLS)


async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    return OK


server: Server[Any] = Server("catalog", on_list_tools=list_tools, on_call_tool=call_tool)


async def main() -> None:
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
