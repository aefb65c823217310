"""A session that ends takes its offloaded outputs with it: stateless requests, closed HTTP sessions, idle sessions.

Real gateways over HTTP with the fragile test server upstream; its ``echo`` returns a text long
enough to be offloaded, and the tests look at the offload folder on disk.
"""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from tests.gateway.conftest import LIMIT_S, fragile_server, http_client, http_gateway, payload, write_config
from toolscout import SqliteStore

pytestmark = pytest.mark.anyio

BIG = "lorem ipsum dolor sit amet " * 1000  # ~7,000 tokens: over the 1,000-token budget


def config(tmp_path: Path, **settings: object) -> tuple[Path, Path]:
    outputs = tmp_path / "outputs"
    path = write_config(
        tmp_path / "gw.json",
        {"fragile": fragile_server(tmp_path / "state")},
        mode="on",
        pinned=["fragile__echo"],
        offload={"budget_tokens": 1000, "preview_tokens": 200, "folder": str(outputs)},
        **settings,
    )
    return path, outputs


def session_folders(outputs: Path) -> list[Path]:
    return [path for path in outputs.iterdir() if path.is_dir()] if outputs.exists() else []


async def until_no_session_folders(outputs: Path) -> None:
    with anyio.fail_after(LIMIT_S):
        while session_folders(outputs):
            await anyio.sleep(0.1)


async def offloaded_handle(client: object) -> str:
    result = await client.call_tool("fragile__echo", {"text": BIG})  # type: ignore[attr-defined]
    [part] = payload(result)["parts"]
    return str(part["handle"])


async def test_a_stateless_requests_outputs_go_when_the_request_ends(tmp_path: Path) -> None:
    path, outputs = config(tmp_path)
    async with http_gateway(path) as url, http_client(url) as client:  # 2026-07-28: no session header
        for _ in range(3):
            await offloaded_handle(client)
        # Nothing can ever read them again (the next request is another session): nothing is kept.
        await until_no_session_folders(outputs)


async def test_closing_an_http_session_deletes_its_outputs(tmp_path: Path) -> None:
    path, outputs = config(tmp_path)
    async with http_gateway(path) as url:
        async with http_client(url, mode="legacy") as client:  # an Mcp-Session-Id connection
            handle = await offloaded_handle(client)
            assert len(session_folders(outputs)) == 1
            read = await client.call_tool("output_read", {"handle": handle, "lines": 1})
            assert not read.is_error
        await until_no_session_folders(outputs)  # the client's DELETE ended the session


async def test_an_idle_session_loses_its_outputs_and_keeps_its_discoveries(tmp_path: Path) -> None:
    path, outputs = config(tmp_path, session_idle_s=1)
    async with http_gateway(path) as url:
        async with http_client(url, session="conversation-1") as client:
            handle = await offloaded_handle(client)
            found = payload(await client.call_tool("tool_search", {"query": "pid"}))
            assert found["tools"]
            assert len(session_folders(outputs)) == 1
            await until_no_session_folders(outputs)
            gone = await client.call_tool("output_read", {"handle": handle, "lines": 1})
            assert gone.is_error and payload(gone)["error"]["code"] == "output_not_found"
    with SqliteStore(tmp_path / "sessions.sqlite3") as store:  # discoveries outlive idleness
        assert "fragile__pid" in store.discovered("http:local:s:conversation-1")


async def test_one_tokens_outputs_filling_the_store_never_push_out_another_tokens(tmp_path: Path) -> None:
    # 1 MiB in all, 1 MiB per token: beta's ~1.7 MB of results in 8 sessions make room from beta's own outputs only.
    path = write_config(
        tmp_path / "gw.json",
        {"fragile": fragile_server(tmp_path / "state")},
        mode="on",
        pinned=["fragile__echo"],
        offload={
            "budget_tokens": 1000,
            "preview_tokens": 200,
            "folder": str(tmp_path / "outputs"),
            "session_bytes": 1 << 20,
            "total_bytes": 1 << 20,
        },
        auth={
            "tokens": {"alpha": {"token": "token-a-3f9d2c71e5b84a06"}, "beta": {"token": "token-b-9e1a7c44d2f05b38"}}
        },
    )
    large = "lorem ipsum dolor sit amet " * 8000  # 216 KB
    async with http_gateway(path) as url:
        async with http_client(url, token="token-a-3f9d2c71e5b84a06", session="alpha-1") as alpha:
            kept = await offloaded_handle(alpha)
            for n in range(8):  # one session each: no session cap stops beta before the total does
                async with http_client(url, token="token-b-9e1a7c44d2f05b38", session=f"beta-{n}") as beta:
                    result = await beta.call_tool("fragile__echo", {"text": large})
                    assert "handle" in payload(result)["parts"][0]
            read = await alpha.call_tool("output_read", {"handle": kept, "lines": 1})
            assert not read.is_error, payload(read)
