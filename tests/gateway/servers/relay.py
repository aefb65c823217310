"""A 2025-era MCP server whose tools ask the client things: elicitation, sampling, roots, progress, logs.

Usage: ``python relay.py STATE_DIR``. ``wait`` blocks until cancelled and then writes
``STATE_DIR/cancelled`` (so a test sees the gateway's cancellation reach the server); every tool
answers with what the client said, as JSON text. ``log`` sends a debug and a warning message, those
at or above the level of the last ``logging/setLevel`` (kept in ``STATE_DIR/level``; all before one).
The server refuses ``server/discover``, so clients fall back to the 2025-era handshake, where server
-> client requests exist.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
from mcp.server import Server
from mcp.server.context import ServerRequestContext
from mcp.server.runner import serve_loop
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError
from mcp.shared.message import ServerMessageMetadata
from mcp_types import (
    CallToolRequestParams,
    CallToolResult,
    CreateMessageRequest,
    CreateMessageRequestParams,
    CreateMessageResult,
    ElicitRequest,
    ElicitRequestFormParams,
    ElicitResult,
    EmptyResult,
    ListRootsRequest,
    ListRootsResult,
    ListToolsResult,
    LoggingLevel,
    LoggingMessageNotification,
    LoggingMessageNotificationParams,
    PaginatedRequestParams,
    SamplingMessage,
    SetLevelRequestParams,
    TextContent,
    Tool,
)

STATE = Path(sys.argv[1])
_ANY: dict[str, Any] = {"type": "object", "properties": {"note": {"type": "string"}}}
TOOLS = ("ask", "sample", "roots", "progress", "log", "wait")
LEVELS: tuple[LoggingLevel, ...] = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")


async def list_tools(ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None) -> ListToolsResult:
    return ListToolsResult(
        tools=[Tool(name=name, description=f"relay test: {name}", input_schema=_ANY) for name in TOOLS]
    )


async def call_tool(ctx: ServerRequestContext[Any], params: CallToolRequestParams) -> CallToolResult:
    note = str((params.arguments or {}).get("note", ""))
    related = ServerMessageMetadata(related_request_id=ctx.request_id)
    answer: Any
    try:
        if params.name == "ask":
            elicited = await ctx.session.send_request(
                ElicitRequest(
                    params=ElicitRequestFormParams(
                        message=f"your name? ({note})",
                        requested_schema={"type": "object", "properties": {"name": {"type": "string"}}},
                    )
                ),
                ElicitResult,
                metadata=related,
            )
            answer = {"action": elicited.action, "content": elicited.content}
        elif params.name == "sample":
            message = SamplingMessage(role="user", content=TextContent(type="text", text=f"say hi ({note})"))
            sampled = await ctx.session.send_request(
                CreateMessageRequest(params=CreateMessageRequestParams(messages=[message], max_tokens=20)),
                CreateMessageResult,
                metadata=related,
            )
            content = sampled.content
            answer = {"model": sampled.model, "text": content.text if isinstance(content, TextContent) else None}
        elif params.name == "roots":
            roots = await ctx.session.send_request(ListRootsRequest(), ListRootsResult, metadata=related)
            answer = {"roots": [str(root.uri) for root in roots.roots]}
        elif params.name == "progress":
            for step in range(1, 4):
                await ctx.session.report_progress(step, 3, f"{note} step {step}")
            answer = {"steps": 3}
        elif params.name == "log":
            least = (STATE / "level").read_text() if (STATE / "level").exists() else "debug"
            sent: list[LoggingLevel] = [
                level for level in ("debug", "warning") if LEVELS.index(level) >= LEVELS.index(least)
            ]
            for level in sent:
                log = LoggingMessageNotificationParams(level=level, data=f"{note} at {level}", logger="relay")
                await ctx.session.send_notification(LoggingMessageNotification(params=log), ctx.request_id)
            answer = {"logged": len(sent)}
        else:
            (STATE / "started").write_text(note)
            try:
                await anyio.sleep_forever()
            finally:
                (STATE / "cancelled").write_text(note)
    except MCPError as exc:
        answer = {"error": exc.error.code, "message": exc.error.message}
    return CallToolResult(content=[TextContent(type="text", text=json.dumps(answer))])


async def set_level(ctx: ServerRequestContext[Any], params: SetLevelRequestParams) -> EmptyResult:
    (STATE / "level").write_text(params.level)
    return EmptyResult()


async def main() -> None:
    server: Server[Any] = Server(
        "relay", on_list_tools=list_tools, on_call_tool=call_tool, on_set_logging_level=set_level
    )
    async with stdio_server() as (read, write), server.lifespan(server) as state:
        # The handshake-only loop: a client's server/discover gets "method not found", so it falls back.
        await serve_loop(server, read, write, lifespan_state=state, init_options=server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
