"""A hostile stdio upstream (servers/hostile.py) cannot flood the gateway, its log or other clients."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError

from tests.conftest import free_port
from toolscout.gateway import GatewayConfig
from toolscout.gateway._internal import StdioServer, Upstream, UpstreamError, UpstreamPool

from .conftest import (
    LIMIT_S,
    SERVERS,
    TOOLSCOUT,
    gateway_log,
    http_client,
    http_gateway,
    payload,
    text,
    write_config,
)

pytestmark = pytest.mark.anyio

HOSTILE = str(SERVERS / "hostile.py")
MB = 1 << 20


def hostile(*args: str) -> dict[str, Any]:
    return {"command": sys.executable, "args": [HOSTILE, *args]}


def pool_config(tmp_path: Path, *args: str, **settings: Any) -> GatewayConfig:
    return GatewayConfig.from_mapping(
        {"mcpServers": {"hostile": hostile(*args)}, "toolscout": {"restart_backoff_s": 0.1, **settings}},
        base_dir=tmp_path,
    )


async def no_change() -> None:
    pass


async def test_an_upstream_listing_too_many_tools_keeps_the_first_ones_and_says_which_limit(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    config = pool_config(tmp_path, "--tools", "100", upstream_max_tools=20)
    with anyio.fail_after(LIMIT_S):
        async with UpstreamPool(config, on_change=no_change) as pool:
            await pool.started()
            (status,) = pool.status()
    assert status.state == "connected" and status.tools == 20
    assert [tool.spec.name for tool in pool.tools()][:4] == [
        "hostile__echo",
        "hostile__blob",
        "hostile__sleep",
        "hostile__tool_0",
    ]
    (problem,) = status.problems
    assert "upstream_max_tools" in problem.message and "20" in problem.message
    assert any(
        "'hostile'" in record.getMessage() and "upstream_max_tools" in record.getMessage() for record in caplog.records
    )


async def test_huge_descriptions_are_clipped_and_huge_schemas_left_out_naming_server_and_limit(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    config = pool_config(
        tmp_path,
        "--description-chars",
        "2000000",
        "--schema-bytes",
        "300000",
        upstream_max_description_chars=4_000,
        upstream_max_schema_bytes=100_000,
    )
    with anyio.fail_after(LIMIT_S):
        async with UpstreamPool(config, on_change=no_change) as pool:
            await pool.started()
            (status,) = pool.status()
            tools = {tool.spec.name: tool.spec for tool in pool.tools()}
    wordy = tools["hostile__wordy_0"]
    assert wordy.description.startswith("word word") and len(wordy.description) <= 4_000
    assert "hostile__bloated" not in tools
    assert [(problem.tool, "upstream_max_schema_bytes" in problem.message) for problem in status.problems] == [
        ("bloated", True)
    ]
    messages = [record.getMessage() for record in caplog.records]
    assert any("'hostile'" in message and "upstream_max_description_chars" in message for message in messages)


async def test_tool_names_with_bidi_or_zero_width_characters_are_left_out_like_control_characters() -> None:
    with anyio.fail_after(LIMIT_S):
        async with Upstream("hostile", StdioServer(command=sys.executable, args=(HOSTILE, "--odd-names"))) as upstream:
            listing = await upstream.list_tools()
    assert [tool.upstream_name for tool in listing.tools] == ["echo", "blob", "sleep"]
    assert len(listing.problems) == 3 and all("is invalid" in problem.message for problem in listing.problems)


@pytest.mark.parametrize("layout", [{}, {"id_last": True}], ids=["id_first", "id_last"])
async def test_answers_over_the_message_cap_fail_only_their_own_calls_and_never_stop_the_server(
    tmp_path: Path, layout: dict[str, Any]
) -> None:
    """One caller's oversize answers are its own error: the server is not stopped (so never given up on, whatever
    ``max_restarts``), and another call in flight on it gets its answer. ``id_last`` is the TypeScript SDK's order
    (``result`` first, ``jsonrpc`` and ``id`` after it), the real filesystem server's."""
    pid_file = tmp_path / "pid"
    config = pool_config(tmp_path, "--pid", str(pid_file), upstream_max_message_bytes=MB, max_restarts=2)
    refused: list[UpstreamError] = []
    slow: list[Any] = []
    with anyio.fail_after(LIMIT_S):
        async with UpstreamPool(config, on_change=no_change) as pool:
            await pool.started()
            first_pid = int(pid_file.read_text())
            async with anyio.create_task_group() as group:

                async def in_flight() -> None:
                    slow.append(await pool.call("hostile", "sleep", {"s": 4}))

                group.start_soon(in_flight)
                await anyio.sleep(0.5)
                for _ in range(4):
                    with pytest.raises(UpstreamError) as caught:
                        await pool.call("hostile", "blob", {"mb": 2, **layout})
                    refused.append(caught.value)
            after = await pool.call("hostile", "echo", {"text": "still here"})
            (status,) = pool.status()
    for error in refused:
        assert error.kind == "too_large" and "upstream_max_message_bytes (1 MiB)" in str(error), error
    assert slow[0].content[0].text == "slept" and after.content[0].text == "still here"
    assert int(pid_file.read_text()) == first_pid
    assert (status.state, status.restarts, status.gave_up) == ("connected", 0, False)


