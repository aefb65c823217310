"""Reveal style and session state across connections, restarts and gateway replicas (SQLite, Redis)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

import anyio
import pytest
from mcp.client.session import IncomingMessage
from mcp.server.connection import Connection
from mcp.server.context import ServerRequestContext
from mcp.server.session import ServerSession
from mcp_types import ClientCapabilities, Implementation, InitializeRequestParams, ToolListChangedNotification
from starlette.requests import Request

from tests.gateway.conftest import (
    LIMIT_S,
    gateway_log,
    http_client,
    http_gateway,
    names,
    payload,
    real_servers,
    stdio_gateway,
    write_config,
)
from toolscout._types import Transport
from toolscout.gateway import Credentials, GatewayConfig, Grant
from toolscout.gateway._identity._grants import GRANT_KEY
from toolscout.gateway._internal import StaticTokens, TokenGrant
from toolscout.gateway._sessions._callers import Identities

pytestmark = pytest.mark.anyio

TIME_TOOLS = ["time__get_current_time", "time__convert_time"]
BRIDGE = ["tool_search", "tool_call"]
"""The gateway's reveal-style list before any reveal (``reveal_call_tool`` is on by default)."""
TOKEN_A = "token-a-6b0e3d9f12ac47e8"
TOKEN_B = "token-b-d41f8a2c7e5b9063"
TOKENS: dict[str, dict[str, Any]] = {"alpha": {"token": TOKEN_A}, "beta": {"token": TOKEN_B, "servers": ["time"]}}


def reveal_config(tmp_path: Path, **settings: object) -> Path:
    servers = real_servers(tmp_path)
    chosen = {name: servers[name] for name in ("time", "memory")}
    return write_config(tmp_path / "gw.json", chosen, style="reveal", mode="on", **settings)


async def test_reveal_over_stdio_grows_the_list_and_announces_it_on_the_listen_stream(tmp_path: Path) -> None:
    config = reveal_config(tmp_path)
    with anyio.fail_after(LIMIT_S):
        async with stdio_gateway(config) as client:
            before = names(await client.list_tools())
            async with client.listen(tools_list_changed=True) as subscription:
                found = payload(await client.call_tool("tool_search", {"query": "current time in Tokyo"}))
                event = await subscription.__anext__()
            after = names(await client.list_tools())
            now = await client.call_tool("time__get_current_time", {"timezone": "Asia/Tokyo"})
    assert before == BRIDGE
    assert type(event).__name__ == "ToolsListChanged"
    assert found["tools"][0]["name"] == "time__get_current_time"
    assert after[:2] == before and sorted(after[2:]) == sorted(TIME_TOOLS)
    assert payload(now)["timezone"] == "Asia/Tokyo"


async def test_a_client_that_calls_without_listing_after_a_reveal_is_told_to_run_found_tools_with_tool_call(
    tmp_path: Path,
) -> None:
    """A client that keeps its first list after a list change (as one that lists once does) is answered in
    bridge form until it lists again; the call tool in its first list runs what it finds."""
    config = reveal_config(tmp_path)
    with anyio.fail_after(LIMIT_S):
        async with stdio_gateway(config) as client:
            first = names(await client.list_tools())
            seen = payload(await client.call_tool("tool_search", {"query": "time__get_current_time"}))
            bridged = {"name": "time__get_current_time", "arguments": {"timezone": "Asia/Tokyo"}}
            now = await client.call_tool("tool_call", bridged)
            unseen = payload(await client.call_tool("tool_search", {"query": "memory__read_graph"}))
            relisted = names(await client.list_tools())
            seen_again = payload(await client.call_tool("tool_search", {"query": "memory__open_nodes"}))
    assert first == BRIDGE
    assert payload(now)["timezone"] == "Asia/Tokyo"
    for answer, name in ((seen, "time__get_current_time"), (unseen, "memory__read_graph")):
        assert [tool["name"] for tool in answer["tools"]] == [name]
    assert seen["hint"].startswith("These tools are now in your tool list") and "tool_call" in seen["hint"]
    assert unseen["hint"].startswith("Your tool list does not change")
    assert "tool_call(name, arguments)" in unseen["hint"]
    assert "memory__read_graph" in relisted and seen_again["hint"] == seen["hint"]


