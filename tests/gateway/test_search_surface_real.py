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


@pytest.mark.parametrize("style", ["bridge", "reveal"])
async def test_a_pattern_searches_by_regex_and_a_bad_one_is_a_clear_error(tmp_path: Path, style: str) -> None:
    config = gateway_config(tmp_path, style=style)
    with anyio.fail_after(LIMIT_S):
        async with stdio_gateway(config) as client:
            listed = await client.list_tools()
            alone = payload(await client.call_tool("tool_search", {"pattern": "^memory__delete_", "limit": 10}))
            both = payload(
                await client.call_tool("tool_search", {"query": "current time", "pattern": "^time__", "limit": 10})
            )
            invalid = await client.call_tool("tool_search", {"pattern": "delete("})
            too_long = await client.call_tool("tool_search", {"pattern": "a" * 201})
    search_tool = next(tool for tool in listed.tools if tool.name == "tool_search")
    assert "Regex" in search_tool.input_schema["properties"]["pattern"]["description"]
    assert sorted(tool["name"] for tool in alone["tools"]) == [
        "memory__delete_entities",
        "memory__delete_observations",
        "memory__delete_relations",
    ]
    assert [tool["name"] for tool in both["tools"]][0] == "time__get_current_time"
    assert all(tool["name"].startswith("time__") for tool in both["tools"])
    assert invalid.is_error and too_long.is_error
    error = payload(invalid)["error"]
    assert error["message"].startswith("The pattern is not a valid regular expression: missing )")
    assert "at most 200 characters" in error["hint"]
    assert payload(too_long)["error"]["message"] == "The regex pattern (in characters) is 201 long; the limit is 200."
