"""The first `tools/list` right after start is the final surface: clients that list once find and call tools.

Every gateway here starts without ``--wait-for-upstreams``, as a user's client starts it, in front of
three real servers (time from PyPI, everything and memory from npm), with a fresh cache folder (no tool
lists remembered from an earlier run) unless a test says otherwise. Models are scripted: no network.
Clients get generous timeouts and the gateway a generous ``startup_wait_s``: this machine may be far
slower than a user's, and how long start-up takes is measured by ``bench/gateway_startup.py``.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters, stdio_client

from tests.gateway.conftest import LIMIT_S, TOOLSCOUT, http_client, names, payload, real_servers, slow_server, text

pytestmark = pytest.mark.anyio

FIND = ("tool_search", {"query": "current time in a timezone"})
CALL = ("tool_call", {"name": "time__get_current_time", "arguments": {"timezone": "UTC"}})


def three_servers(tmp_path: Path) -> dict[str, Any]:
    servers = real_servers(tmp_path)
    return {name: servers[name] for name in ("time", "everything", "memory")}


def gateway_config(tmp_path: Path, document: dict[str, Any], **settings: Any) -> Path:
    """A config over the three real servers plus `document`'s keys; a fresh cache folder for the gateway."""
    toolscout = {"store": str(tmp_path / "sessions.sqlite3"), "offload": False, "startup_wait_s": LIMIT_S, **settings}
    config = tmp_path / "gateway.json"
    config.write_text(json.dumps({"mcpServers": three_servers(tmp_path), **document, "toolscout": toolscout}))
    return config


def environment(tmp_path: Path) -> dict[str, str]:
    """The gateway's environment: this checkout's sources, a cache folder of this test's own."""
    return {**os.environ, "TOOLSCOUT_CACHE_DIR": str(tmp_path / "cache")}


def serve_args(config: Path) -> list[str]:
    return ["serve", str(config), "-v", "--log-format", "json"]


@asynccontextmanager
async def stdio_client_of(config: Path, *, mode: str = "auto") -> AsyncIterator[Client]:
    """A raw MCP client that spawns the gateway, exactly as an MCP client app does."""
    params = StdioServerParameters(command=TOOLSCOUT, args=serve_args(config), env=environment(config.parent))
    with (config.parent / "gateway.log").open("a") as log:
        async with Client(stdio_client(params, errlog=log), mode=mode) as client:
            yield client


@asynccontextmanager
async def http_url(config: Path) -> AsyncIterator[str]:
    """`toolscout serve --transport http` on a free port, started as a user starts it; yields its URL."""
    command = [TOOLSCOUT, *serve_args(config), "--transport", "http", "--port", "0"]
    with (config.parent / "gateway.log").open("ab") as log:
        process = await anyio.open_process(command, stdout=subprocess.PIPE, stderr=log, env=environment(config.parent))
    try:
        assert process.stdout is not None
        received = b""
        with anyio.fail_after(LIMIT_S):
            while b"\n" not in received:
                received += await process.stdout.receive()
        yield received.decode().splitlines()[0].strip()
    finally:
        process.terminate()
        with anyio.move_on_after(LIMIT_S):
            await process.wait()
        await process.aclose()


@asynccontextmanager
async def raw_client(
    config: Path, transport: str, *, mode: str = "auto", session: str | None = None
) -> AsyncIterator[Client]:
    if transport == "stdio":
        async with stdio_client_of(config, mode=mode) as client:
            yield client
    else:
        async with http_url(config) as url, http_client(url, mode=mode, session=session) as client:
            yield client


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_a_raw_mcp_client_lists_once_right_after_start_and_finds_and_calls_a_tool(
    tmp_path: Path, transport: str
) -> None:
    config = gateway_config(tmp_path, {}, mode="auto", threshold_tools=15)
    with anyio.fail_after(LIMIT_S):
        async with raw_client(config, transport) as client:
            first = await client.list_tools()
            found = payload(await client.call_tool(*FIND))
            called = await client.call_tool(*CALL)
            final = await client.list_tools()
    assert names(first) == ["tool_search", "tool_describe", "tool_call"]
    assert names(first) == names(final)
    assert found["tools"][0]["name"] == "time__get_current_time"
    assert "servers_not_ready" not in found
    assert not called.is_error and "UTC" in text(called)


