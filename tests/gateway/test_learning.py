"""The gateway records learned pairs under the caller's grant label, in the store its config names."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import httpx2
import pytest
from mcp.client import Client

from tests.gateway.conftest import LIMIT_S, SERVERS
from toolscout.gateway import Gateway, GatewayConfig
from toolscout.learning._internal import SqliteUsageStore

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
            Gateway(config(tmp_path, enabled=False), transport="stdio", wait_for_upstreams=True) as gateway,
            Client(gateway.server) as client,
        ):
            await client.call_tool("tool_search", {"query": "saved recipes with basil"})
            await client.call_tool("tool_call", {"name": "kitchen__find_recipes", "arguments": {"query": "basil"}})
    assert not (tmp_path / "u.db").exists()


async def test_a_stateless_client_is_credited_by_its_grant_and_grants_stay_apart(tmp_path: Path) -> None:
    from tests.gateway.conftest import http_client, http_gateway, write_config

    tokens = {"alpha": {"token": "token-a-6b0e3d9f12ac47e8"}, "beta": {"token": "token-b-d41f8a2c7e5b9063"}}
    named = {"command": sys.executable, "args": [str(SERVERS / "named.py"), "find_recipes", "list_pantry"]}
    learning = {"enabled": True, "store": "usage.db"}
    path = write_config(
        tmp_path / "gateway.json", {"kitchen": named}, mode="on", auth={"tokens": tokens}, learning=learning
    )
    call = {"name": "kitchen__find_recipes", "arguments": {"query": "basil"}}
    with anyio.fail_after(LIMIT_S):
        async with http_gateway(path) as url:
            async with http_client(url, token=tokens["alpha"]["token"]) as client:
                await client.call_tool("tool_search", {"query": "saved recipes with basil"})
            async with http_client(url, token=tokens["beta"]["token"]) as client:
                assert not (await client.call_tool("tool_call", call)).is_error
            async with http_client(url, token=tokens["alpha"]["token"]) as client:
                assert not (await client.call_tool("tool_call", call)).is_error
    with SqliteUsageStore(tmp_path / "usage.db") as store:
        # beta searched nothing: its call is recorded as a use only (an empty request, for auto-pin).
        assert [(p.request, p.tool) for p in store.pairs("beta")] == [("", "kitchen__find_recipes")]
        (pair,) = store.pairs("alpha")
    assert (pair.request, pair.tool, pair.session) == (
        "saved recipes with basil",
        "kitchen__find_recipes",
        "principal:alpha",
    )


async def test_an_unreachable_usage_store_leaves_learning_off_with_one_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    import logging

    with caplog.at_level(logging.WARNING, logger="toolscout.gateway"), anyio.fail_after(LIMIT_S):
        async with (
            Gateway(
                config(tmp_path, enabled=True, store="redis://127.0.0.1:1/0"),
                transport="stdio",
                wait_for_upstreams=True,
            ) as gateway,
            Client(gateway.server) as client,
        ):
            await client.call_tool("tool_search", {"query": "saved recipes with basil"})
            result = await client.call_tool(
                "tool_call", {"name": "kitchen__find_recipes", "arguments": {"query": "basil"}}
            )
            assert not result.is_error
            assert gateway.scout.usage is None
    warnings = [r.getMessage() for r in caplog.records if "learning is off" in r.getMessage()]
    assert len(warnings) == 1 and "127.0.0.1:1" in warnings[0]


async def test_a_tool_a_grants_sessions_keep_calling_is_listed_to_its_new_sessions_only(tmp_path: Path) -> None:
    """A real `toolscout serve` over HTTP: auto-pin per grant, from the first tools/list, and never for another."""
    from tests.gateway.conftest import http_client, http_gateway, names, write_config

    tokens = {"alpha": {"token": "token-a-6b0e3d9f12ac47e8"}, "beta": {"token": "token-b-d41f8a2c7e5b9063"}}
    named = {"command": sys.executable, "args": [str(SERVERS / "named.py"), "find_recipes", "list_pantry"]}
    learning = {
        "enabled": True,
        "store": "usage.db",
        "auto_pin_min_sessions": 2,
        "min_sessions": 2,
        "auto_pin_max_turn_share": 1.0,  # a first turn of three bridge tools is small beside a tool
    }
    path = write_config(
        tmp_path / "gateway.json", {"kitchen": named}, mode="on", auth={"tokens": tokens}, learning=learning
    )
    call = {"name": "kitchen__find_recipes", "arguments": {"query": "basil"}}
    alpha, beta = tokens["alpha"]["token"], tokens["beta"]["token"]
    with anyio.fail_after(LIMIT_S):
        async with http_gateway(path) as url:
            async with http_client(url, token=alpha, session="first") as client:
                assert "kitchen__find_recipes" not in names(await client.list_tools())
            for session in ("one", "two"):
                async with http_client(url, token=alpha, session=session) as client:
                    await client.call_tool("tool_search", {"query": "saved recipes with basil"})
                    assert not (await client.call_tool("tool_call", call)).is_error
            listed: list[str] = []
            while "kitchen__find_recipes" not in listed:  # pairs are written, then read, within about a second
                await anyio.sleep(0.2)
                async with http_client(url, token=alpha, session="new") as client:
                    listed = names(await client.list_tools())
            assert listed.index("kitchen__find_recipes") < listed.index("tool_search")
            async with http_client(url, token=alpha, session="new") as client:
                direct = await client.call_tool("kitchen__find_recipes", {"query": "mint"})
                assert not direct.is_error
            async with http_client(url, token=beta, session="new") as client:
                assert "kitchen__find_recipes" not in names(await client.list_tools())


async def test_a_session_that_listed_before_its_grants_auto_pins_changed_is_told_its_list_changed(
    tmp_path: Path,
) -> None:
    from mcp.client.session import IncomingMessage
    from mcp_types import ToolListChangedNotification

    from tests.gateway.conftest import http_client, http_gateway, names, write_config

    named = {"command": sys.executable, "args": [str(SERVERS / "named.py"), "find_recipes", "list_pantry"]}
    learning = {"enabled": True, "store": "usage.db", "auto_pin_min_sessions": 2, "auto_pin_max_turn_share": 1.0}
    path = write_config(tmp_path / "gateway.json", {"kitchen": named}, mode="on", learning=learning)
    call = {"name": "kitchen__find_recipes", "arguments": {"query": "basil"}}
    changed = anyio.Event()

    async def on_message(message: IncomingMessage) -> None:
        if isinstance(message, ToolListChangedNotification):
            changed.set()

    with anyio.fail_after(LIMIT_S):
        async with http_gateway(path) as url:
            async with http_client(url, mode="legacy", message_handler=on_message) as early:
                assert "kitchen__find_recipes" not in names(await early.list_tools())
                for session in ("one", "two"):
                    async with http_client(url, session=session) as client:
                        await client.call_tool("tool_search", {"query": "saved recipes with basil"})
                        assert not (await client.call_tool("tool_call", call)).is_error
                while not changed.is_set():  # its next call, once the pairs are read, tells it
                    await anyio.sleep(0.3)
                    await early.call_tool("tool_search", {"query": "pantry"})
                assert "kitchen__find_recipes" in names(await early.list_tools())
                assert not (await early.call_tool("kitchen__find_recipes", {"query": "mint"})).is_error
            async with httpx2.AsyncClient(timeout=LIMIT_S) as http:
                metrics = (await http.get(url.removesuffix("/mcp") + "/metrics")).text
    assert "toolscout_auto_pinned_tools 1.0" in metrics
    assert "toolscout_auto_pinned_calls_total 1.0" in metrics


async def test_two_sessionless_agents_of_one_grant_are_each_credited_to_their_own_search(tmp_path: Path) -> None:
    """Two 2026-07-28 clients sending no session, one grant, interleaved: each call credits its own search only."""
    from tests.gateway.conftest import http_client, http_gateway, payload, write_config

    tools = ["list_pantry", "send_email", "make_ticket"]
    named = {"command": sys.executable, "args": [str(SERVERS / "named.py"), *tools]}
    path = write_config(
        tmp_path / "gateway.json", {"kitchen": named}, mode="on", learning={"enabled": True, "store": "usage.db"}
    )

    async def search(client: Client, query: str) -> set[str]:
        return {tool["name"] for tool in payload(await client.call_tool("tool_search", {"query": query}))["tools"]}

    async def call(client: Client, name: str) -> None:
        assert not (await client.call_tool("tool_call", {"name": name, "arguments": {"query": "x"}})).is_error

    with anyio.fail_after(LIMIT_S):
        async with http_gateway(path) as url, http_client(url) as a, http_client(url) as b:
            assert await search(a, "pantry") == {"kitchen__list_pantry"}
            assert await search(b, "email") == {"kitchen__send_email"}
            await call(b, "kitchen__send_email")  # B's search listed it: A's open search is not B's chain
            await call(a, "kitchen__list_pantry")
            assert "kitchen__make_ticket" not in await search(a, "basil")
            assert "kitchen__make_ticket" not in await search(b, "weather")
            await call(a, "kitchen__make_ticket")  # listed by no search, two searches open: no chain is provable
    with SqliteUsageStore(tmp_path / "usage.db") as store:
        pairs = [(p.request, p.tool, p.missed) for p in store.pairs("local") if p.request]
    assert sorted(pairs) == [("email", "kitchen__send_email", False), ("pantry", "kitchen__list_pantry", False)]
