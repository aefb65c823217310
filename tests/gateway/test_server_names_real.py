"""Server names as users write them ("Time Server", "Mémoire (graph)") through a real gateway and MCP client."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import anyio
import httpx2
import pytest

from tests.gateway.conftest import LIMIT_S, http_client, http_gateway, names, payload, real_servers, text, write_config

pytestmark = pytest.mark.anyio

PROVIDER_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")  # OpenAI and Anthropic tool names


async def test_servers_named_with_spaces_and_accents_work_end_to_end(tmp_path: Path) -> None:
    real = real_servers(tmp_path)
    servers = {"Time Server": real["time"], "Mémoire (graph)": real["memory"]}
    config = write_config(
        tmp_path / "gw.json",
        servers,
        mode="on",
        pinned=["Time-Server__get_current_time"],
        scope={"servers": ["Time Server", "Mémoire (graph)"]},
    )
    with anyio.fail_after(LIMIT_S):
        async with http_gateway(config) as url, http_client(url) as client:
            listed = await client.list_tools()
            found = payload(await client.call_tool("tool_search", {"query": "read the knowledge graph"}))
            graph = await client.call_tool("tool_call", {"name": "Memoire-graph__read_graph", "arguments": {}})
            clock = await client.call_tool("Time-Server__get_current_time", {"timezone": "UTC"})
            async with httpx2.AsyncClient(timeout=LIMIT_S) as http:
                health = (await http.get(url.replace("/mcp", "/healthz"))).json()
            status = await anyio.run_process(
                [str(Path(sys.executable).with_name("toolscout")), "status", "--url", url], check=False
            )
    assert names(listed) == ["Time-Server__get_current_time", "tool_search", "tool_describe", "tool_call"]
    assert all(PROVIDER_NAME.fullmatch(tool.name) for tool in listed.tools)
    assert "Memoire-graph__read_graph" in [tool["name"] for tool in found["tools"]]
    assert {tool["namespace"] for tool in found["tools"]} <= {"Memoire-graph", "Time-Server"}
    assert not graph.is_error, text(graph)
    assert not clock.is_error and "UTC" in text(clock)
    upstreams = {entry["name"]: entry.get("label") for entry in health["upstreams"]}
    assert upstreams == {"Time-Server": "Time Server", "Memoire-graph": "Mémoire (graph)"}
    shown = status.stdout.decode()
    assert status.returncode == 0, shown + status.stderr.decode()
    assert "Time-Server (Time Server)" in shown and "Memoire-graph (Mémoire (graph))" in shown
