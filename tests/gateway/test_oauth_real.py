"""Real `toolscout serve` gateways behind a real local identity provider (its JWKS over HTTP, tokens signed here)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp.client import Client
from mcp.client.auth.utils import extract_resource_metadata_from_www_auth, extract_scope_from_www_auth
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import ProtectedResourceMetadata

from tests.gateway.conftest import LIMIT_S, fragile_server, http_client, http_gateway, names, payload, write_config
from tests.gateway.issuer import RESOURCE, Issuer, oauth_settings, running_issuer
from tests.gateway.test_replicas import MODERN, Balancer

pytestmark = pytest.mark.anyio

STATIC = "ci-token-3f9d2c71e5b84a06"
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "probe", "version": "1"}},
}
METADATA_URL = "https://tools.example.test/.well-known/oauth-protected-resource/mcp"


@pytest.fixture
def issuer() -> Iterator[Issuer]:
    with running_issuer() as running:
        yield running


def config(tmp_path: Path, issuer: Issuer, **settings: Any) -> Path:
    """Two copies of the fragile server; readers reach ``fragile``, ops everything, the static ``ci`` ``spare``."""
    servers = {"fragile": fragile_server(tmp_path / "a"), "spare": fragile_server(tmp_path / "b")}
    auth = {
        "tokens": {"ci": {"token": STATIC, "servers": ["spare"]}},
        "oauth": oauth_settings(
            issuer,
            grants={
                "ops": {"scopes": ["toolscout.admin"], "admin": True},
                "readers": {"scopes": ["toolscout.read"], "servers": ["fragile"]},
            },
        ),
    }
    settings.setdefault("mode", "on")
    return write_config(tmp_path / "gw.json", servers, auth=auth, **settings)


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def challenge(response: httpx2.Response) -> str:
    return response.headers.get("www-authenticate", "")


async def test_the_gateway_publishes_its_resource_metadata_and_challenges_every_bad_token(
    tmp_path: Path, issuer: Issuer
) -> None:
    now = int(time.time())
    with anyio.fail_after(LIMIT_S):
        async with http_gateway(config(tmp_path, issuer)) as url, httpx2.AsyncClient(timeout=LIMIT_S) as http:
            base = url.removesuffix("/mcp")
            metadata = await http.get(f"{base}/.well-known/oauth-protected-resource/mcp")
            bare = await http.get(f"{base}/.well-known/oauth-protected-resource")
            answers = {
                "missing": await http.post(url, json=INITIALIZE, headers=ACCEPT),
                "expired": await http.post(
                    url, json=INITIALIZE, headers={**ACCEPT, **bearer(issuer.token(exp=now - 3600))}
                ),
                "audience": await http.post(
                    url, json=INITIALIZE, headers={**ACCEPT, **bearer(issuer.token(aud="https://other.test/mcp"))}
                ),
                "none": await http.post(url, json=INITIALIZE, headers={**ACCEPT, **bearer(issuer.unsigned())}),
                "hmac": await http.post(
                    url, json=INITIALIZE, headers={**ACCEPT, **bearer(issuer.hmac_with_public_key())}
                ),
            }
            scopeless = await http.post(url, json=INITIALIZE, headers={**ACCEPT, **bearer(issuer.token(scope="email"))})
            valid = await http.post(url, json=INITIALIZE, headers={**ACCEPT, **bearer(issuer.token())})
            static = await http.post(url, json=INITIALIZE, headers={**ACCEPT, **bearer(STATIC)})
            page = await http.get(f"{base}/metrics", headers=bearer(issuer.token()))
            admin = await http.get(f"{base}/metrics", headers=bearer(issuer.token(scope="toolscout.admin")))
    for document in (metadata, bare):
        assert document.status_code == 200
        assert document.json() == {
            "resource": RESOURCE,
            "authorization_servers": [issuer.issuer],
            "scopes_supported": ["toolscout.admin", "toolscout.read"],
            "bearer_methods_supported": ["header"],
        }
    assert str(ProtectedResourceMetadata.model_validate(metadata.json()).resource) == RESOURCE  # as SDK clients read it
    for reason, answer in answers.items():
        assert extract_resource_metadata_from_www_auth(answer) == METADATA_URL, reason
        assert answer.status_code == 401, reason
        assert challenge(answer).startswith('Bearer error="invalid_token"'), reason
        assert f'resource_metadata="{METADATA_URL}"' in challenge(answer), reason
        assert "fragile" not in answer.text and "spare" not in answer.text
    assert "expired" in answers["expired"].json()["error_description"]
    assert "not issued for this resource" in answers["audience"].json()["error_description"]
    assert scopeless.status_code == 403
    assert 'error="insufficient_scope"' in challenge(scopeless)
    assert extract_scope_from_www_auth(scopeless) == "toolscout.admin toolscout.read"
    assert valid.status_code == 200 and static.status_code == 200
    assert page.status_code == 403 and admin.status_code == 200


async def test_an_access_token_reaches_only_its_grant_by_every_route(tmp_path: Path, issuer: Issuer) -> None:
    reader = issuer.token()
    with anyio.fail_after(LIMIT_S):
        async with http_gateway(config(tmp_path, issuer)) as url:
            async with http_client(url, token=reader) as client:
                found = payload(await client.call_tool("tool_search", {"query": "echo the text"}))
                called = await client.call_tool("tool_call", {"name": "fragile__echo", "arguments": {"text": "hi"}})
                refused = await client.call_tool("tool_call", {"name": "spare__echo", "arguments": {"text": "hi"}})
            async with http_client(url, token=STATIC) as client:
                static_found = payload(await client.call_tool("tool_search", {"query": "echo the text"}))
            health = httpx2.get(url.replace("/mcp", "/healthz"), headers=bearer(reader)).json()
    assert {tool["name"] for tool in found["tools"]} <= {"fragile__echo", "fragile__grow", "fragile__pid"}
    assert "fragile__echo" in {tool["name"] for tool in found["tools"]}
    assert not called.is_error
    assert refused.is_error and payload(refused)["error"]["code"] == "unknown_tool"
    assert all(tool["name"].startswith("spare__") for tool in static_found["tools"])
    assert [entry["name"] for entry in health["upstreams"]] == ["fragile"]


async def test_a_client_moving_between_two_replicas_keeps_its_session_with_its_access_token(
    tmp_path: Path, issuer: Issuer, redis_url: str
) -> None:
    gateway = config(tmp_path, issuer, style="reveal", store=redis_url)
    session = f"conversation-{tmp_path.name}"
    alice = issuer.token()

    def client(balancer: Balancer, token: str) -> tuple[httpx2.AsyncClient, Client]:
        headers = {"Toolscout-Session": session, **bearer(token)}
        http = httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(LIMIT_S), transport=balancer)
        return http, Client(streamable_http_client(str(balancer.replicas[0]), http_client=http), mode=MODERN)

    with anyio.fail_after(LIMIT_S):
        async with http_gateway(gateway) as first, http_gateway(gateway) as second:
            balancer = Balancer([first, second])
            http, mover = client(balancer, alice)
            async with http, mover:
                before = names(await mover.list_tools())
                await mover.call_tool("tool_search", {"query": "return the text unchanged"})
                balancer.to = 1  # the load balancer moves the client; same token
                moved = names(await mover.list_tools())
                echoed = await mover.call_tool("fragile__echo", {"text": "on the second replica"})
            renewed_http, renewed = client(Balancer([second]), issuer.token(iat=int(time.time()) + 1))
            async with renewed_http, renewed:
                after_refresh = names(await renewed.list_tools())
            bob_http, bob = client(Balancer([second]), issuer.token(sub="bob"))
            async with bob_http, bob:
                for_bob = names(await bob.list_tools())
    assert "fragile__echo" not in before
    assert "fragile__echo" in moved and not echoed.is_error
    assert "fragile__echo" in after_refresh  # a refreshed token is the same user: the same session
    assert "fragile__echo" not in for_bob  # the same session header from another user is another session
