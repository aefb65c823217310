"""A token opening MCP sessions faster than `new_sessions_per_minute` gets 429, never another token."""

from __future__ import annotations

from pathlib import Path

import httpx2
import pytest

from tests.gateway.conftest import LIMIT_S, http_client, http_gateway, real_servers, write_config
from tests.gateway.test_session_cap import ACCEPT, INITIALIZE, TOKENS, open_session, ping

pytestmark = pytest.mark.anyio


async def test_a_token_opening_sessions_too_fast_is_told_to_wait_and_keeps_its_sessions(tmp_path: Path) -> None:
    auth = {"tokens": {label: {"token": token} for label, token in TOKENS.items()}}
    config = write_config(
        tmp_path / "gw.json", {"time": real_servers(tmp_path)["time"]}, mode="on", auth=auth, new_sessions_per_minute=4
    )
    async with http_gateway(config) as url, httpx2.AsyncClient(timeout=LIMIT_S) as http:
        flood = [await open_session(http, url, TOKENS["flood"]) for _ in range(4)]
        refused = await http.post(
            url, json=INITIALIZE, headers={**ACCEPT, "Authorization": f"Bearer {TOKENS['flood']}"}
        )
        calm = await open_session(http, url, TOKENS["calm"])
        still = [await ping(http, url, TOKENS["flood"], session) for session in flood]

    assert refused.status_code == 429
    assert 1 <= int(refused.headers["retry-after"]) <= 15  # a session every 15 s at 4 a minute
    message = refused.json()["error"]["message"]
    assert "new_sessions_per_minute (4)" in message and "flood" in message and "retry in" in message
    assert "mcp-session-id" not in refused.headers
    assert calm and still == [200, 200, 200, 200]


def test_the_limit_is_a_whole_number_of_at_least_one(tmp_path: Path) -> None:
    from toolscout import ConfigError
    from toolscout.gateway import load_config

    for bad, problem in ((0, "at least 1"), (True, "not true/false"), (1.5, "whole number")):
        config = write_config(tmp_path / "gw.json", {"t": {"command": "t"}}, new_sessions_per_minute=bad)
        with pytest.raises(ConfigError, match=f"toolscout.new_sessions_per_minute: must be .*{problem}"):
            load_config(config)


async def test_requests_in_a_session_never_count_and_a_named_session_counts_once(tmp_path: Path) -> None:
    auth = {"tokens": {label: {"token": token} for label, token in TOKENS.items()}}
    config = write_config(
        tmp_path / "gw.json", {"time": real_servers(tmp_path)["time"]}, mode="on", auth=auth, new_sessions_per_minute=3
    )
    async with http_gateway(config) as url, httpx2.AsyncClient(timeout=LIMIT_S) as http:
        async with http_client(url, token=TOKENS["flood"], session="modern") as modern:
            searches = [await modern.call_tool("tool_search", {"query": "current time"}) for _ in range(6)]
        legacy = await open_session(http, url, TOKENS["flood"])
        pings = [await ping(http, url, TOKENS["flood"], legacy) for _ in range(6)]
        second = await open_session(http, url, TOKENS["flood"])
        third = await http.post(url, json=INITIALIZE, headers={**ACCEPT, "Authorization": f"Bearer {TOKENS['flood']}"})

    assert [result.is_error for result in searches] == [False] * 6
    assert pings == [200] * 6 and second
    assert third.status_code == 429


async def test_a_body_without_a_length_is_cut_off_at_the_limit_before_it_ends(tmp_path: Path) -> None:
    import anyio

    config = write_config(tmp_path / "gw.json", {"time": real_servers(tmp_path)["time"]}, max_argument_bytes=10_000)
    async with http_gateway(config) as url:
        host, port = url.split("//")[1].split("/")[0].rsplit(":", 1)
        async with await anyio.connect_tcp(host, int(port)) as stream:
            head = (
                f"POST /mcp HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
                "Accept: application/json, text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
            )
            await stream.send(head.encode())
            chunk = b'{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"pad": "' + b"x" * 16_000
            for _ in range(16):  # 256 KB sent, the limit is 10,000 + 64 KiB; the body never ends
                await stream.send(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
            answer = b""
            with anyio.fail_after(10):
                while b"\r\n" not in answer:
                    answer += await stream.receive()

    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]


