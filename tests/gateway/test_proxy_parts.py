"""The proxy's pure parts: URI namespacing, listing pages, advertised capabilities, scopes over names."""

from __future__ import annotations

import pytest
from mcp.shared.exceptions import MCPError
from mcp_types import (
    INVALID_PARAMS,
    CompletionsCapability,
    PromptsCapability,
    ResourcesCapability,
    ServerCapabilities,
)

from toolscout._scope import Scope
from toolscout.gateway._proxy._capabilities import offered_capabilities
from toolscout.gateway._proxy._listings import PAGE_SIZE, page
from toolscout.gateway._proxy._resources import namespaced_uri, original_uri

ADVERTISED = {"tools": {"listChanged": True}, "resources": {}, "prompts": {}, "completions": {}, "logging": {}}


@pytest.mark.parametrize(
    "uri",
    [
        "demo://resource/static/document/a.md",
        "file:///home/ada/notes.txt",
        "https://example.com/x?y=1#z",
        "toolscout://inner/test://nested",  # a gateway behind a gateway
        "demo://resource/dynamic/text/{resourceId}",
    ],
)
def test_a_namespaced_uri_maps_back_to_its_server_and_original(uri: str) -> None:
    assert original_uri(namespaced_uri("srv", uri)) == ("srv", uri)


def test_uris_that_are_not_the_gateways_map_to_nothing() -> None:
    assert original_uri("demo://resource/1") is None
    assert original_uri("toolscout://srv") is None
    assert original_uri("toolscout:///x") is None


def test_a_large_listing_comes_in_pages_that_add_up_to_it() -> None:
    entries = list(range(PAGE_SIZE * 2 + 5))
    seen: list[int] = []
    cursor: str | None = None
    pages = 0
    while True:
        chunk, cursor = page(entries, cursor)
        seen.extend(chunk)
        pages += 1
        assert len(chunk) <= PAGE_SIZE
        if cursor is None:
            break
    assert seen == entries and pages == 3


@pytest.mark.parametrize("cursor", ["nonsense", "eyJvZmZzZXQiOiAtMX0=", "eyJvZmZzZXQiOiB0cnVlfQ=="])
def test_a_cursor_the_gateway_did_not_give_is_invalid_params(cursor: str) -> None:
    with pytest.raises(MCPError) as raised:
        page([1, 2, 3], cursor)
    assert raised.value.code == INVALID_PARAMS and "nextCursor" in raised.value.message


def test_only_what_an_upstream_offers_is_advertised() -> None:
    tools_only = ServerCapabilities()
    with_prompts = ServerCapabilities(prompts=PromptsCapability(), completions=CompletionsCapability())
    offered = offered_capabilities(ADVERTISED, [tools_only, with_prompts], handshake=True)
    assert set(offered) == {"tools", "prompts", "completions"}
    assert offered["prompts"] == {"listChanged": True}


def test_subscriptions_are_advertised_on_2025_connections_when_an_upstream_has_them() -> None:
    upstream = ServerCapabilities(resources=ResourcesCapability(subscribe=True))
    assert offered_capabilities(ADVERTISED, [upstream], handshake=True)["resources"] == {
        "subscribe": True,
        "listChanged": True,
    }
    assert offered_capabilities(ADVERTISED, [upstream], handshake=False)["resources"] == {
        "subscribe": False,
        "listChanged": False,
    }


def test_everything_is_advertised_while_an_upstream_has_not_connected() -> None:
    offered = offered_capabilities(ADVERTISED, [ServerCapabilities(), None], handshake=True)
    assert set(offered) == set(ADVERTISED)


def test_a_scope_limited_to_a_server_permits_its_prompts_and_resources_only() -> None:
    scope = Scope.select(servers=["time"])
    assert scope.permits_name("time", "time__prompt")
    assert scope.permits_namespace("time")
    assert not scope.permits_name("memory", "memory__prompt")
    assert not scope.permits_namespace("memory")


@pytest.mark.parametrize(
    "scope",
    [
        Scope.select(tools=["*time*", "time__now"]),
        Scope.select(tools=["time:now"]),
        Scope.select(servers=["time"], deny=["time:*"]),
        Scope.select(servers=["time"]).narrowed(Scope.select(servers=["memory"])),
    ],
)
def test_tool_patterns_never_grant_a_servers_resources_and_a_server_deny_hides_them(scope: Scope) -> None:
    assert not scope.permits_namespace("time")
