"""`UpstreamPool` in-process, over the real fragile test server: start-up, restarts, re-listing."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

import anyio
import pytest
from mcp_types import TextContent

from tests.gateway.conftest import LIMIT_S, SERVERS, fragile_server, slow_server
from toolscout.gateway import GatewayConfig
from toolscout.gateway._internal import UpstreamError
from toolscout.gateway._upstream._pool import UpstreamPool
from toolscout.gateway._upstream._remembered import RememberedListings

pytestmark = pytest.mark.anyio


def config(tmp_path: Path, **servers: object) -> GatewayConfig:
    return GatewayConfig.from_mapping(
        {
            "mcpServers": {"fragile": fragile_server(tmp_path / "fragile"), **servers},
            "toolscout": {"restart_backoff_s": 0.1, "call_timeout_s": 30},
        }
    )


async def no_change() -> None:
    pass


def text(result: object) -> str:
    content = getattr(result, "content", None)
    assert content and isinstance(content[0], TextContent)
    return content[0].text


async def test_the_pool_starts_with_the_servers_that_work_and_reports_the_rest(tmp_path: Path) -> None:
    with anyio.fail_after(LIMIT_S):
        async with UpstreamPool(config(tmp_path, ghost={"command": "/no/such/server"}), on_change=no_change) as pool:
            await pool.started()
            status = {entry.name: entry for entry in pool.status()}
            with pytest.raises(UpstreamError) as caught:
                await pool.call("ghost", "anything", {})
    assert status["fragile"].state == "connected" and status["fragile"].tools == 7
    assert status["fragile"].protocol_version is not None
    assert status["ghost"].state == "failed" and status["ghost"].tools == 0
    assert status["ghost"].error is not None and "cannot start '/no/such/server'" in status["ghost"].error
    assert caught.value.kind == "start" and "is not running" in str(caught.value)
    assert pool.route("fragile__echo") == ("fragile", "echo") and pool.route("ghost__x") is None


async def test_a_crashed_server_is_restarted_and_keeps_its_tools_meanwhile(tmp_path: Path) -> None:
    with anyio.fail_after(LIMIT_S):
        async with UpstreamPool(config(tmp_path), on_change=no_change) as pool:
            before = int(text(await pool.call("fragile", "pid", {})))
            with pytest.raises(UpstreamError) as crashed:
                await pool.call("fragile", "crash", {})
            tools_while_down = len(pool.tools())
            after = int(text(await pool.call("fragile", "pid", {})))
            (status,) = pool.status()
    assert crashed.value.kind == "closed"
    assert tools_while_down == 7
    assert after != before
    assert status.state == "connected" and status.restarts == 1 and status.error is None


async def test_a_killed_server_is_noticed_without_any_call(tmp_path: Path) -> None:
    with anyio.fail_after(LIMIT_S):
        async with UpstreamPool(config(tmp_path), on_change=no_change) as pool:
            await pool.started()
            pid = int((tmp_path / "fragile" / "pid").read_text())
            os.kill(pid, signal.SIGKILL)
            while pool.status()[0].restarts == 0 or pool.status()[0].state != "connected":
                await anyio.sleep(0.02)  # bounded by fail_after: the supervisor restarts it on its own
            again = int(text(await pool.call("fragile", "pid", {})))
    assert again != pid


async def test_a_tool_list_change_is_re_listed_and_reported(tmp_path: Path) -> None:
    changes = 0
    grown = anyio.Event()

    async def on_change() -> None:
        nonlocal changes
        changes += 1
        if changes == 2:
            grown.set()

    with anyio.fail_after(LIMIT_S):
        async with UpstreamPool(config(tmp_path), on_change=on_change) as pool:
            await pool.call("fragile", "grow", {"name": "late"})
            await grown.wait()
            ran = await pool.call("fragile", "late", {})
            names = [tool.spec.name for tool in pool.tools()]
    assert "fragile__late" in names and pool.route("fragile__late") == ("fragile", "late")
    assert text(ran) == "late ran"


async def test_a_streamable_http_upstream_is_pooled_and_called_like_a_stdio_one(tmp_path: Path) -> None:
    command = [sys.executable, str(SERVERS / "broken_listing.py"), "--http", "pool-token-0123456789"]
    async with await anyio.open_process(command) as process:
        assert process.stdout is not None
        with anyio.fail_after(LIMIT_S):
            url = (await process.stdout.receive()).decode().strip()
            remote = {"url": url, "headers": {"Authorization": "Bearer pool-token-0123456789"}}
            async with UpstreamPool(config(tmp_path, remote=remote), on_change=no_change) as pool:
                added = await pool.call("remote", "add", {"a": 20, "b": 22})
                status = {entry.name: entry for entry in pool.status()}
        process.terminate()
    assert text(added) == "42"
    assert status["remote"].transport == "http" and status["remote"].state == "connected"
    assert status["remote"].repaired == ("echo",)


async def test_a_server_that_keeps_crashing_is_retried_with_backoff_then_marked_failed_with_its_last_error(
    tmp_path: Path,
) -> None:
    crasher = {"command": sys.executable, "args": ["-c", "import sys; sys.exit(3)"]}
    setup = GatewayConfig.from_mapping({"mcpServers": {"crasher": crasher}, "toolscout": {"restart_backoff_s": 0.05}})
    with anyio.fail_after(LIMIT_S):
        async with UpstreamPool(setup, on_change=no_change, max_restarts=3) as pool:
            while not pool.status()[0].gave_up:
                await anyio.sleep(0.02)  # bounded by fail_after: three failures in a row end the retries
            status = pool.status()[0]
            with pytest.raises(UpstreamError) as caught:
                await pool.call("crasher", "anything", {})
    assert status.state == "failed" and status.restarts == 2
    assert status.error is not None and "exited during start-up" in status.error
    assert "gave up after 3 failed attempts in a row" in str(caught.value) and status.error in str(caught.value)


async def test_a_remembered_listing_stands_in_until_the_server_attaches_and_is_not_waited_for(tmp_path: Path) -> None:
    delay = tmp_path / "delay_s"
    delay.write_text("0")
    setup = GatewayConfig.from_mapping({"mcpServers": {"slow": slow_server(tmp_path / "slow", delay)}})
    remembered = RememberedListings(tmp_path / "cache", separator="__")
    never = anyio.current_time() + LIMIT_S
    with anyio.fail_after(LIMIT_S):
        async with UpstreamPool(setup, on_change=no_change, remembered=remembered) as pool:
            await pool.attached(until=never)  # nothing remembered yet: waits for the first listing
            first_run = [tool.spec.name for tool in pool.tools()]
        delay.write_text(str(LIMIT_S * 2))  # the same entry, far slower this time
        async with UpstreamPool(setup, on_change=no_change, remembered=remembered) as pool:
            await pool.attached(until=never)  # returns at once: the remembered tools stand in
            status = pool.status()[0]
            standing_in = [tool.spec.name for tool in pool.tools()]
            route = pool.route("slow__ping")
    assert first_run == ["slow__ping"]
    assert status.state == "starting" and status.tools == 1
    assert standing_in == ["slow__ping"] and route == ("slow", "ping")


async def test_an_edited_server_entry_starts_without_the_listing_of_the_old_one(tmp_path: Path) -> None:
    remembered = RememberedListings(tmp_path / "cache", separator="__")
    before = GatewayConfig.from_mapping({"mcpServers": {"slow": slow_server(tmp_path / "slow", 0)}})
    after = GatewayConfig.from_mapping({"mcpServers": {"slow": slow_server(tmp_path / "slow", 0, "pong")}})
    with anyio.fail_after(LIMIT_S):
        async with UpstreamPool(before, on_change=no_change, remembered=remembered) as pool:
            await pool.started()
    assert remembered.recall("slow", before.servers["slow"]) is not None
    assert remembered.recall("slow", after.servers["slow"]) is None