async def test_reveal_over_http_sends_list_changed_to_a_2025_client(tmp_path: Path) -> None:
    config = reveal_config(tmp_path)
    changed = anyio.Event()

    async def on_message(message: IncomingMessage) -> None:
        if isinstance(message, ToolListChangedNotification):
            changed.set()

    with anyio.fail_after(LIMIT_S):
        async with (
            http_gateway(config) as url,
            http_client(url, mode="legacy", message_handler=on_message) as client,
        ):
            assert names(await client.list_tools()) == BRIDGE
            found = payload(await client.call_tool("tool_search", {"query": "convert time between zones"}))
            await changed.wait()
            after = names(await client.list_tools())
    revealed = [tool["name"] for tool in found["tools"]]
    assert revealed[0] == "time__convert_time"
    assert after[:2] == BRIDGE
    assert sorted(after[2:]) == sorted(revealed)  # the list carries what was revealed


async def test_discoveries_survive_a_stdio_gateway_restart(tmp_path: Path) -> None:
    config = reveal_config(tmp_path)
    with anyio.fail_after(LIMIT_S):
        async with stdio_gateway(config) as client:
            await client.call_tool("tool_search", {"query": "current time"})
        async with stdio_gateway(config) as client:
            again = names(await client.list_tools())
    assert sorted(again[len(BRIDGE) :]) == sorted(TIME_TOOLS)


async def test_an_unrelated_stdio_gateway_sharing_the_store_starts_with_none_of_its_discoveries(
    tmp_path: Path,
) -> None:
    """Two config files, one store (as the data folder's default store is), the same client name: what one
    gateway found never shows in the other's first list, and each finds its own again after a restart."""
    config = reveal_config(tmp_path)
    other = write_config(tmp_path / "other.json", {"time": real_servers(tmp_path)["time"]}, style="reveal", mode="on")
    with anyio.fail_after(LIMIT_S):
        async with stdio_gateway(config) as client:
            await client.call_tool("tool_search", {"query": "current time"})
        async with stdio_gateway(other) as client:
            fresh = names(await client.list_tools())
        async with stdio_gateway(config) as client:
            again = names(await client.list_tools())
    assert fresh == BRIDGE
    assert sorted(again[len(BRIDGE) :]) == sorted(TIME_TOOLS)


async def test_discoveries_survive_an_http_gateway_restart_for_the_same_session_header(tmp_path: Path) -> None:
    config = reveal_config(tmp_path)
    with anyio.fail_after(LIMIT_S):
        async with http_gateway(config) as url, http_client(url, session="conversation-1") as client:
            await client.call_tool("tool_search", {"query": "current time"})
        async with http_gateway(config) as url:
            async with http_client(url, session="conversation-1") as client:
                same = names(await client.list_tools())
            async with http_client(url, session="conversation-2") as client:
                other = names(await client.list_tools())
    assert sorted(same[len(BRIDGE) :]) == sorted(TIME_TOOLS)
    assert other == BRIDGE


async def test_two_gateways_sharing_redis_serve_one_session_and_tokens_stay_apart(
    tmp_path: Path, redis_url: str
) -> None:
    auth = {"tokens": {"alpha": {"token": TOKEN_A}, "beta": {"token": TOKEN_B}}}
    config = reveal_config(tmp_path, store=redis_url, auth=auth)
    with anyio.fail_after(LIMIT_S):
        async with http_gateway(config) as first, http_gateway(config) as second:
            async with http_client(first, token=TOKEN_A, session="shared") as client:
                await client.call_tool("tool_search", {"query": "current time"})
            async with http_client(second, token=TOKEN_A, session="shared") as client:
                on_second = names(await client.list_tools())
                now = await client.call_tool("time__get_current_time", {"timezone": "UTC"})
            async with http_client(second, token=TOKEN_B, session="shared") as client:
                other_token = names(await client.list_tools())
    assert sorted(on_second[len(BRIDGE) :]) == sorted(TIME_TOOLS)
    assert not now.is_error
    assert other_token == BRIDGE


async def test_a_name_in_redis_that_is_not_utf8_is_dropped_with_one_warning_and_the_session_goes_on(
    tmp_path: Path, redis_url: str
) -> None:
    import redis

    config = reveal_config(tmp_path, store=redis_url)
    session = f"poisoned-{tmp_path.name}"
    key = f"toolscout:names:http:local:s:{session}"
    with anyio.fail_after(LIMIT_S):
        async with http_gateway(config) as url:
            async with http_client(url, session=session) as client:
                await client.call_tool("tool_search", {"query": "current time"})
            redis.Redis.from_url(redis_url).rpush(key, b"\xff\xfe not utf-8")
            async with http_client(url, session=session) as client:
                first = names(await client.list_tools())
                second = names(await client.list_tools())
                now = await client.call_tool("time__get_current_time", {"timezone": "UTC"})
    assert sorted(first[len(BRIDGE) :]) == sorted(TIME_TOOLS) and second == first
    assert not now.is_error
    warnings = [r["message"] for r in gateway_log(config) if r["level"] == "warning" and "UTF-8" in r["message"]]
    assert len(warnings) == 1 and session in warnings[0], warnings


