"""tool_search through the gateway over real MCP servers, seen by the MCP SDK client: bounding, exact names, regex."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from tests.gateway.conftest import LIMIT_S, names, payload, real_servers, stdio_gateway, write_config

pytestmark = pytest.mark.anyio


def gateway_config(tmp_path: Path, **settings: object) -> Path:
    servers = real_servers(tmp_path)
    picked = {name: servers[name] for name in ("time", "memory")}
    return write_config(tmp_path / "gw.json", picked, mode="on", **settings)


async def test_a_reveal_search_lists_every_hit_but_reveals_at_most_search_max_reveal(tmp_path: Path) -> None:
    config = gateway_config(tmp_path, style="reveal", search_max_reveal=2, search_top_band=0)
    with anyio.fail_after(LIMIT_S):
        async with stdio_gateway(config) as client:
            found = payload(await client.call_tool("tool_search", {"query": "delete entities observations relations"}))
            following = names(await client.list_tools())
    listed = [tool["name"] for tool in found["tools"]]
    assert {"memory__delete_entities", "memory__delete_observations", "memory__delete_relations"} <= set(listed)
    revealed = [tool["name"] for tool in found["tools"] if "parameters" in tool]
    assert revealed == listed[:2]
    assert found["not_revealed"] == listed[2:]
    assert [name for name in following if name.startswith("memory__")] == revealed


async def test_a_query_that_is_exactly_a_tool_name_finds_that_tool_alone(tmp_path: Path) -> None:
    config = gateway_config(tmp_path)
    with anyio.fail_after(LIMIT_S):
        async with stdio_gateway(config) as client:
            answers = [
                payload(await client.call_tool("tool_search", {"query": query}))
                for query in ("memory__search_nodes", "`Search_Nodes`", "memory.open_nodes")
            ]
            mentioned = payload(
                await client.call_tool(
                    "tool_search", {"query": "memory__read_graph is empty; get the current time in a specific timezone"}
                )
            )
    assert [[tool["name"] for tool in answer["tools"]] for answer in answers] == [
        ["memory__search_nodes"],
        ["memory__search_nodes"],
        ["memory__open_nodes"],
    ]
    assert [tool["name"] for tool in mentioned["tools"]][:2] == ["time__get_current_time", "memory__read_graph"]
