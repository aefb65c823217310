"""Waiting 2026-07-28 calls through a real ``toolscout serve``: bounded per token, never at the cost of another."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import httpx2
import pytest

from tests.gateway.conftest import LIMIT_S, SERVERS, http_gateway, write_config

pytestmark = pytest.mark.anyio

TOKENS = {"ada": "token-ada-4f1c9e2b7d", "bob": "token-bob-8a3d5c0e61"}
MODERN = "2026-07-28"


async def modern_call(http: httpx2.AsyncClient, url: str, token: str, tool: str, capabilities: dict[str, Any]) -> Any:
    """One stateless 2026-07-28 ``tools/call`` through the bridge; the JSON-RPC answer."""
    meta = {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": capabilities,
        "io.modelcontextprotocol/clientInfo": {"name": "probe", "version": "1"},
    }
    params = {"name": "tool_call", "arguments": {"name": tool, "arguments": {"note": "x"}}, "_meta": meta}
    headers = {
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
        "MCP-Protocol-Version": MODERN,
        "Mcp-Method": "tools/call",
        "Mcp-Name": "tool_call",
        "Authorization": f"Bearer {token}",
    }
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}
    answer = await http.post(url, json=body, headers=headers)
    text = answer.text
    if answer.headers.get("content-type", "").startswith("text/event-stream"):
        text = next(line[5:] for line in text.splitlines() if line.startswith("data:") and '"id":1' in line)
    return json.loads(text)


async def test_a_token_past_its_waiting_calls_is_refused_and_another_tokens_calls_run(tmp_path: Path) -> None:
    relays = {}
    for n in range(4):  # a 2025-era server's request is routed only while one session has calls on it: one each
        (state := tmp_path / f"state{n}").mkdir()
        relays[f"r{n}"] = {"command": sys.executable, "args": [str(SERVERS / "relay.py"), str(state)]}
    auth = {"tokens": {label: {"token": token} for label, token in TOKENS.items()}}
    config = write_config(tmp_path / "gw.json", relays, mode="on", auth=auth, max_waiting_calls_per_token=2)
    async with http_gateway(config) as url, httpx2.AsyncClient(timeout=LIMIT_S) as http:
        # ada's calls ask her for a sampling answer she never gives: each keeps its place
        ada = [await modern_call(http, url, TOKENS["ada"], f"r{n}__sample", {"sampling": {}}) for n in range(3)]
        bob = [await modern_call(http, url, TOKENS["bob"], f"r{n}__sample", {"sampling": {}}) for n in (2, 3)]

    kinds = [answer["result"]["resultType"] for answer in ada]
    assert kinds == ["input_required", "input_required", "complete"]
    refused = ada[2]["result"]
    assert refused["isError"] and "max_waiting_calls_per_token" in refused["content"][0]["text"]
    assert [answer["result"]["resultType"] for answer in bob] == ["input_required", "input_required"]