def context(
    *, client: str | None, version: str = "2025-11-25", headers: dict[str, str] | None = None, user: object = None
) -> ServerRequestContext[Any, Any]:
    """`user`: the `Grant` the gateway's guard left in the request scope, if any."""
    """A request context as the SDK builds it: stdio when `headers` is None, else HTTP."""
    params = None
    if client is not None:
        params = InitializeRequestParams(
            protocol_version=version,
            capabilities=ClientCapabilities(),
            client_info=Implementation(name=client, version="1"),
        )
    connection = Connection(cast(Any, object()), protocol_version=version, client_params=params)
    request = None
    if headers is not None:
        scope = {
            "type": "http",
            "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()],
            GRANT_KEY: user,
        }
        request = Request(scope)
    return ServerRequestContext(
        session=ServerSession(cast(Any, object()), connection),
        lifespan_context={},
        protocol_version=version,
        method="tools/list",
        request=request,
    )


def identities(transport: Transport, servers: dict[str, Any] | None = None, **settings: Any) -> Identities:
    """Identities of a config without a file (keyed by its `servers`, a time server by default)."""
    mapping = {"mcpServers": servers or {"time": {"command": "x"}}, "toolscout": settings}
    return Identities(GatewayConfig.from_mapping(mapping), transport)


def user(label: str) -> Grant:
    """The grant the static-token authenticator gives token `label` of `TOKENS`."""
    grants = {name: TokenGrant.model_validate(fields) for name, fields in TOKENS.items()}
    answer = anyio.run(StaticTokens(grants).authenticate, Credentials(bearer=TOKENS[label]["token"]))
    assert isinstance(answer, Grant)
    return answer


def test_stdio_sessions_come_from_the_client_name_or_the_configured_id() -> None:
    plain = identities("stdio")
    desktop = plain.caller(context(client="Claude Desktop")).session_id
    assert desktop.startswith("stdio:") and desktop.endswith(":client:Claude Desktop")
    assert plain.caller(context(client=None)).session_id.endswith(":client:default")
    assert identities("stdio").caller(context(client="Claude Desktop")).session_id == desktop
    other_servers = identities("stdio", servers={"date": {"command": "x"}})
    assert other_servers.caller(context(client="Claude Desktop")).session_id != desktop
    assert identities("stdio", session_id="mine").caller(context(client="any")).session_id == "mine"
    assert plain.caller(context(client="x", version="2026-07-28")).legacy is False


def test_http_sessions_prefer_the_header_then_the_connection_then_the_client_and_carry_the_token() -> None:
    http = identities("http", auth={"tokens": TOKENS})
    both = {"Toolscout-Session": "conv-7", "Mcp-Session-Id": "abc"}
    assert http.caller(context(client="c", headers=both, user=user("alpha"))).session_id == "http:alpha:s:conv-7"
    assert http.caller(context(client="c", headers=both, user=user("beta"))).session_id == "http:beta:s:conv-7"
    only_transport = {"Mcp-Session-Id": "abc"}
    assert (
        http.caller(context(client="c", headers=only_transport, user=user("alpha"))).session_id == "http:alpha:mcp:abc"
    )
    stateless = [http.caller(context(client="c", headers={}, user=user("alpha"))).session_id for _ in range(2)]
    assert all(session.startswith("http:alpha:request:") for session in stateless)
    assert stateless[0] != stateless[1]  # a self-declared client name never joins two requests
    assert http.caller(context(client="c", headers={}, user=user("beta"))).scope.allow == ("time:*",)


def test_a_stranger_or_an_odd_session_header_gets_nothing_and_a_bounded_id() -> None:
    http = identities("http", auth={"tokens": {"alpha": {"token": TOKEN_A}}})
    stranger = http.caller(context(client="c", headers={}, user=None))
    assert stranger.principal == "-" and stranger.scope.allow == ()
    odd = http.caller(context(client="c", headers={"Toolscout-Session": "x" * 500}, user=user("alpha")))
    assert odd.session_id.startswith("http:hashed:") and len(odd.session_id) < 100
    assert identities("http").caller(context(client="c", headers={})).session_id.startswith("http:local:request:")