@pytest.mark.parametrize(("transport", "style"), [("stdio", "bridge"), ("http", "bridge"), ("stdio", "reveal")])
async def test_the_openai_agents_sdk_lists_once_and_its_agent_finds_and_calls_a_tool(
    tmp_path: Path, transport: str, style: str
) -> None:
    pytest.importorskip("agents", reason="the openai-agents extra is not installed")
    from agents import Agent, RunConfig, Runner
    from agents.mcp import MCPServer, MCPServerStdio, MCPServerStreamableHttp

    from tests.integrations.test_openai_agents import ScriptedModel, outputs

    config = gateway_config(tmp_path, {}, mode="on", style=style)
    direct = ("time__get_current_time", {"timezone": "UTC"})  # the Agents SDK lists the tools again every turn
    model = ScriptedModel([FIND, CALL if style == "bridge" else direct, None])
    with anyio.fail_after(LIMIT_S):
        async with http_url(config) if transport == "http" else _nothing() as url:
            server: MCPServer
            if url is None:
                command = {"command": TOOLSCOUT, "args": serve_args(config), "env": environment(tmp_path)}
                server = MCPServerStdio(params=command, client_session_timeout_seconds=LIMIT_S)  # type: ignore[arg-type]
            else:
                server = MCPServerStreamableHttp(params={"url": url}, client_session_timeout_seconds=LIMIT_S)
            async with server:
                agent = Agent(name="assistant", mcp_servers=[server], model=model)
                await Runner.run(agent, "what time is it in UTC?", run_config=RunConfig(tracing_disabled=True))
    first = ["tool_search", "tool_describe", "tool_call"] if style == "bridge" else ["tool_search", "tool_call"]
    assert model.offered[0][: len(first)] == first
    assert style == "bridge" or "time__get_current_time" in model.offered[1]
    found, result = (json.dumps(output) for output in outputs(model))
    assert "time__get_current_time" in found
    assert "UTC" in result and "tool_not_run" not in result


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_pydantic_ai_lists_once_and_its_agent_finds_and_calls_a_tool(tmp_path: Path, transport: str) -> None:
    pytest.importorskip("pydantic_ai", reason="the pydantic-ai extra is not installed")
    pytest.importorskip("fastmcp", reason="pydantic-ai's MCP client (pydantic-ai-slim[mcp]) is not installed")
    from fastmcp.client.transports import StdioTransport
    from pydantic_ai import Agent
    from pydantic_ai.mcp import MCPToolset
    from pydantic_ai.messages import ToolReturnPart

    from tests.integrations.test_pydantic_ai import scripted

    config = gateway_config(tmp_path, {}, mode="on")
    seen: list[list[str]] = []
    model = scripted([FIND, CALL, None], seen)
    with anyio.fail_after(LIMIT_S):
        async with http_url(config) if transport == "http" else _nothing() as url:
            with (tmp_path / "gateway.log").open("a") as log:
                target: Any = url or StdioTransport(
                    TOOLSCOUT, serve_args(config), env=environment(tmp_path), log_file=log
                )
                toolset = MCPToolset(target, init_timeout=LIMIT_S, read_timeout=LIMIT_S)
                result = await Agent(model, toolsets=[toolset]).run("what time is it in UTC?")
    assert seen[0][:3] == ["tool_search", "tool_describe", "tool_call"]
    returned = [part for message in result.all_messages() for part in message.parts if isinstance(part, ToolReturnPart)]
    assert "time__get_current_time" in json.dumps(returned[0].content)
    assert "UTC" in json.dumps(returned[1].content) and "tool_not_run" not in json.dumps(returned[1].content)


