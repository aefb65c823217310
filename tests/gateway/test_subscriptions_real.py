"""Resource subscriptions and list changes through a real ``toolscout serve``: one client never holds up another.

The upstream is ``servers/subscribing.py`` (a 2025-era server whose subscription to a ``slow`` URI takes
600 s, and whose tools send updates and list changes on demand), which logs every message it receives.
"""

from __future__ import annotations

import json
import socket
import sys
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import anyio
import httpx2
import pytest
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp_types import (
    EmptyResult,
    PromptListChangedNotification,
    ResourceListChangedNotification,
    ResourceUpdatedNotification,
    SubscribeRequest,
    SubscribeRequestParams,
    UnsubscribeRequest,
    UnsubscribeRequestParams,
)

from tests.gateway.conftest import LIMIT_S, SERVERS, gateway_log, http_client, http_gateway, write_config

RELIST_EVERY_S = 2.0
"""The gateway re-lists a server announcing tool list changes at most this often."""

pytestmark = pytest.mark.anyio


def subscribing(log: Path, *extra: str) -> dict[str, Any]:
    return {"command": sys.executable, "args": [str(SERVERS / "subscribing.py"), str(log), *extra]}


def received(log: Path, method: str) -> list[str]:
    """The URIs of the `method` requests the upstream received, in order."""
    if not log.exists():
        return []
    messages = [json.loads(line) for line in log.read_text().splitlines()]
    return [message["params"]["uri"] for message in messages if message.get("method") == method]


async def until(check: Any) -> None:
    while not check():
        await anyio.sleep(0.05)


@asynccontextmanager
async def legacy_client(url: str, **options: Any) -> AsyncIterator[Client]:
    async with (
        httpx2.AsyncClient(timeout=httpx2.Timeout(LIMIT_S)) as http,
        Client(streamable_http_client(url, http_client=http), mode="legacy", **options) as client,
    ):
        yield client


async def subscribe(client: Client, uri: str) -> None:
    await client.session.send_request(SubscribeRequest(params=SubscribeRequestParams(uri=uri)), EmptyResult)


async def unsubscribe(client: Client, uri: str) -> None:
    await client.session.send_request(UnsubscribeRequest(params=UnsubscribeRequestParams(uri=uri)), EmptyResult)


async def test_a_slow_subscription_holds_up_no_other_and_each_session_has_a_capped_share(tmp_path: Path) -> None:
    log = tmp_path / "upstream.jsonl"
    config = write_config(
        tmp_path / "gw.json", {"sub": subscribing(log)}, call_timeout_s=600, max_subscriptions_per_session=3
    )
    async with http_gateway(config, "--wait-for-upstreams") as url, anyio.create_task_group() as group:
        async with legacy_client(url) as slow:
            group.start_soon(subscribe, slow, "toolscout://sub/res://slow")
            with anyio.fail_after(LIMIT_S):
                await until(lambda: received(log, "resources/subscribe") == ["res://slow"])
                async with legacy_client(url) as other:
                    # Before: every subscribe waited for the slow one (here 600 s) behind one gateway-wide lock.
                    for n in range(3):
                        await subscribe(other, f"toolscout://sub/res://item/{n}")
                    await subscribe(other, "toolscout://sub/res://item/0")  # the same one again: no new share
                    with pytest.raises(MCPError) as refused:
                        await subscribe(other, "toolscout://sub/res://item/3")
                    await unsubscribe(other, "toolscout://sub/res://item/2")
                    await subscribe(other, "toolscout://sub/res://item/3")
                # The session ended (DELETE): its subscriptions are released upstream.
                await until(lambda: len(received(log, "resources/unsubscribe")) == 4)
            group.cancel_scope.cancel()
    assert "max_subscriptions_per_session (3)" in refused.value.error.message
    assert received(log, "resources/subscribe") == ["res://slow", *(f"res://item/{n}" for n in (0, 1, 2, 3))]
    assert sorted(received(log, "resources/unsubscribe")) == [f"res://item/{n}" for n in (0, 1, 2, 3)]


async def test_each_token_has_its_own_share_of_listen_streams(tmp_path: Path) -> None:
    tokens = {"alpha": {"token": "token-alpha-5c1e9a7f03b2d468"}, "beta": {"token": "token-beta-8d2f6b0a49c1e735"}}
    config = write_config(
        tmp_path / "gw.json",
        {"sub": subscribing(tmp_path / "upstream.jsonl")},
        auth={"tokens": tokens},
        max_listen_streams_per_token=2,
    )
    with anyio.fail_after(LIMIT_S):
        async with http_gateway(config, "--wait-for-upstreams") as url, AsyncExitStack() as streams:
            alpha = await streams.enter_async_context(http_client(url, token=tokens["alpha"]["token"]))
            beta = await streams.enter_async_context(http_client(url, token=tokens["beta"]["token"]))
            for _ in range(2):
                await streams.enter_async_context(alpha.listen(tools_list_changed=True))
            with pytest.raises(MCPError) as refused:
                async with alpha.listen(tools_list_changed=True):
                    pass
            # Before: one token could hold every stream the gateway allows; the other token still gets its own.
            for _ in range(2):
                await streams.enter_async_context(beta.listen(tools_list_changed=True))
    assert "max_listen_streams_per_token (2)" in refused.value.error.message
    assert "'alpha'" in refused.value.error.message


