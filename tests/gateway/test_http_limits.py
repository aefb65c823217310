"""The HTTP gateway refuses a body larger than any valid call before reading or parsing it (beyond a hard cap),
and answers a tool call whose arguments are too large with a tool error the model can read, as over stdio."""

from __future__ import annotations

import json
from pathlib import Path

import httpx2
import pytest

from tests.gateway.conftest import LIMIT_S, http_client, http_gateway, payload, slow_server, stdio_gateway, write_config

pytestmark = pytest.mark.anyio

HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
CALL = {"jsonrpc": "2.0", "id": 1, "method": "tools/call"}


async def test_a_body_over_the_hard_cap_is_refused_with_413_naming_the_limit(tmp_path: Path) -> None:
    servers = {"beta": slow_server(tmp_path / "beta", 0, "beta")}
    config = write_config(tmp_path / "gw.json", servers, store="memory", max_argument_bytes=100_000)
    async with http_gateway(config) as url, httpx2.AsyncClient(timeout=LIMIT_S) as http:
        too_big = {**CALL, "params": {"name": "tool_search", "arguments": {"query": "x" * 700_000}}}
        refused = await http.post(url, content=json.dumps(too_big).encode(), headers=HEADERS)
        fits = {**CALL, "params": {"name": "tool_search", "arguments": {"query": "x" * 120_000}}}
        answered = await http.post(url, content=json.dumps(fits).encode(), headers=HEADERS)
        not_a_call = {"jsonrpc": "2.0", "id": 2, "method": "ping", "params": {"pad": "x" * 200_000}}
        other = await http.post(url, content=json.dumps(not_a_call).encode(), headers=HEADERS)
    assert refused.status_code == 413
    message = refused.json()["error"]["message"]
    assert "body is 700,114 bytes" in message and "the limit is 165,536" in message and "max_argument_bytes" in message
    assert answered.status_code != 413
    assert other.status_code == 413, "only a tool call is answered as a tool error"


async def test_a_call_with_arguments_over_the_limit_is_a_tool_error_over_http_as_over_stdio(tmp_path: Path) -> None:
    servers = {"beta": slow_server(tmp_path / "beta", 0, "beta")}
    config = write_config(tmp_path / "gw.json", servers, store="memory", max_argument_bytes=100_000)
    arguments = {"query": "x" * 300_000}
    async with http_gateway(config) as url, http_client(url) as client:
        over_http = await client.call_tool("tool_search", arguments)
    async with stdio_gateway(config) as client:
        over_stdio = await client.call_tool("tool_search", arguments)
    for result in (over_http, over_stdio):
        assert result.is_error
        error = payload(result)["error"]
        assert error["limit"] == 100_000 and "the limit is 100,000" in error["message"], error
        assert error["tool"] == "tool_search"
