"""One token opening MCP sessions without end closes only its own oldest ones, never another token's."""

from __future__ import annotations

from pathlib import Path

import httpx2
import pytest

from tests.gateway.conftest import LIMIT_S, http_gateway, real_servers, write_config

pytestmark = pytest.mark.anyio

TOKENS = {"flood": "token-flood-58c1d0e2a9", "calm": "token-calm-7b3e66f01c"}
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "probe", "version": "1"}},
}
PING = {"jsonrpc": "2.0", "id": 2, "method": "ping"}


async def open_session(http: httpx2.AsyncClient, url: str, token: str) -> str:
    answer = await http.post(url, json=INITIALIZE, headers={**ACCEPT, "Authorization": f"Bearer {token}"})
    assert answer.status_code == 200, answer.text
    return answer.headers["mcp-session-id"]


async def ping(http: httpx2.AsyncClient, url: str, token: str, session: str) -> int:
    headers = {**ACCEPT, "Authorization": f"Bearer {token}", "mcp-session-id": session}
    return (await http.post(url, json=PING, headers=headers)).status_code


async def test_a_token_past_its_session_limit_loses_its_least_recently_used_session_only(tmp_path: Path) -> None:
    auth = {"tokens": {label: {"token": token} for label, token in TOKENS.items()}}
    config = write_config(
        tmp_path / "gw.json", {"time": real_servers(tmp_path)["time"]}, mode="on", auth=auth, max_sessions_per_token=3
    )
    async with http_gateway(config) as url, httpx2.AsyncClient(timeout=LIMIT_S) as http:
        calm = await open_session(http, url, TOKENS["calm"])
        flood = [await open_session(http, url, TOKENS["flood"]) for _ in range(3)]
        assert await ping(http, url, TOKENS["flood"], flood[0]) == 200  # now the most recently used
        flood += [await open_session(http, url, TOKENS["flood"]) for _ in range(2)]

        alive = {session: await ping(http, url, TOKENS["flood"], session) for session in flood}
        calm_status = await ping(http, url, TOKENS["calm"], calm)

    assert [alive[session] for session in flood] == [200, 404, 404, 200, 200]
    assert calm_status == 200


async def test_without_auth_sessions_past_the_cap_are_refused_and_no_client_loses_one(tmp_path: Path) -> None:
    config = write_config(
        tmp_path / "gw.json",
        {"time": real_servers(tmp_path)["time"]},
        mode="on",
        max_sessions_per_token=3,
        new_sessions_per_minute=1000,
    )
    async with http_gateway(config) as url, httpx2.AsyncClient(timeout=LIMIT_S) as http:

        async def opening() -> httpx2.Response:
            return await http.post(url, json=INITIALIZE, headers=ACCEPT)

        async def status(session: str) -> int:
            return (await http.post(url, json=PING, headers={**ACCEPT, "mcp-session-id": session})).status_code

        victim = (await opening()).headers["mcp-session-id"]
        flood = [await opening() for _ in range(5)]
        victim_status = await status(victim)
        opened = [answer.headers["mcp-session-id"] for answer in flood if answer.status_code == 200]
        closed = await http.delete(url, headers={**ACCEPT, "mcp-session-id": opened[0]})
        after_close = await opening()

    assert [answer.status_code for answer in flood] == [200, 200, 429, 429, 429]
    assert "max_sessions_per_token (3)" in flood[2].json()["error"]["message"]
    assert victim_status == 200
    assert closed.status_code == 200 and after_close.status_code == 200, after_close.text
