"""Selected servers and tools (``toolscout.scope``) in a gateway over real servers, through a real MCP client."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from tests.gateway.conftest import LIMIT_S, names, payload, real_servers, stdio_gateway, text, write_config

pytestmark = pytest.mark.anyio


async def test_filtered_tools_are_neither_listed_searchable_nor_callable(tmp_path: Path) -> None:
    servers = real_servers(tmp_path)
    servers = {name: servers[name] for name in ("time", "memory", "fetch")}
    # mcpagent's rule: every tool of the selected servers, plus the selected tools (by their name on their server).
    scope = {"servers": ["time"], "tools": ["memory:read_graph"]}
    config = write_config(tmp_path / "gw.json", servers, mode="on", scope=scope)
    with anyio.fail_after(LIMIT_S):
        async with stdio_gateway(config) as client:
            listed = await client.list_tools()
            browsed = payload(await client.call_tool("tool_search", {"query": ""}))
            fetch = payload(await client.call_tool("tool_search", {"query": "fetch a URL from the internet"}))
            refused = await client.call_tool("tool_call", {"name": "memory__create_entities", "arguments": {}})
            direct = await client.call_tool("fetch__fetch", {"url": "http://127.0.0.1:9/"})
            graph = await client.call_tool("tool_call", {"name": "memory__read_graph", "arguments": {}})
            clock = await client.call_tool(
                "tool_call", {"name": "time__get_current_time", "arguments": {"timezone": "UTC"}}
            )
    assert names(listed) == ["tool_search", "tool_describe", "tool_call"]
    assert {tool["name"] for tool in browsed["tools"]} == {
        "time__get_current_time",
        "time__convert_time",
        "memory__read_graph",
    }
    assert all(not tool["name"].startswith("fetch__") for tool in fetch["tools"])
    assert refused.is_error and "unknown_tool" in text(refused)
    assert direct.is_error and "unknown_tool" in text(direct)
    assert not graph.is_error, text(graph)
    assert not clock.is_error and "UTC" in text(clock)
