"""A hostile MCP server: it lists too many, too large and oddly named tools, and answers with huge results.

    python hostile.py [--tools N] [--description-chars N] [--schema-bytes N] [--odd-names] [--pid FILE]
                      [--resources N [--resource-page N]] [--prompts N] [--count FILE]
                      [--http PORT [--json-response]]

Always listed: ``echo(text)`` (answers the text), ``blob(mb, late_s, id_last, notify)`` (answers ``mb`` MiB of
text; over stdio, with ``late_s`` it writes that answer ``late_s`` seconds later whether or not the call was
cancelled, with ``id_last`` it writes it at once with ``jsonrpc`` and ``id`` after the result, as the TypeScript
SDK does, and with ``notify`` it first sends a log notification of that size, then answers ``notified``) and
``sleep(s)`` (answers after ``s`` seconds). ``--tools N`` adds ``tool_0`` ... ``tool_{N-1}``;
``--description-chars N`` adds three tools (``wordy_0`` ...) with descriptions of N characters;
``--schema-bytes N`` adds ``bloated``, whose input schema is about N bytes of JSON; ``--odd-names``
adds tools named with a newline and ANSI escapes, a right-to-left override, and a zero-width space.
``--pid FILE`` writes the process id to FILE at start. ``--http PORT`` serves Streamable HTTP on
``http://127.0.0.1:PORT/mcp`` instead of stdio, answering over SSE, or with plain JSON bodies with
``--json-response``; there a call of ``endless`` is answered with a message that never ends.
``--resources N`` lists N resources ``res://item/<n>`` (read as their URI; ``--resource-page N``: in pages of
N, the cursor an offset) and reads ``res://blob/<mb>`` as ``mb`` MiB of text; ``--prompts N`` lists N prompts
``prompt_<n>``; ``--count FILE`` appends the method of each ``resources/list`` and ``prompts/list`` it answers.
With either, ``grow(n)`` lists n more of both and sends ``notifications/resources/list_changed`` and
``notifications/prompts/list_changed``.
"""

from __future__ import annotations

import argparse
import json
import os
import threading
import time
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp.server import NotificationOptions, Server
from mcp.server.stdio import stdio_server

ODD_NAMES = ("forged\n12:00:00 ERROR toolscout: \x1b[31mowned\x1b[0m", "evil\u202etxt.exe", "zero\u200bwidth")
_TEXT_SCHEMA = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}

parser = argparse.ArgumentParser()
parser.add_argument("--tools", type=int, default=0)
parser.add_argument("--description-chars", type=int, default=0)
parser.add_argument("--schema-bytes", type=int, default=0)
parser.add_argument("--odd-names", action="store_true")
parser.add_argument("--pid", type=Path)
parser.add_argument("--http", type=int)
parser.add_argument("--json-response", action="store_true")
parser.add_argument("--resources", type=int)
parser.add_argument("--resource-page", type=int)
parser.add_argument("--prompts", type=int)
parser.add_argument("--count", type=Path)
options = parser.parse_args()
_LISTS = options.resources is not None or options.prompts is not None
_GROW = {"type": "object", "properties": {"n": {"type": "integer"}}}


def _tool(name: str, description: str, schema: dict[str, Any] | None = None) -> types.Tool:
    return types.Tool(name=name, description=description, input_schema=schema or {"type": "object", "properties": {}})


