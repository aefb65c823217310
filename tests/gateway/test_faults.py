"""Upstream faults behind a real gateway process: crashes, kills, hangs, garbage, failed starts, list changes."""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp.client.session import IncomingMessage
from mcp_types import CallToolResult, ToolListChangedNotification

from tests.gateway.conftest import (
    LIMIT_S,
    SERVERS,
    TOOLSCOUT,
    fragile_server,
    gateway_log,
    http_client,
    http_gateway,
    payload,
    real_servers,
    stdio_gateway,
    text,
    write_config,
)

pytestmark = pytest.mark.anyio


def config_with_fragile(tmp_path: Path, **settings: Any) -> Path:
    servers = {"fragile": fragile_server(tmp_path / "fragile"), "time": real_servers(tmp_path)["time"]}
    settings.setdefault("mode", "on")
    settings.setdefault("restart_backoff_s", 0.2)
    return write_config(tmp_path / "gw.json", servers, **settings)


async def call(client: Any, name: str, arguments: dict[str, Any] | None = None) -> CallToolResult:
    result: CallToolResult = await client.call_tool("tool_call", {"name": name, "arguments": arguments or {}})
    return result


async def wait_for_file(path: Path) -> str:
    while not path.exists() or not path.read_text():  # bounded by the caller's fail_after
        await anyio.sleep(0.02)
    return path.read_text()


async def noticed_restart(url: str, server: str) -> None:
    """Wait until the gateway has noticed `server` died (bounded by the caller's fail_after)."""
    async with httpx2.AsyncClient() as http:
        while True:
            health = (await http.get(url.replace("/mcp", "/healthz"))).json()
            entry = next(entry for entry in health["upstreams"] if entry["name"] == server)
            if entry["state"] != "connected" or entry["restarts"]:
                return
            await anyio.sleep(0.02)


async def test_an_upstream_killed_mid_call_gives_a_clear_error_and_the_next_call_succeeds(tmp_path: Path) -> None:
    config = config_with_fragile(tmp_path)
    state = tmp_path / "fragile"
    outcome: list[CallToolResult] = []
    with anyio.fail_after(LIMIT_S):
        async with stdio_gateway(config) as client:
            first_pid = int(text(await call(client, "fragile__pid")))

            async def blocked_call() -> None:
                outcome.append(await call(client, "fragile__block"))

            async with anyio.create_task_group() as group:
                group.start_soon(blocked_call)
                busy_pid = int(await wait_for_file(state / "busy"))
                os.kill(busy_pid, signal.SIGKILL)
            after = await call(client, "fragile__pid")
    assert busy_pid == first_pid
    (killed,) = outcome
    assert killed.is_error
    error = payload(killed)
    assert error["error"]["code"] == "upstream_failed"
    assert error["error"]["server"] == "fragile"
    assert "'fragile' crashed or exited during the call to fragile__block" in error["error"]["message"]
    assert "restarting" in error["error"]["message"]
    assert error["tool_not_run"] is False
    assert not after.is_error
    assert int(text(after)) != first_pid


async def test_a_tool_that_crashes_its_server_is_reported_and_the_server_comes_back(tmp_path: Path) -> None:
    config = config_with_fragile(tmp_path)
    with anyio.fail_after(LIMIT_S):
        async with stdio_gateway(config) as client:
            crashed = await call(client, "fragile__crash")
            echoed = await call(client, "fragile__echo", {"text": "back again"})
    assert payload(crashed)["error"]["code"] == "upstream_failed"
    assert text(echoed) == "back again"


async def test_a_server_killed_while_idle_is_restarted_before_the_next_call(tmp_path: Path) -> None:
    config = config_with_fragile(tmp_path)
    with anyio.fail_after(LIMIT_S):
        async with http_gateway(config) as url, http_client(url) as client:
            first_pid = int((tmp_path / "fragile" / "pid").read_text())
            os.kill(first_pid, signal.SIGKILL)
            await noticed_restart(url, "fragile")
            after = await call(client, "fragile__pid")
            health = httpx2.get(url.replace("/mcp", "/healthz")).json()
    assert not after.is_error and int(text(after)) != first_pid
    fragile = next(entry for entry in health["upstreams"] if entry["name"] == "fragile")
    assert fragile["state"] == "connected"
    assert fragile["restarts"] == 1


async def test_a_hanging_call_times_out_naming_the_server_while_other_servers_keep_answering(
    tmp_path: Path,
) -> None:
    config = config_with_fragile(tmp_path, call_timeout_s=3)
    finished: list[str] = []
    results: dict[str, CallToolResult] = {}
    with anyio.fail_after(LIMIT_S):
        async with http_gateway(config) as url, http_client(url) as client:

            async def run(label: str, name: str, arguments: dict[str, Any]) -> None:
                results[label] = await call(client, name, arguments)
                finished.append(label)

            async with anyio.create_task_group() as group:
                group.start_soon(run, "hang", "fragile__hang", {})
                await run("time", "time__get_current_time", {"timezone": "Europe/Paris"})
            echoed = await call(client, "fragile__echo", {"text": "still here"})
    assert finished == ["time", "hang"]
    assert not results["time"].is_error and payload(results["time"])["timezone"] == "Europe/Paris"
    error = payload(results["hang"])["error"]
    assert error["code"] == "upstream_timeout"
    assert error["server"] == "fragile"
    assert "did not answer within 3 s" in error["message"]
    assert text(echoed) == "still here"
    log = (tmp_path / "gateway.log").read_text()
    dispatched = [line for line in log.splitlines() if "tool=fragile__hang" in line and "requested=" in line]
    assert dispatched and all("ok=False code=upstream_timeout" in line for line in dispatched)
    activity = [json.loads(line)["activity"] for line in log.splitlines() if '"activity"' in line]
    assert {"tool": "fragile__hang", "ok": False, "code": "upstream_timeout", "upstream": "fragile"}.items() <= next(
        event for event in activity if event["tool"] == "fragile__hang"
    ).items()


