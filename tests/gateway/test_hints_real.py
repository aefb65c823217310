"""The README's gateway shape (time tools pinned, bridge style): a search's hint fits each hit (issue 37 §2)."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from tests.gateway.conftest import LIMIT_S, payload, real_servers, stdio_gateway, write_config

pytestmark = pytest.mark.anyio


async def test_listed_hits_are_called_directly_and_mixed_hits_say_both(tmp_path: Path) -> None:
    chosen = {name: server for name, server in real_servers(tmp_path).items() if name in ("time", "memory")}
    config = write_config(tmp_path / "gw.json", chosen, style="bridge", mode="on", pinned=["time__*"])
    with anyio.fail_after(LIMIT_S):
        async with stdio_gateway(config) as client:
            listed = payload(await client.call_tool("tool_search", {"pattern": "current_time"}))
            refused = payload(await client.call_tool("tool_call", {"name": "time__get_current_time", "arguments": {}}))
            mixed = payload(await client.call_tool("tool_search", {"pattern": "current_time|create_entities"}))
            bad_limit = await client.call_tool("tool_search", {"query": "time", "limit": -1})
    assert [tool.get("listed") for tool in listed["tools"]] == [True]
    assert "tool_describe" not in listed["hint"] and "call them directly" in listed["hint"]
    assert refused["error"]["code"] == "call_directly"
    assert sorted(bool(tool.get("listed")) for tool in mixed["tools"]) == [False, True]
    assert "listed directly" in mixed["hint"] and "tool_describe" in mixed["hint"]
    assert bad_limit.is_error and "'limit'" in payload(bad_limit)["error"]["message"]
