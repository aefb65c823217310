"""The gateway as a whole MCP proxy: resources, templates, prompts, completions, and what servers send back.

Real upstreams (``server-everything`` and the 2025-era test server of ``servers/relay.py``) behind a
real ``toolscout serve``, through the SDK's client over stdio and HTTP, compared with the same
server reached directly.
"""

from __future__ import annotations

import base64
import json
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp.client import Client
from mcp.client.session import ClientRequestContext
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp_types import (
    BlobResourceContents,
    CreateMessageRequestParams,
    CreateMessageResult,
    ElicitRequestParams,
    ElicitResult,
    EmptyResult,
    ListRootsResult,
    LoggingMessageNotificationParams,
    PromptReference,
    ResourceLink,
    ResourceTemplateReference,
    ResourceUpdatedNotification,
    Root,
    SetLevelRequest,
    SetLevelRequestParams,
    SubscribeRequest,
    SubscribeRequestParams,
    TextContent,
    TextResourceContents,
)
from pydantic import FileUrl

from tests.gateway.conftest import LIMIT_S, REAL, SERVERS, TOOLSCOUT, http_gateway, write_config

pytestmark = pytest.mark.anyio

_SERVE = ("serve", "-v", "--log-format", "json", "--wait-for-upstreams")


def everything() -> dict[str, Any]:
    command = REAL / "node_modules" / ".bin" / "mcp-server-everything"
    if not command.exists():
        pytest.skip("server-everything is missing: run scripts/setup.sh")
    return {"command": str(command)}


def relay_server(state: Path) -> dict[str, Any]:
    state.mkdir(parents=True, exist_ok=True)
    return {"command": sys.executable, "args": [str(SERVERS / "relay.py"), str(state)]}


