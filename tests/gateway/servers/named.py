"""A real MCP server whose tools have the names given on its command line (e.g. a bridge tool's name).

    python named.py NAME [NAME ...]

Each tool takes a ``query`` string and answers ``NAME got QUERY``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from mcp.server import MCPServer

server = MCPServer("named")


def _tool(name: str) -> Callable[[str], str]:
    def run(query: str) -> str:
        return f"{name} got {query}"

    return run


for tool_name in sys.argv[1:]:
    server.add_tool(_tool(tool_name), name=tool_name, description=f"Look up saved recipes by keyword ({tool_name}).")

if __name__ == "__main__":
    server.run()
