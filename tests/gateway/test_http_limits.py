"""The HTTP gateway refuses a body larger than any valid call before reading or parsing it."""

from __future__ import annotations

import json
from pathlib import Path

import httpx2
import pytest

from tests.gateway.conftest import LIMIT_S, http_gateway, slow_server, write_config

pytestmark = pytest.mark.anyio


async def test_a_body_over_max_argument_bytes_plus_the_envelope_is_refused_with_413_naming_the_limit(
    tmp_path: Path,
) -> None:
    servers = {"beta": slow_server(tmp_path / "beta", 0, "beta")}
    config = write_config(tmp_path / "gw.json", servers, store="memory", max_argument_bytes=100_000)
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call"}
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    async with http_gateway(config) as url, httpx2.AsyncClient(timeout=LIMIT_S) as http:
        too_big = {**call, "params": {"name": "tool_search", "arguments": {"query": "x" * 200_000}}}
        refused = await http.post(url, content=json.dumps(too_big).encode(), headers=headers)
        fits = {**call, "params": {"name": "tool_search", "arguments": {"query": "x" * 120_000}}}
        answered = await http.post(url, content=json.dumps(fits).encode(), headers=headers)
    assert refused.status_code == 413
    message = refused.json()["error"]["message"]
    assert "body is 200,114 bytes" in message and "the limit is 165,536" in message and "max_argument_bytes" in message
    assert answered.status_code != 413
