"""The gateway records learned pairs under the caller's grant label, in the store its config names."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import pytest
from mcp.client import Client

from tests.gateway.conftest import LIMIT_S, SERVERS
from toolscout.gateway import Gateway, GatewayConfig
from toolscout.learning import SqliteUsageStore

pytestmark = pytest.mark.anyio


def config(tmp_path: Path, **learning: object) -> GatewayConfig:
    named = {"command": sys.executable, "args": [str(SERVERS / "named.py"), "find_recipes", "list_pantry"]}
    settings = {
        "store": "memory",
        "offload": False,
        "mode": "on",
        "learning": {"store": str(tmp_path / "u.db"), **learning},
    }
    return GatewayConfig.from_mapping({"mcpServers": {"kitchen": named}, "toolscout": settings})


async def test_a_search_then_a_successful_call_is_learned_under_the_callers_grant(tmp_path: Path) -> None:
    with anyio.fail_after(LIMIT_S):
        async with (
            Gateway(config(tmp_path, enabled=True), transport="stdio", wait_for_upstreams=True) as gateway,
            Client(gateway.server) as client,
        ):
            await client.call_tool("tool_search", {"query": "saved recipes with basil"})
            result = await client.call_tool(
                "tool_call", {"name": "kitchen__find_recipes", "arguments": {"query": "basil"}}
            )
            assert not result.is_error
    with SqliteUsageStore(tmp_path / "u.db") as store:
        pairs = store.pairs("local")
    assert [(p.request, p.tool, p.missed) for p in pairs] == [
        ("saved recipes with basil", "kitchen__find_recipes", False)
    ]


async def test_nothing_is_learned_when_learning_is_off(tmp_path: Path) -> None:
    with anyio.fail_after(LIMIT_S):
        async with (
            Gateway(config(tmp_path), transport="stdio", wait_for_upstreams=True) as gateway,
            Client(gateway.server) as client,
        ):
            await client.call_tool("tool_search", {"query": "saved recipes with basil"})
            await client.call_tool("tool_call", {"name": "kitchen__find_recipes", "arguments": {"query": "basil"}})
    assert not (tmp_path / "u.db").exists()
