"""Two real `toolscout serve` HTTP replicas sharing one real `redis-server`, and a client moving between them.

A client moves between replicas the way it does behind a load balancer: it names its session with
the ``Toolscout-Session`` header (a durable key; an ``Mcp-Session-Id`` is one replica's connection)
and speaks 2026-07-28, where every request stands alone, so any request may land on any replica.
`Balancer` is that load balancer: it sends each request to the replica it currently points at.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp.client import Client
from mcp.client.session import IncomingMessage
from mcp.client.streamable_http import streamable_http_client
from mcp_types import ToolListChangedNotification

from tests.gateway.conftest import (
    LIMIT_S,
    fragile_server,
    http_client,
    http_gateway,
    names,
    payload,
    text,
    write_config,
)

pytestmark = pytest.mark.anyio

MODERN = "2026-07-28"  # every request stands alone: any replica may answer it
STORE_TIMEOUT_S = 3
ECHO = "fragile__echo"
MIB = 1 << 20


class Balancer(httpx2.AsyncBaseTransport):
    """Sends each request to the replica `to` names when the request is made."""

    def __init__(self, urls: list[str]) -> None:
        self.replicas = [httpx2.URL(url) for url in urls]
        self.to = 0
        self._inner = httpx2.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        target = self.replicas[self.to]
        request.url = request.url.copy_with(host=target.host, port=target.port)
        request.headers["host"] = f"{target.host}:{target.port}"
        return await self._inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self._inner.aclose()


@asynccontextmanager
async def moving_client(balancer: Balancer, session: str) -> AsyncIterator[Client]:
    """A 2026-07-28 client whose requests go wherever `balancer` points."""
    headers = {"Toolscout-Session": session}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(LIMIT_S), transport=balancer) as http,
        Client(streamable_http_client(str(balancer.replicas[0]), http_client=http), mode=MODERN) as client,
    ):
        yield client


def replica_config(tmp_path: Path, redis_url: str, **settings: Any) -> Path:
    """Both stores in Redis (unless `settings` say otherwise), the reveal style, tiny offload budgets."""
    settings.setdefault("store", redis_url)
    return write_config(
        tmp_path / "gw.json",
        {"fragile": fragile_server(tmp_path / "state")},
        style="reveal",
        mode="on",
        store_timeout_s=STORE_TIMEOUT_S,
        offload={"store": redis_url, "budget_tokens": 200, "session_bytes": MIB},
        **settings,
    )


def stored_handle(result: Any) -> str:
    """The handle of the first stored part of an offloaded result's stub."""
    stub = payload(result)
    assert stub.get("offloaded") is True, str(stub)[:500]
    return str(next(part["handle"] for part in stub["parts"] if "handle" in part))


def big_json(rows: int, tag: str) -> str:
    return json.dumps({"rows": [{"id": i, "tag": tag, "note": f"row {i} of the {tag} listing"} for i in range(rows)]})


async def test_a_client_moving_between_replicas_keeps_its_outputs_and_every_replica_hears_its_reveals(
    tmp_path: Path, redis_url: str
) -> None:
    config = replica_config(tmp_path, redis_url)
    session = f"conversation-{tmp_path.name}"  # the Redis server outlives each test
    with anyio.fail_after(LIMIT_S):
        async with http_gateway(config) as first, http_gateway(config) as second:
            balancer = Balancer([first, second])
            async with (
                http_client(second, session=session, mode=MODERN) as watcher,
                watcher.listen(tools_list_changed=True) as changes,
                moving_client(balancer, session) as mover,
            ):
                before = names(await watcher.list_tools())
                found = payload(await mover.call_tool("tool_search", {"query": "return the text unchanged"}))
                event = await changes.__anext__()  # recorded on the first replica, heard on the second
                on_second = names(await watcher.list_tools())
                stored = await mover.call_tool(ECHO, {"text": big_json(2_000, "alpha")})
                handle = stored_handle(stored)
                balancer.to = 1  # the load balancer moves the client
                moved = names(await mover.list_tools())
                read = payload(await mover.call_tool("output_read", {"handle": handle, "lines": 3}))
                searched = payload(await mover.call_tool("output_search", {"handle": handle, "pattern": "row 1999 of"}))
                queried = payload(
                    await mover.call_tool("output_query", {"handle": handle, "expression": ".rows | length"})
                )
    revealed = [tool["name"] for tool in found["tools"]]
    assert ECHO in revealed and ECHO not in before
    assert type(event).__name__ == "ToolsListChanged"
    assert set(revealed) <= set(on_second) and set(revealed) <= set(moved)
    assert "alpha" in json.dumps(read)
    assert "row 1999 of the alpha listing" in json.dumps(searched)
    assert "2000" in json.dumps(queried)


