"""Helpers for tests that run `toolscout serve` as a real subprocess and talk to it with the MCP SDK."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp.client import Client
from mcp.client.session import MessageHandlerFnT
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import CallToolResult, TextContent

from tests.conftest import require

ROOT = Path(__file__).parents[2]
TOOLSCOUT = str(Path(sys.executable).with_name("toolscout"))
SERVERS = Path(__file__).parent / "servers"
REAL = ROOT / ".mcp-servers"
_SERVE_FLAGS = ("-v", "--log-format", "json", "--wait-for-upstreams")  # tests want the whole catalog at once
LIMIT_S = 120  # generous bound on every wait; nothing here is a timing assertion


def real_servers(workdir: Path) -> dict[str, Any]:
    """The real servers scripts/setup.sh installs (time, everything, memory, filesystem, git, fetch)."""
    require((REAL / "pyvenv").is_dir(), "the real MCP servers are missing: run scripts/setup.sh")
    files = workdir / "files"
    files.mkdir(exist_ok=True)
    (files / "hello.txt").write_text("hello from the filesystem server\n")
    npm = REAL / "node_modules" / ".bin"
    return {
        "time": {"command": str(REAL / "pyvenv/bin/mcp-server-time"), "args": ["--local-timezone", "UTC"]},
        "everything": {"command": str(npm / "mcp-server-everything")},
        "memory": {"command": str(npm / "mcp-server-memory"), "env": {"MEMORY_FILE_PATH": str(workdir / "mem.jsonl")}},
        "filesystem": {"command": str(npm / "mcp-server-filesystem"), "args": [str(files)]},
        "git": {"command": str(REAL / "pyvenv/bin/mcp-server-git"), "args": ["--repository", str(ROOT)]},
        "fetch": {"command": str(REAL / "pyvenv/bin/mcp-server-fetch")},
    }


def fragile_server(state: Path) -> dict[str, Any]:
    """The test server of servers/fragile.py, writing its pid into `state`."""
    state.mkdir(parents=True, exist_ok=True)
    return {"command": sys.executable, "args": [str(SERVERS / "fragile.py"), str(state)]}


def slow_server(state: Path, delay_s: float | Path, tool: str = "ping") -> dict[str, Any]:
    """The test server of servers/slow.py: pid in STATE/pid at once, serving only after `delay_s` (or the
    seconds written in that file when it starts)."""
    return {"command": sys.executable, "args": [str(SERVERS / "slow.py"), str(state), str(delay_s), tool]}


def write_config(path: Path, servers: dict[str, Any], **settings: Any) -> Path:
    """Write a gateway config; the store defaults to an SQLite file next to it.

    Offloading is off unless asked for (tests/offload covers it), so tool lists stay short.
    """
    settings.setdefault("store", str(path.parent / "sessions.sqlite3"))
    settings.setdefault("offload", False)
    path.write_text(json.dumps({"mcpServers": servers, "toolscout": settings}, indent=2))
    return path


def text(result: CallToolResult) -> str:
    """The single text block of a tool result."""
    assert len(result.content) == 1 and isinstance(result.content[0], TextContent), result
    return result.content[0].text


def payload(result: CallToolResult) -> Any:
    """A tool result's text parsed as JSON."""
    return json.loads(text(result))


def names(tools: Any) -> list[str]:
    """The names of a `tools/list` answer."""
    return [tool.name for tool in tools.tools]


@asynccontextmanager
async def http_gateway(config: Path, *extra: str, command: str = TOOLSCOUT) -> AsyncIterator[str]:
    """Run `toolscout serve CONFIG --transport http` on a free port; yields its /mcp URL.

    The gateway's JSON logs go to CONFIG's folder as gateway.log (appended across restarts); `command` is
    the ``toolscout`` command to run (another venv's).
    """
    log = config.parent / "gateway.log"
    serve = [command, "serve", str(config), "--transport", "http", "--port", "0", *_SERVE_FLAGS]
    with log.open("ab") as log_file:
        process = await anyio.open_process([*serve, *extra], stdout=subprocess.PIPE, stderr=log_file)
    try:
        assert process.stdout is not None
        received = b""
        with anyio.fail_after(LIMIT_S):
            while b"\n" not in received:
                try:
                    received += await process.stdout.receive()
                except anyio.EndOfStream:
                    pytest.fail(f"the gateway exited before listening:\n{log.read_text()}")
        yield received.decode().splitlines()[0].strip()
    finally:
        process.terminate()
        with anyio.move_on_after(LIMIT_S) as waiting:
            await process.wait()
        if waiting.cancelled_caught:
            process.kill()
        await process.aclose()


@asynccontextmanager
async def http_client(
    url: str,
    *,
    token: str | None = None,
    session: str | None = None,
    mode: str = "auto",
    message_handler: MessageHandlerFnT | None = None,
) -> AsyncIterator[Client]:
    """An SDK client of the HTTP gateway, with a bearer token and a Toolscout-Session header if given."""
    headers = {}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    if session is not None:
        headers["Toolscout-Session"] = session
    async with (
        httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(LIMIT_S)) as http,
        Client(streamable_http_client(url, http_client=http), mode=mode, message_handler=message_handler) as client,
    ):
        yield client


@asynccontextmanager
async def stdio_gateway(
    config: Path, *, mode: str = "auto", message_handler: MessageHandlerFnT | None = None
) -> AsyncIterator[Client]:
    """Start `toolscout serve CONFIG` (stdio) as the SDK client's subprocess; logs go to gateway.log."""
    # The whole environment, so the gateway runs the sources under test (PYTHONPATH) like HTTP gateways do.
    params = StdioServerParameters(command=TOOLSCOUT, args=["serve", str(config), *_SERVE_FLAGS], env=dict(os.environ))
    with (config.parent / "gateway.log").open("a") as log:
        async with Client(stdio_client(params, errlog=log), mode=mode, message_handler=message_handler) as client:
            yield client


def gateway_log(config: Path) -> list[dict[str, Any]]:
    """The JSON log records the gateway(s) of `config` wrote."""
    lines = (config.parent / "gateway.log").read_text().splitlines()
    return [json.loads(line) for line in lines if line.startswith("{")]


async def tools_once(client: Client, ready: Callable[[set[str]], bool], *, limit_s: float = LIMIT_S) -> set[str]:
    """The client's tool names once `ready` holds for them (the gateway attaches upstreams after it answers).

    Re-lists every 0.1 s, as a client does on ``notifications/tools/list_changed``, within `limit_s`.
    """
    with anyio.fail_after(limit_s):
        while True:
            names = {tool.name for tool in (await client.list_tools()).tools}
            if ready(names):
                return names
            await anyio.sleep(0.1)
