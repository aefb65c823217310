"""A small generated MCP server (the SDK's MCPServer) for the start-up benchmark.

python small_server.py NAME TOOLS   # stdio; tools NAME_action_0 .. NAME_action_{TOOLS-1}
"""

from __future__ import annotations

import sys

from mcp.server import MCPServer

NAME = sys.argv[1]
TOOLS = int(sys.argv[2])
ACTIONS = ("list", "get", "create", "update", "delete", "search", "count", "export")

server = MCPServer(NAME)


def _make(index: int) -> None:
    action = ACTIONS[index % len(ACTIONS)]

    def tool(item_id: str, limit: int = 10) -> str:
        return f"{NAME} {action} {item_id} {limit}"

    server.add_tool(
        tool,
        name=f"{NAME}_{action}_{index}",
        description=f"{action.title()} {NAME} records (variant {index}): takes an item id and a limit.",
    )


for number in range(TOOLS):
    _make(number)

if __name__ == "__main__":
    server.run()
