"""A session store that stops answering fails only the calls that need it: never health, never other clients.

Real gateways over HTTP, a real SQLite file locked by the real `sqlite3` shell from another
process, and a real `redis-server` paused with ``CLIENT PAUSE``.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import anyio
import httpx2
import pytest
from mcp.shared.exceptions import MCPError

from tests.conftest import require
from tests.gateway.conftest import LIMIT_S, fragile_server, http_client, http_gateway, payload, write_config

pytestmark = pytest.mark.anyio

STORE_TIMEOUT_S = 4


@contextmanager
def sqlite_locked(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on the SQLite file `path` from a `sqlite3` shell process."""
    binary = shutil.which("sqlite3")
    require(binary is not None, "the sqlite3 shell is not installed (scripts/setup.sh installs it with apt-get)")
    assert binary is not None
    shell = subprocess.Popen(
        [binary, str(path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    assert shell.stdin is not None and shell.stdout is not None
    try:
        shell.stdin.write("BEGIN EXCLUSIVE;\nSELECT 'locked';\n")
        shell.stdin.flush()
        assert shell.stdout.readline().strip() == "locked"
        yield
    finally:
        shell.stdin.write("ROLLBACK;\n.quit\n")
        shell.stdin.close()
        shell.wait(timeout=LIMIT_S)


async def outage_holds(url: str) -> None:
    """With the store not answering: health and a new client answer while a store-bound call waits, then fails."""
    health_url = url.replace("/mcp", "/healthz")
    order: list[str] = []
    async with http_client(url, session="first") as first, httpx2.AsyncClient(timeout=LIMIT_S) as http:

        async def search() -> None:
            with pytest.raises(MCPError) as caught:
                await first.call_tool("tool_search", {"query": "crash"})
            assert "session store" in caught.value.error.message
            order.append("store-bound call failed")

        with anyio.fail_after(LIMIT_S):
            async with anyio.create_task_group() as group:
                group.start_soon(search)
                await anyio.sleep(0.5)  # the call is now waiting on the store
                health = await http.get(health_url)
                assert health.status_code == 200 and health.json()["status"] == "ok"
                order.append("healthz")
                async with http_client(url, session="second") as second:
                    listed = {tool.name for tool in (await second.list_tools()).tools}
                    assert {"tool_search", "tool_call"} <= listed
                    echoed = await second.call_tool("fragile__echo", {"text": "hi"})
                    assert not echoed.is_error
                order.append("second client")
    assert order[0] == "healthz", order  # the loop never waited on the store


async def test_a_locked_sqlite_file_fails_the_calls_needing_it_and_nothing_else(tmp_path: Path) -> None:
    store = tmp_path / "sessions.sqlite3"
    config = write_config(
        tmp_path / "gw.json",
        {"fragile": fragile_server(tmp_path / "state")},
        store=str(store),
        store_timeout_s=STORE_TIMEOUT_S,
        pinned=["fragile__echo"],
        mode="on",
    )
    async with http_gateway(config) as url:
        async with http_client(url, session="first") as first:
            found = payload(await first.call_tool("tool_search", {"query": "pid"}))
            assert found["tools"]
        with sqlite_locked(store):
            await outage_holds(url)
        async with http_client(url, session="first") as first:  # the store is back: so is the call
            assert payload(await first.call_tool("tool_search", {"query": "garbage"}))["tools"]


async def test_a_paused_redis_fails_the_calls_needing_it_and_nothing_else(tmp_path: Path, redis_url: str) -> None:
    import redis

    config = write_config(
        tmp_path / "gw.json",
        {"fragile": fragile_server(tmp_path / "state")},
        store=redis_url,
        store_timeout_s=STORE_TIMEOUT_S,
        pinned=["fragile__echo"],
        mode="on",
    )
    admin = redis.Redis.from_url(redis_url)
    async with http_gateway(config) as url:
        async with http_client(url, session="first") as first:
            assert payload(await first.call_tool("tool_search", {"query": "pid"}))["tools"]
        admin.execute_command("CLIENT", "PAUSE", str(LIMIT_S * 1000), "WRITE")  # the store writes on every read
        try:
            await outage_holds(url)
        finally:
            admin.execute_command("CLIENT", "UNPAUSE")
        async with http_client(url, session="first") as first:
            assert payload(await first.call_tool("tool_search", {"query": "garbage"}))["tools"]
    admin.close()
