"""`UpstreamPool` in-process, over the real fragile test server: start-up, restarts, re-listing."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

import anyio
import pytest
from mcp_types import TextContent

from tests.gateway.conftest import LIMIT_S, SERVERS, fragile_server
from toolscout.gateway import GatewayConfig, UpstreamError
from toolscout.gateway._pool import UpstreamPool

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


async def test_held_upstreams_start_when_released_or_at_the_longest_hold(tmp_path: Path) -> None:
    release = anyio.Event()
    held = UpstreamPool(config(tmp_path), on_change=no_change, hold_until=release, hold_at_most_s=LIMIT_S)
    capped = UpstreamPool(
        config(tmp_path / "capped"), on_change=no_change, hold_until=anyio.Event(), hold_at_most_s=0.2
    )
    pid_file = tmp_path / "fragile" / "pid"
    with anyio.fail_after(LIMIT_S):
        async with held:
            await anyio.sleep(1.0)
            not_started = [status.state for status in held.status()]
            spawned_while_held = pid_file.exists()
            release.set()
            await held.started()
            released = [status.state for status in held.status()]
        async with capped:
            await capped.started()  # never released: starts after 0.2 s anyway
            capped_states = [status.state for status in capped.status()]
    assert not_started == ["starting"] and not spawned_while_held
    assert released == ["connected"] and capped_states == ["connected"]
