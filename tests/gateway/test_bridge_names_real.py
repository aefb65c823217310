"""An upstream tool named like a bridge tool, through `toolscout serve` and the MCP SDK client.

BFCL has a function called ``tool_search``. Behind the gateway its name gets the server's namespace
(``bfcl__tool_search``); where the namespace and separator still make it ``tool_search``, the tool is
renamed ``tool_search_2`` (logged, and listed in ``/healthz``) and the bridge keeps its name.
"""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import httpx2
import pytest

from tests.gateway.conftest import (
    LIMIT_S,
    SERVERS,
    TOOLSCOUT,
    gateway_log,
    http_client,
    http_gateway,
    names,
    payload,
    stdio_gateway,
    text,
    write_config,
)

pytestmark = pytest.mark.anyio


def named_server(*tools: str) -> dict[str, object]:
    return {"command": sys.executable, "args": [str(SERVERS / "named.py"), *tools]}


async def test_an_upstream_tool_search_is_namespaced_found_and_called_beside_the_bridge(tmp_path: Path) -> None:
    config = write_config(tmp_path / "gw.json", {"bfcl": named_server("tool_search", "get_weather")}, mode="on")
    with anyio.fail_after(LIMIT_S):
        async with stdio_gateway(config) as client:
            listed = await client.list_tools()
            found = payload(await client.call_tool("tool_search", {"query": "saved recipes keyword"}))
            called = await client.call_tool("tool_call", {"name": "bfcl__tool_search", "arguments": {"query": "soup"}})
    assert names(listed) == ["tool_search", "tool_describe", "tool_call"]
    assert "bfcl__tool_search" in [tool["name"] for tool in found["tools"]]
    assert not called.is_error and text(called) == "tool_search got soup"


async def test_a_catalog_name_equal_to_a_bridge_name_is_renamed_and_reported(tmp_path: Path) -> None:
    # Server "tool" with separator "_" makes the upstream's "search" the catalog's "tool_search".
    config = write_config(
        tmp_path / "gw.json",
        {"tool": named_server("search", "call")},
        mode="on",
        separator="_",
        listing_budget_tokens=0,
    )
    with anyio.fail_after(LIMIT_S):
        async with http_gateway(config) as url, http_client(url) as client:
            listed = await client.list_tools()
            found = payload(await client.call_tool("tool_search", {"query": "saved recipes keyword"}))
            described = payload(await client.call_tool("tool_describe", {"names": ["tool_search_2"]}))
            called = await client.call_tool("tool_call", {"name": "tool_search_2", "arguments": {"query": "soup"}})
            other = await client.call_tool("tool_call", {"name": "tool_call_2", "arguments": {"query": "tea"}})
            async with httpx2.AsyncClient(timeout=LIMIT_S) as http:
                health = (await http.get(url.replace("/mcp", "/healthz"))).json()
            status = (await anyio.run_process([TOOLSCOUT, "status", "--url", url], check=False)).stdout.decode()
    assert names(listed) == ["tool_search", "tool_describe", "tool_call"]
    assert {tool["name"] for tool in found["tools"]} == {"tool_search_2", "tool_call_2"}
    assert described["tools"][0]["parameters"]["required"] == ["query"]
    assert not called.is_error and text(called) == "search got soup"
    assert not other.is_error and text(other) == "call got tea"
    assert health["renamed"] == [
        {"tool": "tool_search", "shown_as": "tool_search_2"},
        {"tool": "tool_call", "shown_as": "tool_call_2"},
    ]
    assert "renamed tool_search to tool_search_2: a bridge tool has its name" in status
    warnings = [record["message"] for record in gateway_log(config) if record.get("level") == "warning"]
    assert "tool 'tool_search' has a bridge tool's name; the model sees it as 'tool_search_2'" in warnings


async def test_the_gateway_config_names_the_bridge_tools(tmp_path: Path) -> None:
    bridge = {"search": "find_tools", "describe": "load_tools", "call": "run_tool"}
    config = write_config(tmp_path / "gw.json", {"bfcl": named_server("tool_search")}, mode="on", bridge_names=bridge)
    with anyio.fail_after(LIMIT_S):
        async with stdio_gateway(config) as client:
            listed = await client.list_tools()
            guidance = client.instructions or ""
            found = payload(await client.call_tool("find_tools", {"query": "saved recipes"}))
            called = await client.call_tool("run_tool", {"name": "bfcl__tool_search", "arguments": {"query": "pie"}})
    assert names(listed) == ["find_tools", "load_tools", "run_tool"]
    hints = {tool.name: tool.annotations.read_only_hint if tool.annotations else None for tool in listed.tools}
    assert hints == {"find_tools": True, "load_tools": True, "run_tool": None}
    assert "call find_tools with a few keywords" in guidance and "Tools available through find_tools:" in guidance
    assert found["hint"] == "Call load_tools with the names you need, then run_tool."
    assert text(called) == "tool_search got pie"