async def test_a_notification_over_the_message_cap_is_dropped_and_costs_no_call(tmp_path: Path) -> None:
    config = pool_config(tmp_path, upstream_max_message_bytes=MB)
    with anyio.fail_after(LIMIT_S):
        async with UpstreamPool(config, on_change=no_change) as pool:
            await pool.started()
            notified = await pool.call("hostile", "blob", {"mb": 2, "notify": True})
            (status,) = pool.status()
    assert notified.content[0].text == "notified"
    assert (status.state, status.restarts) == ("connected", 0)


async def test_a_result_under_the_cap_still_arrives_whole(tmp_path: Path) -> None:
    config = pool_config(tmp_path, upstream_max_message_bytes=8 * MB)
    with anyio.fail_after(LIMIT_S):
        async with UpstreamPool(config, on_change=no_change) as pool:
            await pool.started()
            result = await pool.call("hostile", "blob", {"mb": 3})
    assert len(result.content[0].text) == 3 * MB


async def test_a_rejected_tool_name_cannot_forge_lines_in_the_text_log(tmp_path: Path) -> None:
    config = write_config(tmp_path / "gateway.json", {"hostile": hostile("--odd-names")})
    params = StdioServerParameters(
        command=TOOLSCOUT, args=["serve", str(config), "-v", "--wait-for-upstreams"], env=dict(os.environ)
    )
    log = tmp_path / "text.log"
    with anyio.fail_after(LIMIT_S), log.open("w") as errlog:
        async with Client(stdio_client(params, errlog=errlog)) as client:
            await client.list_tools()
    written = log.read_text()
    assert "\x1b" not in written
    assert not any(line.startswith("12:00:00 ERROR toolscout:") for line in written.splitlines())
    assert "forged\\n12:00:00" in written


async def test_healthz_answers_while_the_page_computes_a_large_budget(tmp_path: Path) -> None:
    config = write_config(tmp_path / "gateway.json", {"hostile": hostile("--tools", "3000")})
    async with http_gateway(config) as url, httpx2.AsyncClient(timeout=LIMIT_S) as http:
        base = url.removesuffix("/mcp")
        async with http_client(url) as client:
            await client.list_tools()
        budget_done = anyio.Event()
        answered_meanwhile = 0
        budgets: list[Any] = []

        async def budget() -> None:
            budgets.append((await http.get(f"{base}/ui/api/budget")).json())
            budget_done.set()

        with anyio.fail_after(LIMIT_S):
            async with anyio.create_task_group() as group:
                group.start_soon(budget)
                while not budget_done.is_set():
                    response = await http.get(f"{base}/healthz")
                    assert response.status_code == 200
                    if not budget_done.is_set():
                        answered_meanwhile += 1
            budgets.append((await http.get(f"{base}/ui/api/budget")).json())
    assert answered_meanwhile >= 3
    assert budgets[0] == budgets[1] and budgets[0]["servers"][0]["tools"] == 3003


async def test_describe_through_the_gateway_clips_a_huge_description(tmp_path: Path) -> None:
    config = write_config(
        tmp_path / "gateway.json",
        {"hostile": hostile("--description-chars", "3000000")},
        mode="on",
        describe_chars=2_000,
    )
    async with http_gateway(config) as url, http_client(url) as client:
        described = payload(await client.call_tool("tool_describe", {"names": ["hostile__wordy_0"]}))
    (entry,) = described["tools"]
    assert len(entry["description"]) <= 2_000 and len(json.dumps(described)) < 10_000


async def test_the_model_hears_which_limit_a_too_large_result_broke(tmp_path: Path) -> None:
    config = write_config(tmp_path / "gateway.json", {"hostile": hostile()}, mode="off", upstream_max_message_bytes=MB)
    async with http_gateway(config) as url, http_client(url) as client:
        result = await client.call_tool("hostile__blob", {"mb": 3})
        after = await client.call_tool("hostile__echo", {"text": "back again"})
    error = payload(result)["error"]
    assert result.is_error and error["code"] == "upstream_result_too_large"
    assert "upstream_max_message_bytes (1 MiB)" in error["message"]
    assert text(after) == "back again"


