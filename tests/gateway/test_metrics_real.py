"""/metrics of a real HTTP gateway over a real MCP server counts sessions, searches and calls by outcome."""

from __future__ import annotations

from pathlib import Path

import anyio
import httpx2
import pytest

from tests.gateway.conftest import LIMIT_S, http_client, http_gateway, real_servers, write_config

pytestmark = pytest.mark.anyio


async def test_metrics_count_sessions_searches_and_a_tool_that_reported_its_own_failure(tmp_path: Path) -> None:
    config = write_config(tmp_path / "gw.json", {"time": real_servers(tmp_path)["time"]}, mode="on")
    async with http_gateway(config) as url:
        base = url.removesuffix("/mcp")
        async with httpx2.AsyncClient(timeout=LIMIT_S) as http:
            with anyio.fail_after(LIMIT_S):
                while (await http.get(f"{base}/healthz")).json().get("tools", 0) < 2:
                    await anyio.sleep(0.2)
            async with http_client(url, session="conversation-1") as client:
                await client.call_tool("tool_search", {"query": "current time"})
                ok = await client.call_tool(
                    "tool_call", {"name": "time__get_current_time", "arguments": {"timezone": "UTC"}}
                )
                failed = await client.call_tool(
                    "tool_call", {"name": "time__get_current_time", "arguments": {"timezone": "Mars/Olympus"}}
                )
                metrics = (await http.get(f"{base}/metrics")).text

    assert not ok.is_error and failed.is_error  # the upstream's own error result reaches the client unchanged
    assert "toolscout_sessions 1.0" in metrics
    assert 'toolscout_calls_total{outcome="ok",upstream="time"} 1.0' in metrics
    assert 'toolscout_calls_total{outcome="tool_reported_error",upstream="time"} 1.0' in metrics
    assert "toolscout_searches_total" in metrics
