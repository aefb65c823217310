"""The model-facing bridge surface through a real MCP client against `toolscout serve` over real servers."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from mcp.types import ListToolsResult

from tests.gateway.conftest import LIMIT_S, names, payload, real_servers, stdio_gateway, write_config

pytestmark = pytest.mark.anyio


def config(tmp_path: Path, style: str, **settings: object) -> Path:
    servers = real_servers(tmp_path)
    chosen = {name: servers[name] for name in ("time", "memory")}
    return write_config(tmp_path / "gw.json", chosen, style=style, mode="on", **settings)


async def test_reveal_style_loads_several_named_tools_in_one_search(tmp_path: Path) -> None:
    with anyio.fail_after(LIMIT_S):
        async with stdio_gateway(config(tmp_path, "reveal")) as client:
            async with client.listen(tools_list_changed=True) as subscription:
                answer = payload(
                    await client.call_tool(
                        "tool_search", {"names": ["Get_Current_Time", "memory.create_entities", "read_grahp"]}
                    )
                )
                await subscription.__anext__()
            listed = (await client.list_tools()).tools
            now = await client.call_tool("time__get_current_time", {"timezone": "Asia/Tokyo"})
    assert [entry["name"] for entry in answer["tools"]] == ["time__get_current_time", "memory__create_entities"]
    assert answer["not_found"] == ["read_grahp"] and "memory__read_graph" in answer["candidates"]
    assert "tool_call(name, arguments)" in answer["hint"]  # for a client whose list does not show them
    by_name = {tool.name: tool for tool in listed}
    assert [tool.name for tool in listed][2:] == ["time__get_current_time", "memory__create_entities"]
    assert by_name["time__get_current_time"].input_schema == answer["tools"][0]["parameters"]
    assert "timezone" in by_name["time__get_current_time"].input_schema["required"]
    assert payload(now)["timezone"] == "Asia/Tokyo"


async def test_bridge_style_describes_several_named_tools_with_their_schemas(tmp_path: Path) -> None:
    with anyio.fail_after(LIMIT_S):
        async with stdio_gateway(config(tmp_path, "bridge")) as client:
            before = names(await client.list_tools())
            answer = payload(
                await client.call_tool("tool_describe", {"names": ["TIME__CONVERT_TIME", "time:get_current_time"]})
            )
            ran = await client.call_tool(
                "tool_call", {"name": "time__get_current_time", "arguments": {"timezone": "UTC"}}
            )
            after = names(await client.list_tools())
    assert before == after == ["tool_search", "tool_describe", "tool_call"]
    assert [entry["name"] for entry in answer["tools"]] == ["time__convert_time", "time__get_current_time"]
    assert all(entry["parameters"]["properties"] for entry in answer["tools"])
    assert payload(ran)["timezone"] == "UTC"


async def test_the_search_tool_tells_a_client_that_ignores_instructions_what_it_can_find(tmp_path: Path) -> None:
    def search_description(listed: ListToolsResult) -> str:
        return next(str(tool.description) for tool in listed.tools if tool.name == "tool_search")

    with anyio.fail_after(LIMIT_S):
        async with stdio_gateway(config(tmp_path, "bridge")) as client:
            described = search_description(await client.list_tools())
            while not ("time" in described and "memory" in described):  # upstreams attach in the background
                await anyio.sleep(0.2)
                described = search_description(await client.list_tools())
            again = search_description(await client.list_tools())
            found = payload(await client.call_tool("tool_search", {"query": "current time"}))

    head, listing = described.split("\n\nTools it can find:\n")
    assert head.startswith("Find tools that exist but are not in your tool list")
    assert "time" in listing and "memory" in listing
    assert again == described  # byte-stable while the catalog is unchanged
    assert found["tools"][0]["name"].startswith("time__")