async def test_resource_reads_over_the_message_cap_fail_naming_the_limit_and_cost_no_other_client(
    tmp_path: Path,
) -> None:
    """More oversize reads than ``max_restarts`` through a real gateway: each fails alone, the server is never given
    up on, and another client's call in flight on it meanwhile is answered."""
    config = write_config(
        tmp_path / "gateway.json",
        {"hostile": hostile("--resources", "1")},
        mode="off",
        upstream_max_message_bytes=MB,
        max_restarts=2,
        restart_backoff_s=0.1,
    )
    slow: list[Any] = []
    errors: list[MCPError] = []
    async with http_gateway(config) as url, http_client(url) as victim, http_client(url) as caller:
        with anyio.fail_after(LIMIT_S):
            async with anyio.create_task_group() as group:

                async def in_flight() -> None:
                    slow.append(await victim.call_tool("hostile__sleep", {"s": 4}))

                group.start_soon(in_flight)
                await anyio.sleep(0.5)
                for _ in range(4):
                    with pytest.raises(MCPError) as caught:
                        await caller.read_resource("toolscout://hostile/res://blob/2")
                    errors.append(caught.value)
            small = await caller.read_resource("toolscout://hostile/res://item/0")
            async with httpx2.AsyncClient() as http:
                (health,) = (await http.get(url.removesuffix("/mcp") + "/healthz")).json()["upstreams"]
    assert all("upstream_max_message_bytes" in error.error.message for error in errors), errors
    assert text(slow[0]) == "slept"
    assert small.contents[0].text == "res://item/0"
    assert (health["state"], health["restarts"], health["gave_up"]) == ("connected", 0, False)


async def every_resource(client: Client) -> list[str]:
    """Every URI of ``resources/list``, page after page."""
    uris: list[str] = []
    cursor: str | None = None
    while True:
        listed = await client.list_resources(cursor=cursor)
        uris += [resource.uri for resource in listed.resources]
        if (cursor := listed.next_cursor) is None:
            return uris


async def test_resource_and_prompt_listings_are_capped_read_once_and_read_again_when_the_upstream_says_so(
    tmp_path: Path,
) -> None:
    """Two clients paging through 450 resources (a cap of 300) and listing prompts read the upstream once; after it
    announces a change the next listing reads it again (15 prompts grown by 10, past a cap of 20)."""
    count = tmp_path / "count"
    server = hostile("--resources", "450", "--prompts", "15", "--count", str(count))
    config = write_config(
        tmp_path / "gateway.json", {"hostile": server}, mode="off", upstream_max_resources=300, upstream_max_prompts=20
    )
    async with http_gateway(config) as url, http_client(url) as client, http_client(url) as other:
        with anyio.fail_after(LIMIT_S):
            first = await every_resource(client)
            second = await every_resource(other)
            prompts = [(await each.list_prompts()).prompts for each in (client, other)]
            reads = count.read_text().splitlines()
            await client.call_tool("hostile__grow", {"n": 10})
            while len(grown := (await other.list_prompts()).prompts) == 15:
                await anyio.sleep(0.1)
            after = await every_resource(client)
            reread = count.read_text().splitlines()
    assert first == second == after == [f"toolscout://hostile/res://item/{n}" for n in range(300)]
    assert [len(listed) for listed in prompts] == [15, 15] and len(grown) == 20
    assert sorted(reads) == ["prompts/list", "resources/list"]
    assert sorted(reread) == ["prompts/list", "prompts/list", "resources/list", "resources/list"]
    warnings = [record["message"] for record in gateway_log(config) if record.get("level") == "warning"]
    for setting in ("upstream_max_resources", "upstream_max_prompts"):
        assert any("'hostile'" in message and setting in message for message in warnings), (setting, warnings)


async def test_a_listing_reads_no_upstream_page_past_the_cap(tmp_path: Path) -> None:
    """450 resources in pages of 150 with a cap of 300: the first two pages reach the cap, the third is never asked."""
    count = tmp_path / "count"
    server = hostile("--resources", "450", "--resource-page", "150", "--count", str(count))
    config = write_config(tmp_path / "gateway.json", {"hostile": server}, mode="off", upstream_max_resources=300)
    async with http_gateway(config) as url, http_client(url) as client:
        with anyio.fail_after(LIMIT_S):
            listed = await every_resource(client)
            reads = count.read_text().splitlines()
    assert listed == [f"toolscout://hostile/res://item/{n}" for n in range(300)]
    assert reads == ["resources/list", "resources/list"]
    warnings = [record["message"] for record in gateway_log(config) if record.get("level") == "warning"]
    assert any("'hostile'" in message and "upstream_max_resources" in message for message in warnings), warnings


