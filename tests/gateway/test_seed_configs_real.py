"""Seed-style config files (Hermes YAML, everruns, AstrBot, mcpagent) over real MCP servers, seen by a real client."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
import yaml
from mcp.client.session import IncomingMessage
from mcp_types import ToolListChangedNotification

from tests.gateway.conftest import LIMIT_S, names, payload, real_servers, stdio_gateway, text

pytestmark = pytest.mark.anyio

BRIDGE = ["tool_search", "tool_describe", "tool_call"]


def seed_config(path: Path, servers: dict[str, Any], block: dict[str, Any]) -> Path:
    """A config file with the servers, a seed system's block as that system writes it, and test-only gateway keys."""
    gateway = {"store": str(path.parent / "s.sqlite3"), "offload": False}
    document = {"mcpServers": servers, **block, "toolscout": gateway}
    if path.suffix == ".yaml":
        path.write_text(yaml.safe_dump(document, sort_keys=False))
    else:
        path.write_text(json.dumps(document, indent=2))
    return path


def pick(servers: dict[str, Any], *wanted: str) -> dict[str, Any]:
    return {name: servers[name] for name in wanted}


async def test_a_hermes_yaml_config_gives_the_three_bridge_tools_and_its_search_limit(tmp_path: Path) -> None:
    servers = pick(real_servers(tmp_path), "time", "memory", "fetch")
    # `enabled: on` unquoted, as Hermes users write it: YAML reads it as true.
    hermes = tmp_path / "config.yaml"
    seed_config(hermes, servers, {"tools": {"tool_search": {"enabled": "on", "search_default_limit": 2}}})
    hermes.write_text(hermes.read_text().replace("enabled: 'on'", "enabled: on"))
    assert "enabled: on\n" in hermes.read_text()
    with anyio.fail_after(LIMIT_S):
        async with stdio_gateway(hermes) as client:
            listed = await client.list_tools()
            found = payload(await client.call_tool("tool_search", {"query": "current time in a timezone"}))
            described = payload(await client.call_tool("tool_describe", {"names": ["time__get_current_time"]}))
            called = await client.call_tool(
                "tool_call", {"name": "time__get_current_time", "arguments": {"timezone": "UTC"}}
            )
    assert names(listed) == BRIDGE
    assert len(found["tools"]) == 2 and found["tools"][0]["name"] == "time__get_current_time"
    assert "timezone" in json.dumps(described)
    assert not called.is_error and "UTC" in text(called)


async def test_an_everruns_config_gives_stubs_and_a_search_loads_the_full_schema_for_the_next_list(
    tmp_path: Path,
) -> None:
    servers = pick(real_servers(tmp_path), "time", "memory", "everything")
    block = {"capabilities": {"tool_search": {"threshold": 15, "never_defer": ["time__get_current_time"]}}}
    config = seed_config(tmp_path / "agent.json", servers, block)
    changed = anyio.Event()

    async def on_message(message: IncomingMessage) -> None:
        if isinstance(message, ToolListChangedNotification):
            changed.set()

    with anyio.fail_after(LIMIT_S):
        async with stdio_gateway(config, mode="legacy", message_handler=on_message) as client:
            first = await client.list_tools()
            found = payload(await client.call_tool("tool_search", {"query": "memory__search_nodes"}))
            await changed.wait()
            following = await client.list_tools()
            called = await client.call_tool("memory__search_nodes", {"query": "nothing stored yet"})
    assert len(first.tools) >= 15
    assert names(first)[:2] == ["time__get_current_time", "tool_search"]
    stub = next(tool for tool in first.tools if tool.name == "memory__search_nodes")
    assert not stub.input_schema.get("properties")  # name + description only
    assert [tool["name"] for tool in found["tools"]] == ["memory__search_nodes"]  # an exact name: that tool alone
    assert "query" in found["tools"][0]["parameters"]["properties"]
    full = next(tool for tool in following.tools if tool.name == "memory__search_nodes")
    assert "query" in full.input_schema["properties"]
    assert not called.is_error, text(called)


async def test_an_astrbot_config_in_auto_mode_sends_always_loaded_tools_and_tool_search_above_25_tools(
    tmp_path: Path,
) -> None:
    servers = pick(real_servers(tmp_path), "time", "memory", "everything", "filesystem")
    block = {
        "provider_settings": {
            "tool_schema_mode": "auto",
            "tool_search": {"threshold": 25, "max_results": 3, "always_loaded_tools": ["time__get_current_time"]},
        }
    }
    config = seed_config(tmp_path / "cmd_config.json", servers, block)
    with anyio.fail_after(LIMIT_S):
        async with stdio_gateway(config) as client:
            first = await client.list_tools()
            found = payload(await client.call_tool("tool_search", {"query": "read a file", "limit": 10}))
            following = await client.list_tools()
    assert names(first) == ["time__get_current_time", "tool_search", "tool_call"]  # tool_call: the gateway's own
    revealed = [tool["name"] for tool in found["tools"]]
    assert 1 <= len(revealed) <= 3
    assert names(following) == [*names(first), *revealed]


async def test_an_astrbot_config_in_auto_mode_sends_a_small_catalog_in_full(tmp_path: Path) -> None:
    block = {"provider_settings": {"tool_schema_mode": "auto", "tool_search": {"threshold": 25}}}
    config = seed_config(tmp_path / "cmd_config.json", pick(real_servers(tmp_path), "time", "fetch"), block)
    with anyio.fail_after(LIMIT_S):
        async with stdio_gateway(config) as client:
            listed = await client.list_tools()
    assert sorted(names(listed)) == ["fetch__fetch", "time__convert_time", "time__get_current_time"]


async def test_an_mcpagent_config_sends_search_and_pre_discovered_tools_within_the_selected_servers(
    tmp_path: Path,
) -> None:
    servers = pick(real_servers(tmp_path), "time", "memory", "fetch")
    block = {
        "mcpagent": {
            "toolSearchMode": True,
            "preDiscoveredTools": ["time:get_current_time"],
            "selectedServers": ["time", "memory"],
        }
    }
    config = seed_config(tmp_path / "agent.json", servers, block)
    with anyio.fail_after(LIMIT_S):
        async with stdio_gateway(config) as client:
            first = await client.list_tools()
            guidance = client.instructions or ""
            web = payload(await client.call_tool("search_tools", {"query": "fetch a URL from the internet"}))
            graph = payload(await client.call_tool("search_tools", {"query": "read the knowledge graph"}))
            following = await client.list_tools()
            called = await client.call_tool("memory__read_graph", {})
            refused = await client.call_tool("fetch__fetch", {"url": "http://127.0.0.1:9/"})
    assert names(first) == ["search_tools", "tool_call", "time__get_current_time"]  # tool_call: the gateway's own
    assert "call search_tools with a few keywords" in guidance and "tool_search" not in guidance
    assert all(not tool["name"].startswith("fetch__") for tool in web["tools"])
    assert "memory__read_graph" in [tool["name"] for tool in graph["tools"]]
    assert "memory__read_graph" in names(following)
    assert not called.is_error, text(called)
    assert refused.is_error and "unknown_tool" in text(refused)
