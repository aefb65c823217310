"""Bearer tokens over HTTP: 401 for strangers, and a token never reaches another token's tools by any route."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest

from tests.gateway.conftest import LIMIT_S, http_client, http_gateway, names, payload, real_servers, write_config
from toolscout import ToolSpec
from toolscout.gateway._identity import StaticTokenVerifier, TokenGrant
from toolscout.gateway._identity._auth import AuthSettings

pytestmark = pytest.mark.anyio

TOKEN_A = "token-a-3f9d2c71e5b84a06"
TOKEN_B = "token-b-9e1a7c44d2f05b38"
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "probe", "version": "1"}},
}


def config(tmp_path: Path) -> Path:
    servers = real_servers(tmp_path)
    auth = {
        "tokens": {"alpha": {"token": TOKEN_A, "servers": ["time"]}, "beta": {"token": TOKEN_B, "servers": ["memory"]}}
    }
    chosen = {name: servers[name] for name in ("time", "memory")}
    return write_config(tmp_path / "gw.json", chosen, mode="on", pinned=["memory__read_graph"], auth=auth)


def strings(value: Any, *, skip: str = "query") -> list[str]:
    """Every string in a JSON answer except the echoed query."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [item for entry in value for item in strings(entry, skip=skip)]
    if isinstance(value, dict):
        return [item for key, entry in value.items() if key != skip for item in strings(entry, skip=skip)]
    return []


def leaks(answer: Any, *, echoed: str) -> list[str]:
    """Strings in an answer that mention memory tools, beyond echoing the name the caller sent."""
    return [item for item in strings(answer) if "memory" in item.replace(echoed, "")]


async def test_requests_without_a_valid_token_get_401_and_no_catalog_detail(tmp_path: Path) -> None:
    with anyio.fail_after(LIMIT_S):
        async with http_gateway(config(tmp_path)) as url, httpx2.AsyncClient() as http:
            missing = await http.post(url, json=INITIALIZE, headers=ACCEPT)
            wrong = await http.post(url, json=INITIALIZE, headers={**ACCEPT, "Authorization": "Bearer not-a-token"})
            health = await http.get(url.replace("/mcp", "/healthz"))
    for response in (missing, wrong):
        assert response.status_code == 401
        assert response.headers["www-authenticate"].startswith("Bearer")
        assert "time" not in response.text and "memory" not in response.text
    assert health.json() == {"status": "ok"}


async def test_token_a_cannot_list_find_describe_or_call_token_b_tools_by_any_route(tmp_path: Path) -> None:
    memory_file = tmp_path / "mem.jsonl"
    with anyio.fail_after(LIMIT_S):
        async with http_gateway(config(tmp_path)) as url, http_client(url, token=TOKEN_A) as client:
            listed = names(await client.list_tools())
            guidance = client.instructions or ""
            searches = {
                query: payload(await client.call_tool("tool_search", {"query": query}))
                for query in (
                    "memory",
                    "read graph",
                    "memory__read_graph",
                    "`memory__read_graph`",
                    ".*",
                    "memory.*",
                    "",
                )
            }
            describe = payload(await client.call_tool("tool_describe", {"names": ["memory__read_graph"]}))
            attempts = [
                await client.call_tool("tool_call", {"name": "memory__read_graph", "arguments": {}}),
                await client.call_tool("tool_call", {"name": "read_graph", "arguments": {}}),
                await client.call_tool("memory__read_graph", {}),
                await client.call_tool(
                    "tool_call",
                    {
                        "name": "memory__create_entities",
                        "arguments": {"entities": [{"name": "x", "entityType": "y", "observations": []}]},
                    },
                ),
            ]
            health = httpx2.get(url.replace("/mcp", "/healthz"), headers={"Authorization": f"Bearer {TOKEN_A}"}).json()
    assert listed == ["tool_search", "tool_describe", "tool_call"]
    assert "memory" not in guidance and "time__get_current_time" in guidance
    for query, answer in searches.items():
        assert not [item for item in strings(answer) if "memory" in item], query
    assert searches[""]["total"] == 2
    assert describe["error"]["code"] == "unknown_tool"
    assert not leaks(describe, echoed="memory__read_graph")
    for attempt, echoed in zip(
        attempts, ["memory__read_graph", "read_graph", "memory__read_graph", "memory__create_entities"], strict=True
    ):
        error = payload(attempt)["error"]
        assert attempt.is_error and error["code"] == "unknown_tool"
        assert not leaks(error, echoed=echoed)
    assert not memory_file.exists() or "entityType" not in memory_file.read_text()
    assert [entry["name"] for entry in health["upstreams"]] == ["time"]


async def test_token_b_reaches_its_own_tools_and_cannot_use_token_a_connection(tmp_path: Path) -> None:
    with anyio.fail_after(LIMIT_S):
        async with http_gateway(config(tmp_path)) as url:
            async with http_client(url, token=TOKEN_B) as client:
                listed = names(await client.list_tools())
                graph = await client.call_tool("memory__read_graph", {})
            async with httpx2.AsyncClient(timeout=LIMIT_S) as http:
                opened = await http.post(url, json=INITIALIZE, headers={**ACCEPT, "Authorization": f"Bearer {TOKEN_A}"})
                session = opened.headers["mcp-session-id"]
                hijack = await http.post(
                    url,
                    json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
                    headers={
                        **ACCEPT,
                        "Authorization": f"Bearer {TOKEN_B}",
                        "Mcp-Session-Id": session,
                        "MCP-Protocol-Version": "2025-11-25",
                    },
                )
    assert listed == ["memory__read_graph", "tool_search", "tool_describe", "tool_call"]
    assert not graph.is_error and payload(graph) == {"entities": [], "relations": []}
    assert hijack.status_code == 404


def grant(**fields: Any) -> TokenGrant:
    return TokenGrant.model_validate({"token": "t" * 16, **fields})


def spec(name: str) -> ToolSpec:
    return ToolSpec(name=name, namespace=name.split("__")[0])


def test_a_grant_without_servers_or_tools_sees_everything_but_its_denials() -> None:
    scope = grant(deny=["git__git_reset"]).scope()
    assert scope.permits(spec("time__get_current_time"))
    assert not scope.permits(spec("git__git_reset"))


def test_a_grant_sees_its_servers_and_its_tool_globs_and_nothing_else() -> None:
    scope = grant(servers=["time"], tools=["memory__read_*"]).scope()
    assert scope.permits(spec("time__convert_time"))
    assert scope.permits(spec("memory__read_graph"))
    assert not scope.permits(spec("memory__create_entities"))
    assert not scope.permits(spec("timer__start"))
    assert not grant(servers=[]).scope().permits(spec("time__convert_time"))


async def test_the_verifier_names_the_grant_and_knows_no_other_token() -> None:
    settings = AuthSettings.model_validate({"tokens": {"ci": {"token": TOKEN_A}, "ops": {"token": TOKEN_B}}})
    verifier = StaticTokenVerifier(settings)
    found = await verifier.verify_token(TOKEN_B)
    assert found is not None and found.client_id == "ops" and TOKEN_B not in found.model_dump_json()
    assert await verifier.verify_token(TOKEN_A[:-1]) is None
    assert await verifier.verify_token("") is None