@pytest.mark.parametrize(
    ("transport", "mode", "session"),
    [
        ("stdio", "auto", None),
        ("stdio", "legacy", None),
        ("http", "legacy", None),  # the connection's Mcp-Session-Id keeps the session
        ("http", "auto", "conversation-1"),  # 2026-07-28 requests stand alone: the client names its session
    ],
)
async def test_everruns_stubs_carry_the_full_schema_in_the_list_right_after_a_search(
    tmp_path: Path, transport: str, mode: str, session: str | None
) -> None:
    config = gateway_config(tmp_path, {"capabilities": {"tool_search": {"threshold": 15}}})
    with anyio.fail_after(LIMIT_S):
        async with raw_client(config, transport, mode=mode, session=session) as client:
            first = await client.list_tools()
            found = payload(await client.call_tool("tool_search", {"query": "time__get_current_time"}))
            following = await client.list_tools()
            called = await client.call_tool("time__get_current_time", {"timezone": "UTC"})
    stub = next(tool for tool in first.tools if tool.name == "time__get_current_time")
    assert stub.input_schema.get("properties") == {}
    assert [tool["name"] for tool in found["tools"]] == ["time__get_current_time"]
    full = next(tool for tool in following.tools if tool.name == "time__get_current_time")
    assert "timezone" in full.input_schema["properties"]
    assert not called.is_error and "UTC" in text(called)


@pytest.mark.parametrize("stubs", [True, False], ids=["everruns-stubs", "reveal"])
async def test_a_2026_http_client_without_a_session_runs_a_found_tool_as_the_search_answer_says(
    tmp_path: Path, stubs: bool
) -> None:
    """Each request of a 2026-07-28 client that names no session stands alone, so its tool list never shows a
    reveal: the search answer says so and gives the parameters, and the call tool in its first list runs the tool."""
    document: dict[str, Any] = {"capabilities": {"tool_search": {"threshold": 15}}} if stubs else {}
    config = gateway_config(tmp_path, document, **({} if stubs else {"mode": "on", "style": "reveal"}))
    with anyio.fail_after(LIMIT_S):
        async with raw_client(config, "http", mode="auto") as client:
            first = await client.list_tools()
            found = payload(await client.call_tool("tool_search", {"query": "current time in a timezone"}))
            following = await client.list_tools()
            hit = next(tool for tool in found["tools"] if tool["name"] == "time__get_current_time")
            timezone = "UTC" if "timezone" in hit["parameters"]["properties"] else None
            bridged = {"name": hit["name"], "arguments": {"timezone": timezone}}
            called = await client.call_tool("tool_call", bridged)
    assert "tool_call" in names(first) and names(following) == names(first)
    assert "tool_call(name, arguments)" in found["hint"] and "does not change" in found["hint"]
    assert not called.is_error and "UTC" in text(called)


async def test_a_server_that_fails_to_start_is_reported_failed_with_its_error(tmp_path: Path) -> None:
    broken = {"command": str(tmp_path / "no-such-server")}
    config = tmp_path / "gateway.json"
    servers = {"time": three_servers(tmp_path)["time"], "broken": broken}
    config.write_text(
        json.dumps(
            {"mcpServers": servers, "toolscout": {"store": "memory", "offload": False, "startup_wait_s": LIMIT_S}}
        )
    )
    with anyio.fail_after(LIMIT_S):
        async with stdio_client_of(config) as client:
            found = payload(await client.call_tool(*FIND))
    assert found["tools"][0]["name"] == "time__get_current_time"
    [report] = found["servers_not_ready"]
    assert report["server"] == "broken" and report["state"] == "failed" and "no-such-server" in report["error"]
    assert "in a little while" not in found["servers_note"]


async def test_a_slow_server_stands_in_with_the_tools_it_listed_last_time(tmp_path: Path) -> None:
    delay = tmp_path / "delay_s"
    delay.write_text("0.5")
    servers = {"slow": slow_server(tmp_path / "slow", delay)}
    config = tmp_path / "gateway.json"
    config.write_text(
        json.dumps(
            {"mcpServers": servers, "toolscout": {"store": "memory", "offload": False, "startup_wait_s": LIMIT_S}}
        )
    )
    with anyio.fail_after(LIMIT_S):
        async with stdio_client_of(config) as client:  # the first start: the server attaches in time
            assert "slow__ping" in names(await client.list_tools())
        delay.write_text("60")  # the same config entry, a server far slower than any client waits this time
        async with stdio_client_of(config) as client:
            first = names(await client.list_tools())
    assert "slow__ping" in first


@asynccontextmanager
async def _nothing() -> AsyncIterator[None]:
    yield None