async def test_an_initialize_written_with_json_escapes_counts_like_any_other(tmp_path: Path) -> None:
    import json

    auth = {"tokens": {label: {"token": token} for label, token in TOKENS.items()}}
    config = write_config(
        tmp_path / "gw.json", {"time": real_servers(tmp_path)["time"]}, mode="on", auth=auth, new_sessions_per_minute=2
    )
    plain = json.dumps(INITIALIZE)
    escaped = [
        plain.replace('"initialize"', '"initiali\\u007ae"'),
        plain.replace('"method"', '"m\\u0065thod"').replace('"initialize"', '"\\u0069nitialize"'),
        plain.replace('"initialize"', '"initiali\\u007ae"'),
    ]
    headers = {**ACCEPT, "Authorization": f"Bearer {TOKENS['flood']}"}
    async with http_gateway(config) as url, httpx2.AsyncClient(timeout=LIMIT_S) as http:
        answers = [await http.post(url, content=body.encode(), headers=headers) for body in escaped]
        calm = await open_session(http, url, TOKENS["calm"])

    assert [answer.status_code for answer in answers] == [200, 200, 429]
    assert "new_sessions_per_minute (2)" in answers[2].json()["error"]["message"]
    assert calm


async def test_new_toolscout_session_ids_count_like_new_mcp_sessions(tmp_path: Path) -> None:
    auth = {"tokens": {label: {"token": token} for label, token in TOKENS.items()}}
    config = write_config(
        tmp_path / "gw.json", {"time": real_servers(tmp_path)["time"]}, mode="on", auth=auth, new_sessions_per_minute=3
    )
    arguments = {"query": "current time"}
    params = {"name": "tool_search", "arguments": arguments}
    search = {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": params}
    async with http_gateway(config) as url, httpx2.AsyncClient(timeout=LIMIT_S) as http:
        connection = await open_session(http, url, TOKENS["flood"])  # one of the 3
        headers = {**ACCEPT, "Authorization": f"Bearer {TOKENS['flood']}", "mcp-session-id": connection}

        async def call(name: str) -> httpx2.Response:
            return await http.post(url, json=search, headers={**headers, "Toolscout-Session": name})

        named = [await call(f"junk-{n}") for n in range(3)]
        again = await call("junk-0")
        calm = await open_session(http, url, TOKENS["calm"])

    assert [answer.status_code for answer in named] == [200, 200, 429]
    message = named[2].json()["error"]["message"]
    assert "new_sessions_per_minute (3)" in message and "Toolscout-Session" in message
    assert again.status_code == 200 and calm


async def test_an_over_rate_caller_is_refused_before_its_body_is_read(tmp_path: Path) -> None:
    import anyio

    auth = {"tokens": {label: {"token": token} for label, token in TOKENS.items()}}
    config = write_config(
        tmp_path / "gw.json", {"time": real_servers(tmp_path)["time"]}, mode="on", auth=auth, new_sessions_per_minute=1
    )
    async with http_gateway(config) as url, httpx2.AsyncClient(timeout=LIMIT_S) as http:
        assert await open_session(http, url, TOKENS["flood"])  # its bucket is empty now
        host, port = url.split("//")[1].split("/")[0].rsplit(":", 1)
        async with await anyio.connect_tcp(host, int(port)) as stream:
            head = (
                f"POST /mcp HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
                f"Accept: application/json, text/event-stream\r\nAuthorization: Bearer {TOKENS['flood']}\r\n"
                "Content-Length: 500\r\n\r\n"
            )
            await stream.send(head.encode() + b'{"jsonrpc": "2.0", "id": 1, "method": "initiali')  # never ends
            answer = b""
            with anyio.move_on_after(5):
                while b"\r\n" not in answer:
                    answer += await stream.receive()
        calm = await open_session(http, url, TOKENS["calm"])

    assert answer.startswith(b"HTTP/1.1 429"), answer[:200] or "no answer while the body was still coming"
    assert calm


async def test_a_caller_refused_again_and_again_waits_for_each_refusal_on_its_connection(tmp_path: Path) -> None:
    """A client ignoring ``Retry-After`` gets each further refusal only after a delay, so a flood of them costs the
    gateway a few requests a second per connection; another token opens its session meanwhile."""
    import time

    auth = {"tokens": {label: {"token": token} for label, token in TOKENS.items()}}
    config = write_config(
        tmp_path / "gw.json", {"time": real_servers(tmp_path)["time"]}, mode="on", auth=auth, new_sessions_per_minute=1
    )
    headers = {**ACCEPT, "Authorization": f"Bearer {TOKENS['flood']}"}
    async with http_gateway(config) as url, httpx2.AsyncClient(timeout=LIMIT_S) as http:
        assert await open_session(http, url, TOKENS["flood"])  # its bucket is empty now
        started = time.monotonic()
        refused = [(await http.post(url, json=INITIALIZE, headers=headers)).status_code for _ in range(4)]
        flood_s = time.monotonic() - started
        calm = await open_session(http, url, TOKENS["calm"])

    assert refused == [429] * 4
    assert flood_s >= 3 * 0.5, flood_s  # the three refusals after the first are each held back (a lower bound)
    assert calm