@asynccontextmanager
async def hostile_http(*args: str) -> AsyncIterator[dict[str, Any]]:
    """The hostile server over Streamable HTTP; yields its gateway server entry once it accepts connections."""
    port = free_port()
    command = [sys.executable, HOSTILE, "--http", str(port), *args]
    async with await anyio.open_process(command, stdout=None, stderr=None) as process:
        try:
            with anyio.fail_after(LIMIT_S):
                while True:
                    try:
                        await (await anyio.connect_tcp("127.0.0.1", port)).aclose()
                        break
                    except OSError:
                        await anyio.sleep(0.05)
            yield {"url": f"http://127.0.0.1:{port}/mcp"}
        finally:
            process.kill()  # uvicorn would wait for the endless answer to end


def http_pool_config(tmp_path: Path, server: dict[str, Any], **settings: Any) -> GatewayConfig:
    return GatewayConfig.from_mapping(
        {"mcpServers": {"hostile": server}, "toolscout": {"restart_backoff_s": 0.1, **settings}}, base_dir=tmp_path
    )


@pytest.mark.parametrize("answers", ["sse", "json"])
async def test_an_http_upstream_answer_over_the_message_cap_is_refused_while_it_streams_naming_the_limit(
    tmp_path: Path, answers: str
) -> None:
    """`endless` never finishes its message: only a count kept while it streams can refuse it."""
    flags = ("--json-response",) if answers == "json" else ()
    async with hostile_http(*flags) as server:
        config = http_pool_config(tmp_path, server, upstream_max_message_bytes=MB, call_timeout_s=LIMIT_S * 2)
        with anyio.fail_after(LIMIT_S):
            async with UpstreamPool(config, on_change=no_change) as pool:
                await pool.started()
                with pytest.raises(UpstreamError) as endless:
                    await pool.call("hostile", "endless", {})
                with pytest.raises(UpstreamError) as blob:
                    await pool.call("hostile", "blob", {"mb": 3})
                after = await pool.call("hostile", "echo", {"text": "still here"})
    for caught in (endless.value, blob.value):
        assert caught.kind == "too_large"
        assert "upstream_max_message_bytes (1 MiB)" in str(caught) and "'hostile'" in str(caught)
    assert after.content[0].text == "still here"


@pytest.mark.parametrize("answers", ["sse", "json"])
async def test_an_http_upstream_answer_under_the_cap_arrives_whole(tmp_path: Path, answers: str) -> None:
    flags = ("--json-response",) if answers == "json" else ()
    async with hostile_http(*flags) as server:
        config = http_pool_config(tmp_path, server, upstream_max_message_bytes=8 * MB)
        with anyio.fail_after(LIMIT_S):
            async with UpstreamPool(config, on_change=no_change) as pool:
                await pool.started()
                result = await pool.call("hostile", "blob", {"mb": 3})
    assert len(result.content[0].text) == 3 * MB


def cpu_s(pid: int) -> float:
    """CPU seconds (user and system, every thread) process `pid` has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads CPU time from /proc")
@pytest.mark.parametrize("mb", [12, 40])
async def test_a_timed_out_call_whose_huge_answer_comes_late_stops_costing_cpu_and_the_server_answers_again(
    tmp_path: Path, mb: int, caplog: pytest.LogCaptureFixture
) -> None:
    """12 MiB (under the cap) is read once, off the loop, and dropped; 40 MiB (over it) is read through and dropped.

    Either way the work it costs after the timeout is bounded: under two seconds of CPU (counted, not timed, so a
    loaded machine does not change it) until the server answers again and a second after, where the SDK's
    quadratic line splitter spent about eight on 40 MiB (and kept a core busy for minutes on 200).
    """
    config = pool_config(tmp_path, call_timeout_s=0.5, upstream_max_message_bytes=16 * MB)
    with anyio.fail_after(LIMIT_S):
        async with UpstreamPool(config, on_change=no_change) as pool:
            await pool.started()
            with pytest.raises(UpstreamError) as late:
                await pool.call("hostile", "blob", {"mb": mb, "late_s": 1})
            before = cpu_s(os.getpid())
            await anyio.sleep(1.5)  # the answer is written half a second in
            while True:  # the echo's answer comes after the late one on the same pipe
                try:
                    after = await pool.call("hostile", "echo", {"text": "still here"})
                    break
                except UpstreamError:
                    await anyio.sleep(0.2)
            await anyio.sleep(1)
            used = cpu_s(os.getpid()) - before
    assert late.value.kind == "timeout"
    assert after.content[0].text == "still here"
    assert used < 2.0, f"the gateway used {used:.2f} s of CPU after the call timed out"
    refused = any("upstream_max_message_bytes" in record.getMessage() for record in caplog.records)
    assert refused == (mb > 16)  # the late answer did arrive: over the cap it was refused