class Asked:
    """A client's callbacks, recording what the server asked this client."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.asked: list[str] = []
        self.logs: list[LoggingMessageNotificationParams] = []

    async def sampling(self, context: ClientRequestContext, params: CreateMessageRequestParams) -> CreateMessageResult:
        self.asked.append("sampling")
        return CreateMessageResult(
            role="assistant", content=TextContent(type="text", text=f"hi from {self.name}"), model="m"
        )

    async def elicitation(self, context: ClientRequestContext, params: ElicitRequestParams) -> ElicitResult:
        self.asked.append("elicitation")
        return ElicitResult(action="accept", content={"name": self.name})

    async def roots(self, context: ClientRequestContext) -> ListRootsResult:
        self.asked.append("roots")
        return ListRootsResult(roots=[Root(uri=FileUrl(f"file:///{self.name}"), name=self.name)])

    async def log(self, params: LoggingMessageNotificationParams) -> None:
        self.logs.append(params)

    def callbacks(self) -> dict[str, Any]:
        return {
            "sampling_callback": self.sampling,
            "elicitation_callback": self.elicitation,
            "list_roots_callback": self.roots,
            "logging_callback": self.log,
        }


@asynccontextmanager
async def stdio_client_of(config: Path, mode: str = "legacy", **options: Any) -> AsyncIterator[Client]:
    params = StdioServerParameters(
        command=TOOLSCOUT, args=[*_SERVE[:1], str(config), *_SERVE[1:]], env=dict(os.environ)
    )
    with (config.parent / "gateway.log").open("a") as log:
        async with Client(stdio_client(params, errlog=log), mode=mode, **options) as client:
            yield client


@asynccontextmanager
async def http_client_of(url: str, mode: str = "legacy", **options: Any) -> AsyncIterator[Client]:
    async with (
        httpx2.AsyncClient(timeout=httpx2.Timeout(LIMIT_S)) as http,
        Client(streamable_http_client(url, http_client=http), mode=mode, **options) as client,
    ):
        yield client


async def bridged(client: Client, tool: str, note: str, **options: Any) -> Any:
    """Call an upstream tool through the bridge; its JSON answer."""
    result = await client.call_tool("tool_call", {"name": tool, "arguments": {"note": note}}, **options)
    assert not result.is_error, result
    block = result.content[0]
    assert isinstance(block, TextContent)
    return json.loads(block.text)


async def test_everythings_resources_templates_and_prompts_match_the_server_reached_directly(tmp_path: Path) -> None:
    server = everything()
    config = write_config(tmp_path / "gw.json", {"everything": server})
    with anyio.fail_after(LIMIT_S):
        async with Client(stdio_client(StdioServerParameters(command=server["command"])), mode="legacy") as direct:
            want_resources = (await direct.list_resources()).resources
            want_templates = (await direct.list_resource_templates()).resource_templates
            want_prompts = (await direct.list_prompts()).prompts
            want_blob = (await direct.read_resource("demo://resource/dynamic/blob/7")).contents
            want_prompt = await direct.get_prompt("args-prompt", {"city": "Paris", "state": "TX"})
        async with stdio_client_of(config) as gateway:
            capabilities = gateway.server_capabilities
            resources = (await gateway.list_resources()).resources
            templates = (await gateway.list_resource_templates()).resource_templates
            prompts = (await gateway.list_prompts()).prompts
            text = (await gateway.read_resource(resources[0].uri)).contents
            blob = (await gateway.read_resource("toolscout://everything/demo://resource/dynamic/blob/7")).contents
            prompt = await gateway.get_prompt("everything__args-prompt", {"city": "Paris", "state": "TX"})
            completed = await gateway.complete(
                PromptReference(type="ref/prompt", name="everything__completable-prompt"),
                {"name": "department", "value": "Eng"},
            )
            template_completed = await gateway.complete(
                ResourceTemplateReference(
                    type="ref/resource", uri="toolscout://everything/demo://resource/dynamic/text/{resourceId}"
                ),
                {"name": "resourceId", "value": "1"},
            )
            with pytest.raises(MCPError, match="unknown resource"):
                await gateway.read_resource("demo://resource/dynamic/blob/7")
            with pytest.raises(MCPError, match="unknown prompt"):
                await gateway.get_prompt("args-prompt", {"city": "Paris"})
    assert capabilities.resources is not None and capabilities.resources.subscribe
    assert (
        capabilities.prompts is not None and capabilities.completions is not None and capabilities.logging is not None
    )
    assert [r.uri for r in resources] == [f"toolscout://everything/{r.uri}" for r in want_resources]
    assert [t.uri_template for t in templates] == [f"toolscout://everything/{t.uri_template}" for t in want_templates]
    assert [p.name for p in prompts] == [f"everything__{p.name}" for p in want_prompts]
    assert isinstance(text[0], TextResourceContents) and text[0].uri == resources[0].uri
    # Binary contents arrive byte for byte, under the namespaced URI (the server stamps the time of reading).
    assert isinstance(blob[0], BlobResourceContents) and isinstance(want_blob[0], BlobResourceContents)
    got, want = base64.b64decode(blob[0].blob), base64.b64decode(want_blob[0].blob)
    assert got.startswith(b"Resource 7: ") and got.rsplit(b" at ", 1)[0] == want.rsplit(b" at ", 1)[0]
    assert blob[0].uri == "toolscout://everything/demo://resource/dynamic/blob/7"
    assert prompt.messages == want_prompt.messages
    assert completed.completion.values and all(v.startswith("Eng") for v in completed.completion.values)
    assert template_completed.completion.values == ["1"]


async def test_two_upstreams_with_the_same_uris_stay_apart_over_http_and_scope_hides_the_other(tmp_path: Path) -> None:
    server = everything()
    config = write_config(tmp_path / "gw.json", {"left": server, "right": server})
    (tmp_path / "narrow").mkdir()
    narrow = write_config(
        tmp_path / "narrow" / "gw.json", {"left": server, "right": server}, scope={"servers": ["left"]}
    )
    with anyio.fail_after(LIMIT_S):
        async with http_gateway(config) as url, http_client_of(url) as client:
            resources = (await client.list_resources()).resources
            prompts = [prompt.name for prompt in (await client.list_prompts()).prompts]
            left = await client.read_resource("toolscout://left/demo://resource/dynamic/text/3")
            right = await client.read_resource("toolscout://right/demo://resource/dynamic/text/3")
        async with http_gateway(narrow) as url, http_client_of(url) as client:
            narrowed = (await client.list_resources()).resources
            narrowed_prompts = [prompt.name for prompt in (await client.list_prompts()).prompts]
            with pytest.raises(MCPError, match="not in this session's scope"):
                await client.read_resource("toolscout://right/demo://resource/dynamic/text/3")
            with pytest.raises(MCPError, match="unknown prompt"):
                await client.get_prompt("right__simple-prompt")
    uris = [resource.uri for resource in resources]
    assert len(uris) == len(set(uris)) == 14
    assert {uri.split("/")[2] for uri in uris} == {"left", "right"}
    assert "left__simple-prompt" in prompts and "right__simple-prompt" in prompts
    assert left.contents[0].uri.startswith("toolscout://left/") and right.contents[0].uri.startswith(
        "toolscout://right/"
    )
    assert [r.uri for r in narrowed] == [uri for uri in uris if uri.startswith("toolscout://left/")]
    assert narrowed_prompts == [name for name in prompts if name.startswith("left__")]


async def test_sampling_elicitation_roots_progress_and_logs_reach_the_calling_client_over_stdio(tmp_path: Path) -> None:
    config = write_config(tmp_path / "gw.json", {"relay": relay_server(tmp_path / "state")})
    asked = Asked("ada")
    progress: list[tuple[float, float | None, str | None]] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append((done, total, message))

    with anyio.fail_after(LIMIT_S):
        async with stdio_client_of(config, **asked.callbacks()) as client:
            elicited = await bridged(client, "relay__ask", "one")
            sampled = await bridged(client, "relay__sample", "two")
            roots = await bridged(client, "relay__roots", "three")
            await bridged(client, "relay__progress", "four", progress_callback=on_progress)
            await bridged(client, "relay__log", "five")
    assert elicited == {"action": "accept", "content": {"name": "ada"}}
    assert sampled == {"model": "m", "text": "hi from ada"}
    assert roots == {"roots": ["file:///ada"]}
    assert asked.asked == ["elicitation", "sampling", "roots"]
    assert [(done, total) for done, total, _ in progress] == [(1, 3), (2, 3), (3, 3)]
    assert [(log.level, log.data, log.logger) for log in asked.logs] == [
        ("debug", "five at debug", "relay.relay"),
        ("warning", "five at warning", "relay.relay"),
    ]


async def test_a_client_without_the_capability_gets_the_upstream_an_error_not_a_hang(tmp_path: Path) -> None:
    config = write_config(tmp_path / "gw.json", {"relay": relay_server(tmp_path / "state")})
    with anyio.fail_after(LIMIT_S):
        async with stdio_client_of(config) as client:
            elicited = await bridged(client, "relay__ask", "one")
            sampled = await bridged(client, "relay__sample", "two")
    assert "does not support it" in elicited["message"]
    assert "does not support it" in sampled["message"]


async def test_logging_set_level_drops_messages_below_it(tmp_path: Path) -> None:
    config = write_config(tmp_path / "gw.json", {"relay": relay_server(tmp_path / "state")})
    asked = Asked("ada")
    with anyio.fail_after(LIMIT_S):
        async with stdio_client_of(config, **asked.callbacks()) as client:
            await client.session.send_request(
                SetLevelRequest(params=SetLevelRequestParams(level="warning")), EmptyResult
            )
            await bridged(client, "relay__log", "six")
    assert [(log.level, log.data) for log in asked.logs] == [("warning", "six at warning")]


async def test_one_clients_log_level_changes_only_the_logs_it_gets_and_ends_with_its_session(tmp_path: Path) -> None:
    state = tmp_path / "state"
    config = write_config(tmp_path / "gw.json", {"relay": relay_server(state)})
    ada, bob = Asked("ada"), Asked("bob")
    with anyio.fail_after(LIMIT_S):
        async with http_gateway(config) as url, http_client_of(url, **bob.callbacks()) as quiet:
            async with http_client_of(url, **ada.callbacks()) as verbose:
                await verbose.session.send_request(
                    SetLevelRequest(params=SetLevelRequestParams(level="debug")), EmptyResult
                )
                await bridged(verbose, "relay__log", "for ada")
                await bridged(quiet, "relay__log", "for bob")
                while_ada = (state / "level").read_text()
            await bridged(quiet, "relay__log", "for bob again")  # ada's session ended when she closed it
            after_ada = (state / "level").read_text()
    assert [log.data for log in ada.logs] == ["for ada at debug", "for ada at warning"]
    assert [log.data for log in bob.logs] == ["for bob at warning", "for bob again at warning"]
    assert while_ada == "debug" and after_ada == "info"


async def test_a_cancelled_call_is_cancelled_on_the_upstream(tmp_path: Path) -> None:
    state = tmp_path / "state"
    config = write_config(tmp_path / "gw.json", {"relay": relay_server(state)})
    with anyio.fail_after(LIMIT_S):
        async with stdio_client_of(config) as client:
            async with anyio.create_task_group() as group:
                group.start_soon(bridged, client, "relay__wait", "seven")
                while not (state / "started").exists():
                    await anyio.sleep(0.05)
                group.cancel_scope.cancel()
            while not (state / "cancelled").exists():
                await anyio.sleep(0.05)
            answer = await bridged(client, "relay__log", "still serving")
    assert (state / "cancelled").read_text() == "seven"
    assert answer == {"logged": 2}


async def test_two_http_clients_each_get_only_their_own_requests_progress_and_logs(tmp_path: Path) -> None:
    config = write_config(
        tmp_path / "gw.json", {"relay": relay_server(tmp_path / "state"), "other": relay_server(tmp_path / "other")}
    )
    ada, bob = Asked("ada"), Asked("bob")
    progress: dict[str, list[str | None]] = {"ada": [], "bob": []}

    def recorder(name: str) -> Any:
        async def on_progress(done: float, total: float | None, message: str | None) -> None:
            progress[name].append(message)

        return on_progress

    with anyio.fail_after(LIMIT_S):
        async with (
            http_gateway(config) as url,
            http_client_of(url, **ada.callbacks()) as first,
            http_client_of(url, **bob.callbacks()) as second,
        ):
            # One client at a time on an upstream: each request goes to the client that made the call.
            ada_elicited = await bridged(first, "relay__ask", "a")
            bob_sampled = await bridged(second, "other__sample", "b")
            bob_roots = await bridged(second, "relay__roots", "b")
            # Both at once on the same upstream: progress is matched by token, exactly.
            async with anyio.create_task_group() as group:
                group.start_soon(lambda: bridged(first, "relay__progress", "ada", progress_callback=recorder("ada")))
                group.start_soon(lambda: bridged(second, "relay__progress", "bob", progress_callback=recorder("bob")))
            await bridged(first, "other__log", "for ada")
    assert ada_elicited == {"action": "accept", "content": {"name": "ada"}}
    assert bob_sampled == {"model": "m", "text": "hi from bob"}
    assert bob_roots == {"roots": ["file:///bob"]}
    assert ada.asked == ["elicitation"] and bob.asked == ["sampling", "roots"]
    assert progress == {"ada": [f"ada step {n}" for n in (1, 2, 3)], "bob": [f"bob step {n}" for n in (1, 2, 3)]}
    assert [log.data for log in ada.logs] == ["for ada at debug", "for ada at warning"] and bob.logs == []


async def test_a_request_two_clients_could_have_caused_goes_to_neither(tmp_path: Path) -> None:
    state = tmp_path / "state"
    config = write_config(tmp_path / "gw.json", {"relay": relay_server(state)})
    ada, bob = Asked("ada"), Asked("bob")
    with anyio.fail_after(LIMIT_S):
        async with (
            http_gateway(config) as url,
            http_client_of(url, **ada.callbacks()) as first,
            http_client_of(url, **bob.callbacks()) as second,
        ):
            async with anyio.create_task_group() as group:
                group.start_soon(bridged, first, "relay__wait", "ada waits")
                while not (state / "started").exists():
                    await anyio.sleep(0.05)
                # A 2025-era server does not say which call its request belongs to: never guess.
                refused = await bridged(second, "relay__ask", "bob asks")
                group.cancel_scope.cancel()
            alone = await bridged(second, "relay__ask", "bob asks again")
    assert "cannot tell which client" in refused["message"]
    assert alone == {"action": "accept", "content": {"name": "bob"}}
    assert ada.asked == [] and bob.asked == ["elicitation"]


async def test_resource_updates_reach_the_subscribed_client_and_links_in_results_are_readable(tmp_path: Path) -> None:
    config = write_config(tmp_path / "gw.json", {"everything": everything()})
    uri = "toolscout://everything/demo://resource/dynamic/text/1"
    updated = anyio.Event()
    seen: list[str] = []

    async def on_message(message: Any) -> None:
        if isinstance(message, ResourceUpdatedNotification):
            seen.append(message.params.uri)
            updated.set()

    with anyio.fail_after(LIMIT_S):
        async with stdio_client_of(config, message_handler=on_message) as client:
            await client.session.send_request(SubscribeRequest(params=SubscribeRequestParams(uri=uri)), EmptyResult)
            links = await client.call_tool(
                "tool_call", {"name": "everything__get-resource-links", "arguments": {"count": 2}}
            )
            await client.call_tool("tool_call", {"name": "everything__toggle-subscriber-updates", "arguments": {}})
            await updated.wait()
            linked = [block for block in links.content if isinstance(block, ResourceLink)]
            read = await client.read_resource(linked[0].uri)
    assert set(seen) == {uri}
    assert linked and all(link.uri.startswith("toolscout://everything/demo://") for link in linked)
    assert read.contents[0].uri == linked[0].uri


async def test_a_2026_client_answers_the_servers_requests_in_input_required_rounds(tmp_path: Path) -> None:
    config = write_config(tmp_path / "gw.json", {"relay": relay_server(tmp_path / "state")})
    ada, bob = Asked("ada"), Asked("bob")
    with anyio.fail_after(LIMIT_S):
        async with stdio_client_of(config, mode="auto", **ada.callbacks()) as client:
            version = client.protocol_version
            elicited = await bridged(client, "relay__ask", "one")
            sampled = await bridged(client, "relay__sample", "two")
        async with http_gateway(config) as url, http_client_of(url, mode="auto", **bob.callbacks()) as client:
            http_version = client.protocol_version
            roots = await bridged(client, "relay__roots", "three")
    assert version == http_version == "2026-07-28"
    assert elicited == {"action": "accept", "content": {"name": "ada"}}
    assert sampled == {"model": "m", "text": "hi from ada"}
    assert roots == {"roots": ["file:///bob"]}
    assert ada.asked == ["elicitation", "sampling"] and bob.asked == ["roots"]
