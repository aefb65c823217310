"""Selected servers and tools (``toolscout.scope``, a token's grant) in a gateway over real servers, through a real MCP
client."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import pytest
from mcp.shared.exceptions import MCPError

from tests.gateway.conftest import (
    LIMIT_S,
    SERVERS,
    http_client,
    http_gateway,
    names,
    payload,
    real_servers,
    stdio_gateway,
    text,
    write_config,
)

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


_TOKENS = {
    "glob": {"token": "glob-token-0123456789abcdef0123", "tools": ["*echo*", "*item*"]},
    "exact": {"token": "exact-token-0123456789abcdef012", "tools": ["a__echo"]},
    "server": {"token": "server-token-0123456789abcdef01", "servers": ["a"], "tools": ["b__echo"]},
    "denied": {"token": "denied-token-0123456789abcdef01", "servers": ["a", "b"], "deny": ["a:*"]},
}
_TRIED = (
    "toolscout://a/res://item/0",
    "toolscout://a/res://item/0?echo",
    "toolscout://b/res://echo/x",
    "toolscout://b/res://item/1",
)


async def test_resources_are_granted_by_server_never_by_tool_patterns_over_the_uri(tmp_path: Path) -> None:
    """A tool glob matched against the URI a client sends used to read any server's resources (``*echo*`` read
    ``toolscout://b/res://echo/x``) while ``resources/list`` showed none: listing and reading agree now, by server."""
    hostile = {"command": sys.executable, "args": [str(SERVERS / "hostile.py"), "--resources", "2"]}
    config = write_config(tmp_path / "gw.json", {"a": hostile, "b": hostile}, mode="on", auth={"tokens": _TOKENS})
    seen: dict[str, tuple[list[str], list[str]]] = {}
    with anyio.fail_after(LIMIT_S):
        async with http_gateway(config) as url:
            for label, grant in _TOKENS.items():
                async with http_client(url, token=str(grant["token"])) as client:
                    listed = sorted(resource.uri for resource in (await client.list_resources()).resources)
                    readable = []
                    for uri in _TRIED:
                        try:
                            await client.read_resource(uri)
                        except MCPError as exc:
                            assert "not in this session's scope" in exc.error.message
                        else:
                            readable.append(uri)
                seen[label] = (listed, readable)
    assert seen["glob"] == ([], [])
    assert seen["exact"] == ([], [])
    a_items = ["toolscout://a/res://item/0", "toolscout://a/res://item/1"]
    assert seen["server"] == (a_items, ["toolscout://a/res://item/0", "toolscout://a/res://item/0?echo"])
    b_items = ["toolscout://b/res://item/0", "toolscout://b/res://item/1"]
    assert seen["denied"] == (b_items, ["toolscout://b/res://echo/x", "toolscout://b/res://item/1"])