async def test_a_garbage_answer_is_a_clear_error_and_the_server_stays_usable(tmp_path: Path) -> None:
    config = config_with_fragile(tmp_path)
    with anyio.fail_after(LIMIT_S):
        async with stdio_gateway(config) as client:
            garbage = await call(client, "fragile__garbage")
            echoed = await call(client, "fragile__echo", {"text": "ok"})
    error = payload(garbage)["error"]
    assert error["code"] == "upstream_failed"
    assert "'fragile' gave an invalid answer to fragile__garbage" in error["message"]
    assert text(echoed) == "ok"


async def test_the_gateway_starts_without_a_broken_server_and_reports_it_and_its_bad_tools(tmp_path: Path) -> None:
    servers = {
        "ghost": {"command": str(tmp_path / "no-such-server")},
        "broken": {"command": sys.executable, "args": [str(SERVERS / "broken_listing.py")]},
        "time": real_servers(tmp_path)["time"],
    }
    config = write_config(tmp_path / "gw.json", servers, mode="on")
    with anyio.fail_after(LIMIT_S):
        async with http_gateway(config) as url, http_client(url) as client:
            health = httpx2.get(url.replace("/mcp", "/healthz")).json()
            added = await call(client, "broken__add", {"a": 2, "b": 3})
            now = await call(client, "time__get_current_time", {"timezone": "UTC"})
            status = await anyio.run_process([TOOLSCOUT, "status", "--url", url], check=False)
    by_name = {entry["name"]: entry for entry in health["upstreams"]}
    assert health["status"] == "degraded"
    assert by_name["ghost"]["state"] == "failed"
    assert "cannot start" in by_name["ghost"]["error"]
    assert by_name["time"]["state"] == "connected"
    assert by_name["broken"]["repaired"] == ["echo"]
    assert [problem["tool"] for problem in by_name["broken"]["problems"]] == ["broken", None]
    assert text(added) == "5" and not now.is_error
    report = status.stdout.decode()
    assert status.returncode == 1
    assert "ghost" in report and "failed" in report and "left out broken" in report


async def test_an_upstream_tool_list_change_reaches_the_catalog_and_the_client(tmp_path: Path) -> None:
    config = config_with_fragile(tmp_path)
    changed = anyio.Event()

    async def on_message(message: IncomingMessage) -> None:
        if isinstance(message, ToolListChangedNotification):
            changed.set()

    with anyio.fail_after(LIMIT_S):
        async with stdio_gateway(config, mode="legacy", message_handler=on_message) as client:
            await client.list_tools()
            grown = await call(client, "fragile__grow", {"name": "fresh_tool"})
            await changed.wait()
            found = payload(await client.call_tool("tool_search", {"query": "fresh_tool"}))
            ran = await call(client, "fragile__fresh_tool")
    assert text(grown) == "added fresh_tool"
    assert found["tools"][0]["name"] == "fragile__fresh_tool"
    assert text(ran) == "fresh_tool ran"


async def test_logs_name_the_real_tool_with_its_latency_and_never_a_secret(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FRAGILE_API_KEY", "upstream-secret-4f1c9a")
    fragile = fragile_server(tmp_path / "fragile") | {"env": {"API_KEY": "${FRAGILE_API_KEY}"}}
    token = "gateway-token-8c2e77d1b0"
    auth = {"tokens": {"ci": {"token": token}}}
    config = write_config(tmp_path / "gw.json", {"fragile": fragile}, mode="on", auth=auth)
    with anyio.fail_after(LIMIT_S):
        async with http_gateway(config) as url, http_client(url, token=token) as client:
            await call(client, "fragile__echo", {"text": "upstream-secret-4f1c9a"})
    records = gateway_log(config)
    calls = [record for record in records if record.get("event") == "tool_call"]
    assert [(record["tool"], record["server"], record["bridged"]) for record in calls] == [
        ("fragile__echo", "fragile", True)
    ]
    assert isinstance(calls[0]["latency_ms"], float) and calls[0]["argument_names"] == ["text"]
    logged = (tmp_path / "gateway.log").read_text()
    assert "upstream-secret-4f1c9a" not in logged
    assert token not in logged


async def test_a_server_that_keeps_crashing_is_shown_as_given_up_with_its_last_error_in_healthz_and_status(
    tmp_path: Path,
) -> None:
    crasher = {"command": sys.executable, "args": ["-c", "import sys; sys.exit(3)"]}
    config = write_config(tmp_path / "gw.json", {"crasher": crasher}, restart_backoff_s=0.05)
    async with http_gateway(config) as url:
        health_url = url.removesuffix("/mcp") + "/healthz"
        async with httpx2.AsyncClient(timeout=LIMIT_S) as http:
            with anyio.fail_after(LIMIT_S):
                while True:
                    (entry,) = (await http.get(health_url)).json()["upstreams"]
                    if entry.get("gave_up"):
                        break
                    await anyio.sleep(0.1)
        status = await anyio.run_process(
            [str(Path(sys.executable).with_name("toolscout")), "status", "--url", url], check=False
        )
    assert entry["state"] == "failed" and entry["restarts"] == 7
    assert "exited during start-up" in entry["error"]
    assert status.returncode == 1 and "gave up" in status.stdout.decode()