async def test_a_2025_client_on_another_replica_gets_list_changed_for_its_session(
    tmp_path: Path, redis_url: str
) -> None:
    config = replica_config(tmp_path, redis_url)
    session = f"conversation-{tmp_path.name}"
    changed = anyio.Event()

    async def on_message(message: IncomingMessage) -> None:
        if isinstance(message, ToolListChangedNotification):
            changed.set()

    with anyio.fail_after(LIMIT_S):
        async with http_gateway(config) as first, http_gateway(config) as second:
            async with http_client(second, session=session, mode="legacy", message_handler=on_message) as legacy:
                before = names(await legacy.list_tools())
                async with http_client(first, session=session, mode=MODERN) as other:
                    await other.call_tool("tool_search", {"query": "return the text unchanged"})
                await changed.wait()
                after = names(await legacy.list_tools())
    assert ECHO not in before and ECHO in after


async def test_the_session_cap_is_counted_once_across_replicas(tmp_path: Path, redis_url: str) -> None:
    config = replica_config(tmp_path, redis_url)
    padded = "x" * 250  # about 560 KB per output: one fits the session's 1 MiB, two do not
    with anyio.fail_after(LIMIT_S):
        async with http_gateway(config) as first, http_gateway(config) as second:
            balancer = Balancer([first, second])
            async with moving_client(balancer, f"capped-{tmp_path.name}") as mover:
                await mover.call_tool("tool_search", {"query": "return the text unchanged"})
                older = stored_handle(await mover.call_tool(ECHO, {"text": big_json(1_000, padded)}))
                balancer.to = 1
                newer = stored_handle(await mover.call_tool(ECHO, {"text": big_json(1_000, padded)}))
                on_second = await mover.call_tool("output_read", {"handle": older})
                balancer.to = 0
                on_first = await mover.call_tool("output_read", {"handle": older})
                kept = await mover.call_tool("output_read", {"handle": newer, "lines": 1})
    for refused in (on_second, on_first):
        assert refused.is_error and "output_expired" in text(refused), text(refused)
    assert not kept.is_error


async def test_a_paused_redis_output_store_fails_only_the_output_read_that_needs_it(
    tmp_path: Path, redis_url: str
) -> None:
    import redis

    # Discoveries in an SQLite file both replicas share, so only the output store goes away.
    config = replica_config(tmp_path, redis_url, store=str(tmp_path / "sessions.sqlite3"), pinned=[ECHO])
    admin = redis.Redis.from_url(redis_url)
    with anyio.fail_after(LIMIT_S):
        async with http_gateway(config) as first, http_gateway(config) as second:
            async with http_client(first, session=f"outage-{tmp_path.name}") as client:
                handle = stored_handle(await client.call_tool(ECHO, {"text": big_json(2_000, "beta")}))
            admin.execute_command("CLIENT", "PAUSE", str(LIMIT_S * 1000), "WRITE")  # every output read writes
            try:
                async with http_client(second, session=f"outage-{tmp_path.name}") as client:
                    with anyio.fail_after(STORE_TIMEOUT_S * 4):
                        failed = await client.call_tool("output_read", {"handle": handle})
                    small = await client.call_tool(ECHO, {"text": "still here"})
                async with httpx2.AsyncClient(timeout=LIMIT_S) as http:
                    health = await http.get(second.replace("/mcp", "/healthz"))
            finally:
                admin.execute_command("CLIENT", "UNPAUSE")
            async with http_client(second, session=f"outage-{tmp_path.name}") as client:
                again = await client.call_tool("output_read", {"handle": handle, "lines": 1})
    admin.close()
    assert failed.is_error and f"output store did not answer within {STORE_TIMEOUT_S} s" in text(failed)
    assert text(small) == "still here" and health.json()["status"] == "ok"
    assert not again.is_error
