"""`toolscout serve` in front of the real servers, driven by the MCP SDK client over stdio and HTTP."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import pytest
from mcp.client import Client

from tests.gateway.conftest import (
    LIMIT_S,
    http_client,
    http_gateway,
    names,
    payload,
    real_servers,
    stdio_gateway,
    text,
    write_config,
)
from toolscout.gateway._internal import StdioServer, Upstream

pytestmark = pytest.mark.anyio

BRIDGE = ["tool_search", "tool_describe", "tool_call"]


@asynccontextmanager
async def connected(transport: str, config: Path) -> AsyncIterator[Client]:
    if transport == "stdio":
        async with stdio_gateway(config) as client:
            yield client
    else:
        async with http_gateway(config) as url, http_client(url) as client:
            yield client


@pytest.fixture(params=["stdio", "http"])
def transport(request: pytest.FixtureRequest) -> str:
    return str(request.param)


async def test_the_client_sees_only_pinned_offload_and_bridge_tools_and_guidance_listing_the_rest(
    transport: str, tmp_path: Path
) -> None:
    config = write_config(tmp_path / "gw.json", real_servers(tmp_path), pinned=["memory__read_graph"], offload=True)
    with anyio.fail_after(LIMIT_S):
        async with connected(transport, config) as client:
            listed = await client.list_tools()
            instructions = client.instructions or ""
    assert names(listed) == ["output_read", "output_search", "output_query", "memory__read_graph", *BRIDGE]
    assert all(tool.output_schema is None for tool in listed.tools)
    assert "call tool_search" in instructions
    for server in ("time", "everything", "memory", "filesystem", "git", "fetch"):
        assert f"{server} (" in instructions, f"the guidance does not list {server}"


async def test_search_finds_the_time_tool_describe_gives_its_real_schema_and_call_its_real_result(
    transport: str, tmp_path: Path
) -> None:
    servers = real_servers(tmp_path)
    config = write_config(tmp_path / "gw.json", servers)
    with anyio.fail_after(LIMIT_S):
        async with Upstream("time", StdioServer.model_validate(servers["time"])) as direct:
            truth = {tool.upstream_name: tool.spec for tool in (await direct.list_tools()).tools}
        async with connected(transport, config) as client:
            found = payload(await client.call_tool("tool_search", {"query": "current time in Tokyo"}))
            described = payload(await client.call_tool("tool_describe", {"names": ["time__get_current_time"]}))
            result = await client.call_tool(
                "tool_call", {"name": "time__get_current_time", "arguments": {"timezone": "Asia/Tokyo"}}
            )
    assert found["tools"][0]["name"] == "time__get_current_time"
    assert found["tools"][0]["namespace"] == "time"
    (schema,) = described["tools"]
    assert schema["parameters"] == truth["get_current_time"].parameters
    assert not result.is_error
    answer = payload(result)
    assert answer["timezone"] == "Asia/Tokyo"
    assert answer["datetime"].endswith("+09:00")
    assert result.structured_content is not None and result.structured_content["timezone"] == "Asia/Tokyo"


async def test_pinned_tools_keep_their_upstream_annotations_and_run_directly(tmp_path: Path) -> None:
    servers = real_servers(tmp_path)
    config = write_config(tmp_path / "gw.json", servers, pinned=["filesystem__*"])
    with anyio.fail_after(LIMIT_S):
        async with Upstream("filesystem", StdioServer.model_validate(servers["filesystem"])) as direct:
            truth = {tool.spec.name: tool.spec for tool in (await direct.list_tools()).tools}
        async with stdio_gateway(config) as client:
            listed = {tool.name: tool for tool in (await client.list_tools()).tools}
            read = await client.call_tool("filesystem__read_text_file", {"path": str(tmp_path / "files" / "hello.txt")})
    assert set(truth) <= set(listed)
    for name, spec in truth.items():
        shown = listed[name].annotations
        wire = shown.model_dump(by_alias=True, exclude_none=True) if shown is not None else None
        assert wire == spec.annotations, name
    assert "hello from the filesystem server" in text(read)


async def test_an_unknown_tool_name_gets_a_structured_error_with_close_names(tmp_path: Path) -> None:
    config = write_config(tmp_path / "gw.json", real_servers(tmp_path))
    with anyio.fail_after(LIMIT_S):
        async with stdio_gateway(config) as client:
            result = await client.call_tool("tool_call", {"name": "time__get_time", "arguments": {}})
    assert result.is_error
    error = payload(result)
    assert error["tool_not_run"] is True
    assert error["error"]["code"] == "unknown_tool"
    assert "time__get_current_time" in error["error"]["candidates"]
