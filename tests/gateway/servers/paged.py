"""A lowlevel MCP server that lists its tools over three pages (``nextCursor``).

python paged.py           # pages: first -> p2 -> p3 -> end
python paged.py --cycle   # p3 points back to p2: the pages never end
"""

from __future__ import annotations

import sys
from typing import Any

import mcp_types as types
from mcp.server import Server

PAGES: dict[str | None, tuple[list[str], str | None]] = {
    None: (["alpha", "bravo"], "p2"),
    "p2": (["charlie", "delta"], "p3"),
    "p3": (["echo", "foxtrot"], "p2" if "--cycle" in sys.argv else None),
}


async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
    names, next_cursor = PAGES[params.cursor if params else None]
    tools = [
        types.Tool(name=name, description=f"Tool {name}.", input_schema={"type": "object", "properties": {}})
        for name in names
    ]
    return types.ListToolsResult(tools=tools, next_cursor=next_cursor)


server: Server[Any] = Server("paged", on_list_tools=list_tools)

if __name__ == "__main__":
    from mcp.server.stdio import stdio_server

    async def main() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    import anyio

    anyio.run(main)