async def stalled_subscriber(url: str, *uris: str) -> socket.socket:
    """A 2025-era session subscribed to `uris` whose notification stream is opened and never read."""
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    hello = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "stalled", "version": "1"}}
    async with httpx2.AsyncClient(timeout=httpx2.Timeout(LIMIT_S)) as http:
        opened = await http.post(
            url, json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello}, headers=headers
        )
        headers |= {"Mcp-Session-Id": opened.headers["mcp-session-id"], "MCP-Protocol-Version": "2025-11-25"}
        await http.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers)
        for uri in uris:
            subscribe = {"jsonrpc": "2.0", "id": 2, "method": "resources/subscribe", "params": {"uri": uri}}
            assert "result" in (await http.post(url, json=subscribe, headers=headers)).text
    where = urlsplit(url)
    stream = socket.socket()
    stream.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    stream.connect((where.hostname, where.port))
    lines = [f"GET {where.path} HTTP/1.1", f"Host: {where.netloc}", "Accept: text/event-stream"]
    lines += [f"{name}: {value}" for name, value in headers.items() if name.startswith(("Mcp", "MCP"))]
    stream.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
    assert stream.recv(12) == b"HTTP/1.1 200"  # the stream is open; nothing more is ever read
    return stream


async def test_a_subscriber_that_stops_reading_never_starves_the_others(tmp_path: Path) -> None:
    config = write_config(tmp_path / "gw.json", {"sub": subscribing(tmp_path / "upstream.jsonl")})
    flooded = "res://item/" + "x" * 4000  # large notifications: the stalled stream's buffers fill quickly
    shown, then = f"toolscout://sub/{flooded}", "toolscout://sub/res://then"
    heard: list[str] = []
    done = anyio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, ResourceUpdatedNotification):
            heard.append(message.params.uri)
            if message.params.uri == then:
                done.set()

    with anyio.fail_after(LIMIT_S):
        async with http_gateway(config, "--wait-for-upstreams") as url:
            stalled = await stalled_subscriber(url, shown, then)  # first in line for every update
            async with legacy_client(url, message_handler=on_message) as reader, anyio.create_task_group() as group:
                await subscribe(reader, shown)
                await subscribe(reader, then)
                flood = {"name": "sub__updates", "arguments": {"uri": flooded, "n": 5000, "then": "res://then"}}
                group.start_soon(reader.call_tool, "tool_call", flood)
                # Before: the gateway waited on the stalled stream, and no update reached anyone after it filled.
                await done.wait()
                group.cancel_scope.cancel()
            stalled.close()
    assert heard[-1] == then and set(heard) == {shown, then}


async def test_resource_and_prompt_list_changes_reach_only_the_tokens_granted_that_server(tmp_path: Path) -> None:
    alpha, beta = "token-alpha-5c1e9a7f03b2d468", "token-beta-8d2f6b0a49c1e735"
    tokens = {"alpha": {"token": alpha, "servers": ["sub"]}, "beta": {"token": beta, "servers": ["other"]}}
    servers = {"sub": subscribing(tmp_path / "sub.jsonl"), "other": subscribing(tmp_path / "other.jsonl")}
    config = write_config(tmp_path / "gw.json", servers, auth={"tokens": tokens})
    heard: dict[str, list[str]] = {"alpha": [], "beta": []}

    def recorder(name: str) -> Any:
        async def on_message(message: Any) -> None:
            if isinstance(message, ResourceListChangedNotification | PromptListChangedNotification):
                heard[name].append(message.method)

        return on_message

    def changed(server: str) -> dict[str, Any]:
        return {"name": f"{server}__changed", "arguments": {"kind": "resources", "n": 1}}

    with anyio.fail_after(LIMIT_S):
        async with (
            http_gateway(config, "--wait-for-upstreams") as url,
            http_client(url, token=alpha, mode="legacy", message_handler=recorder("alpha")) as a,
            http_client(url, token=beta, mode="legacy", message_handler=recorder("beta")) as b,
        ):
            await a.list_tools()  # each client's connection is known to the gateway
            await b.list_tools()
            await a.call_tool("tool_call", changed("sub"))
            await a.call_tool("tool_call", {**changed("sub"), "arguments": {"kind": "prompts", "n": 1}})
            await until(lambda: len(heard["alpha"]) == 2)
            await b.call_tool("tool_call", changed("other"))
            # Before: beta heard sub's changes too (sent to every session before its own).
            await until(lambda: len(heard["beta"]) >= 1)
            await anyio.sleep(0.5)  # anything else on its way arrives meanwhile
    assert heard["alpha"] == ["notifications/resources/list_changed", "notifications/prompts/list_changed"]
    assert heard["beta"] == ["notifications/resources/list_changed"]


def requests(log: Path, method: str) -> int:
    """How many `method` requests the upstream received."""
    return sum(json.loads(line).get("method") == method for line in log.read_text().splitlines())


async def test_a_storm_of_tool_list_changes_costs_one_re_list_per_window(tmp_path: Path) -> None:
    log = tmp_path / "upstream.jsonl"
    config = write_config(tmp_path / "gw.json", {"sub": subscribing(log, "--tools", "50")})
    storm = {"name": "sub__changed", "arguments": {"kind": "tools", "n": 5000}}
    with anyio.fail_after(LIMIT_S):
        async with http_gateway(config) as url, http_client(url) as client:
            before = requests(log, "tools/list")
            started = anyio.current_time()
            await client.call_tool("tool_call", storm)
            await anyio.sleep(RELIST_EVERY_S)  # the last window's re-list, if any
            windows = (anyio.current_time() - started) / RELIST_EVERY_S
            relisted = requests(log, "tools/list") - before
            await client.call_tool("tool_call", {"name": "sub__echo", "arguments": {"text": "still here"}})
    # Before: re-listed back to back while the storm lasted, the catalog rebuilt and announced each time.
    assert 1 <= relisted <= windows + 1
    assert not [line for line in gateway_log(config) if "re-listed: 53 tools" in line.get("message", "")]