def _listing() -> list[types.Tool]:
    tools = [
        _tool("echo", "Answer the text unchanged.", _TEXT_SCHEMA),
        _tool("blob", "Answer mb MiB of text.", {"type": "object", "properties": {"mb": {"type": "number"}}}),
        _tool("sleep", "Answer after s seconds.", {"type": "object", "properties": {"s": {"type": "number"}}}),
        *([_tool("endless", "Answer with a message that never ends.")] if options.http is not None else []),
        *([_tool("grow", "List n more resources and prompts, and say so.", _GROW)] if _LISTS else []),
    ]
    tools += [_tool(f"tool_{n}", f"Widget operation number {n}: frobnicate the gadget.") for n in range(options.tools)]
    tools += [
        _tool(f"wordy_{n}", "word " * (options.description_chars // 5))
        for n in range(3 if options.description_chars else 0)
    ]
    if options.schema_bytes:
        properties = {
            f"field_{n}": {"type": "string", "description": "x" * 80} for n in range(options.schema_bytes // 120)
        }
        tools.append(_tool("bloated", "A tool with a huge input schema.", {"type": "object", "properties": properties}))
    if options.odd_names:
        tools += [_tool(name, "A tool with an odd name.") for name in ODD_NAMES]
    return tools


LISTING = _listing()


async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
    return types.ListToolsResult(tools=LISTING)


STDOUT = os.dup(1)  # the protocol pipe: the SDK's stdio server points fd 1 at stderr while it runs


def _write_all(data: bytes) -> None:
    """Write `data` to stdout past the SDK's writer (from a thread; a non-blocking pipe may take it in parts)."""
    view = memoryview(data)
    while view:
        try:
            view = view[os.write(STDOUT, view) :]
        except BlockingIOError:
            time.sleep(0.01)


def _raw_line(message: dict[str, Any], mb: float) -> bytes:
    """`message` as one line, its empty ``"text"`` filled with `mb` MiB of text."""
    text = "x" * int(mb * (1 << 20))
    return json.dumps(message).replace('"text": ""', f'"text": "{text}"', 1).encode() + b"\n"


async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    arguments = params.arguments or {}
    if params.name == "blob" and ("late_s" in arguments or arguments.get("id_last")):
        result = {"content": [{"type": "text", "text": ""}]}
        answer = (
            {"result": result, "jsonrpc": "2.0", "id": ctx.request_id}
            if arguments.get("id_last")
            else {"jsonrpc": "2.0", "id": ctx.request_id, "result": result}
        )
        line = _raw_line(answer, float(arguments["mb"]))
        threading.Timer(float(arguments.get("late_s", 0)), _write_all, (line,)).start()
        await anyio.sleep_forever()  # a cancellation ends this; the answer is still written
    if params.name == "blob" and arguments.get("notify"):
        log = {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": {"text": ""}}}
        _write_all(_raw_line(log, float(arguments["mb"])))
        return types.CallToolResult(content=[types.TextContent(text="notified")])
    if params.name == "grow":
        added = int(arguments.get("n", 1))
        options.resources = (options.resources or 0) + added
        options.prompts = (options.prompts or 0) + added
        await ctx.session.send_resource_list_changed()
        await ctx.session.send_prompt_list_changed()
        return types.CallToolResult(content=[types.TextContent(text="grown")])
    if params.name == "blob":
        text = "x" * int(float(arguments.get("mb", 1)) * (1 << 20))
    elif params.name == "sleep":
        await anyio.sleep(float(arguments.get("s", 1)))
        text = "slept"
    else:
        text = str(arguments.get("text", params.name))
    return types.CallToolResult(content=[types.TextContent(text=text)])


def _counted(method: str) -> None:
    if options.count is not None:
        with options.count.open("a") as file:
            file.write(method + "\n")


async def list_resources(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListResourcesResult:
    _counted("resources/list")
    count = options.resources or 0
    start = int(params.cursor) if params is not None and params.cursor else 0
    end = min(count, start + options.resource_page) if options.resource_page else count
    return types.ListResourcesResult(
        resources=[types.Resource(name=f"item {n}", uri=f"res://item/{n}") for n in range(start, end)],
        next_cursor=str(end) if end < count else None,
    )


async def read_resource(ctx: Any, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
    uri = str(params.uri)
    text = "x" * int(float(uri.removeprefix("res://blob/")) * (1 << 20)) if uri.startswith("res://blob/") else uri
    return types.ReadResourceResult(contents=[types.TextResourceContents(uri=uri, text=text)])


async def list_prompts(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListPromptsResult:
    _counted("prompts/list")
    return types.ListPromptsResult(prompts=[types.Prompt(name=f"prompt_{n}") for n in range(options.prompts or 0)])


handlers: dict[str, Any] = {}
if options.resources is not None:
    handlers |= {"on_list_resources": list_resources, "on_read_resource": read_resource}
if options.prompts is not None:
    handlers["on_list_prompts"] = list_prompts
server: Server[Any] = Server("hostile", on_list_tools=list_tools, on_call_tool=call_tool, **handlers)


class Endless:
    """Answers a ``tools/call`` of ``endless`` with a result that never ends, as JSON or as one SSE event."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        chunks = []
        while True:
            message = await receive()
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        request = json.loads(body)
        if request.get("method") != "tools/call" or request["params"].get("name") != "endless":
            replayed = False

            async def replay() -> Any:
                nonlocal replayed
                if replayed:
                    return await receive()
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}

            await self.app(scope, replay, send)
            return
        kind = b"application/json" if options.json_response else b"text/event-stream"
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", kind)]})
        start = {"jsonrpc": "2.0", "id": request["id"], "result": {"content": [{"type": "text", "text": ""}]}}
        head = json.dumps(start).split('"text": ""')[0] + '"text": "'
        prefix = b"" if options.json_response else b"event: message\ndata: "
        await send({"type": "http.response.body", "body": prefix + head.encode(), "more_body": True})
        async with anyio.create_task_group() as group:

            async def until_disconnected() -> None:
                while (await receive())["type"] != "http.disconnect":
                    pass
                group.cancel_scope.cancel()

            group.start_soon(until_disconnected)
            while True:
                await send({"type": "http.response.body", "body": b"x" * (64 << 10), "more_body": True})
                await anyio.sleep(0)  # a send to a client that left returns at once


def serve_http(port: int) -> None:
    import uvicorn
    from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
    from starlette.applications import Starlette
    from starlette.routing import Route

    manager = StreamableHTTPSessionManager(app=server, json_response=options.json_response)
    app = Starlette(
        routes=[Route("/mcp", endpoint=Endless(StreamableHTTPASGIApp(manager)))], lifespan=lambda app: manager.run()
    )
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


async def main() -> None:
    async with stdio_server() as (read_stream, write_stream):
        changes = NotificationOptions(resources_changed=True, prompts_changed=True)
        await server.run(read_stream, write_stream, server.create_initialization_options(changes))


if __name__ == "__main__":
    if options.pid is not None:
        options.pid.write_text(str(os.getpid()))
    if options.http is not None:
        serve_http(options.http)
    else:
        anyio.run(main)
