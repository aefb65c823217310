"""A real MCP server that takes its time to start, for the gateway's start-up and shutdown tests.

    python slow.py STATE_DIR DELAY_S [TOOL_NAME]

It writes its pid to STATE_DIR/pid at once, sleeps DELAY_S seconds (a number, or a file holding
one, so a test can change the delay without changing the server's config entry), then serves one
tool (``TOOL_NAME``, default ``ping``) over stdio.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from mcp.server import MCPServer

STATE = Path(sys.argv[1])
DELAY_S = float(Path(sys.argv[2]).read_text() if Path(sys.argv[2]).is_file() else sys.argv[2])
TOOL = sys.argv[3] if len(sys.argv) > 3 else "ping"

server = MCPServer("slow")


def ping() -> str:
    return "pong"


server.add_tool(ping, name=TOOL, description=f"Answer pong ({TOOL}, from a server that starts slowly).")

if __name__ == "__main__":
    STATE.mkdir(parents=True, exist_ok=True)
    (STATE / "pid").write_text(str(os.getpid()))
    time.sleep(DELAY_S)
    server.run()
