"""`Gateway` in-process, driven by the SDK's in-memory client (the subprocess tests cover the wire)."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import pytest
from mcp.client import Client
from mcp.shared.exceptions import MCPError

from tests.gateway.conftest import LIMIT_S, SERVERS, names
from toolscout import SqliteStore
from toolscout.gateway import Gateway, GatewayConfig

pytestmark = pytest.mark.anyio


def config(**settings: object) -> GatewayConfig:
    paged = {"command": sys.executable, "args": [str(SERVERS / "paged.py")]}
    settings = {"store": "memory", "offload": False, **settings}
    return GatewayConfig.from_mapping({"mcpServers": {"paged": paged}, "toolscout": settings})


async def test_a_2025_client_learns_the_list_can_change_and_gets_the_guidance(tmp_path: Path) -> None:
    with anyio.fail_after(LIMIT_S):
        async with (
            Gateway(config(mode="on"), transport="stdio", wait_for_upstreams=True) as gateway,
            Client(gateway.server, mode="legacy") as client,
        ):
            capabilities = client.server_capabilities
            instructions = client.instructions or ""
            listed = names(await client.list_tools())
    assert capabilities.tools is not None and capabilities.tools.list_changed
    assert "tool_search" in instructions and "paged__alpha" in instructions
    assert listed == ["tool_search", "tool_describe", "tool_call"]


async def test_without_deferral_every_tool_is_listed_and_there_is_no_guidance(tmp_path: Path) -> None:
    with anyio.fail_after(LIMIT_S):
        async with (
            Gateway(config(mode="off"), transport="stdio", wait_for_upstreams=True) as gateway,
            Client(gateway.server) as client,
        ):
            listed = names(await client.list_tools())
            instructions = client.instructions
    assert listed == [f"paged__{name}" for name in ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot")]
    assert instructions is None


async def test_a_failing_session_store_is_a_clear_error_not_a_crash(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "s.db")
    with anyio.fail_after(LIMIT_S):
        async with Gateway(config(mode="on"), transport="stdio", wait_for_upstreams=True, store=store) as gateway:
            async with Client(gateway.server) as client:
                store.close()
                # The bridge style lists no discoveries: its tools/list never needs the store.
                assert names(await client.list_tools()) == ["tool_search", "tool_describe", "tool_call"]
                with pytest.raises(MCPError) as calling:
                    await client.call_tool("tool_search", {"query": "alpha"})
    assert "session store is unavailable" in str(calling.value)
    assert "s.db" not in str(calling.value)


async def test_a_failing_store_fails_the_reveal_listing_clearly(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "s.db")
    with anyio.fail_after(LIMIT_S):
        async with Gateway(
            config(mode="on", style="reveal"), transport="stdio", wait_for_upstreams=True, store=store
        ) as gateway:
            async with Client(gateway.server) as client:
                store.close()
                with pytest.raises(MCPError) as listing:
                    await client.list_tools()
    assert "session store is unavailable" in str(listing.value)
    assert "s.db" not in str(listing.value)
