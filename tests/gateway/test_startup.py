"""Start-up with slow upstreams: the gateway answers at once and its catalog grows as they attach."""

from __future__ import annotations

import json
import os
import socket
import subprocess
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import pytest
from mcp.client import Client
from mcp.client.session import IncomingMessage
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp_types import ToolListChangedNotification

from tests.gateway.conftest import LIMIT_S, TOOLSCOUT, names, slow_server, text, write_config
from toolscout.gateway import GatewayConfig
from toolscout.gateway._upstream._pool import UpstreamPool

pytestmark = pytest.mark.anyio


async def no_change() -> None:
    pass


@asynccontextmanager
async def gateway_client(config: Path, changed: anyio.Event) -> AsyncIterator[Client]:
    """A 2025-era client of the gateway over stdio (this checkout's sources); `changed` is set on a list change."""

    async def on_message(message: IncomingMessage) -> None:
        if isinstance(message, ToolListChangedNotification):
            changed.set()

    params = StdioServerParameters(command=TOOLSCOUT, args=["serve", str(config), "-v"], env=dict(os.environ))
    with (config.parent / "gateway.log").open("a") as log:
        async with Client(stdio_client(params, errlog=log), mode="legacy", message_handler=on_message) as client:
            yield client


async def test_tools_list_answers_before_a_slow_upstream_attaches_then_a_list_change_brings_its_tools(
    tmp_path: Path,
) -> None:
    servers = {"slow": slow_server(tmp_path / "slow", 10)}
    config = write_config(tmp_path / "gw.json", servers)
    changed = anyio.Event()
    with anyio.fail_after(LIMIT_S):
        async with gateway_client(config, changed) as client:
            first = names(await client.list_tools())
            search = json.loads(text(await client.call_tool("tool_search", {"query": "pong"})))
            await changed.wait()
            later = names(await client.list_tools())
    assert "slow__ping" not in first
    assert search["servers_not_ready"] == [{"server": "slow", "state": "starting"}]
    assert "before deciding a capability is missing" in search["servers_note"]
    assert "slow__ping" in later


async def test_upstreams_start_no_more_than_start_concurrency_at_a_time(tmp_path: Path) -> None:
    servers = {name: slow_server(tmp_path / name, 1) for name in ("a", "b", "c")}
    config = GatewayConfig.from_mapping({"mcpServers": servers})
    spawned_while_none_attached: set[int] = set()
    with anyio.fail_after(LIMIT_S):
        async with UpstreamPool(config, on_change=no_change, start_concurrency=1) as pool:
            while not all(status.state == "connected" for status in pool.status()):
                if not any(status.state == "connected" for status in pool.status()):
                    spawned_while_none_attached.add(sum((tmp_path / name / "pid").exists() for name in servers))
                await anyio.sleep(0.01)
    assert max(spawned_while_none_attached) == 1


async def test_an_upstream_slower_than_the_handshake_deadline_keeps_trying_and_attaches(tmp_path: Path) -> None:
    servers = {"slow": slow_server(tmp_path / "slow", 1.5)}
    config = GatewayConfig.from_mapping(
        {"mcpServers": servers, "toolscout": {"connect_timeout_s": 1, "restart_backoff_s": 0.1}}
    )
    with anyio.fail_after(LIMIT_S):
        async with UpstreamPool(config, on_change=no_change) as pool:
            await pool.started()
            first = pool.status()[0]
            while pool.status()[0].state != "connected":
                await anyio.sleep(0.05)
            attached = pool.status()[0]
    assert first.state == "failed" and first.error is not None and "handshake" in first.error
    assert attached.tools == 1 and attached.restarts >= 1


def test_a_port_in_use_is_one_line_naming_it_and_no_upstream_starts(tmp_path: Path) -> None:
    config = write_config(tmp_path / "gw.json", {"slow": slow_server(tmp_path / "slow", 0)})
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [TOOLSCOUT, "serve", str(config), "--transport", "http", "--port", str(port)],
            capture_output=True,
            text=True,
            timeout=LIMIT_S,
            env=dict(os.environ),
        )
    errors = [line for line in done.stderr.splitlines() if "Error" in line or "Traceback" in line]
    assert done.returncode != 0
    assert len(errors) == 1 and f"127.0.0.1:{port}" in errors[0] and "--port" in errors[0], done.stderr
    assert not (tmp_path / "slow" / "pid").exists()
