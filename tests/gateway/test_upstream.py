from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import pytest
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp_types import TextContent
from pydantic import ValidationError

from toolscout.gateway._internal import HttpServer, StdioServer, Upstream, UpstreamError

pytestmark = pytest.mark.anyio

SERVERS = Path(__file__).parent / "servers"
BROKEN = StdioServer(command=sys.executable, args=(str(SERVERS / "broken_listing.py"),))
PAGED = StdioServer(command=sys.executable, args=(str(SERVERS / "paged.py"),))
LIMIT_S = 60  # generous bound on every wait; nothing here is a timing assertion


def text(result: object) -> str:
    content = getattr(result, "content", None)
    assert content and isinstance(content[0], TextContent)
    return content[0].text


async def test_the_sdk_alone_loses_every_tool_of_a_server_with_one_bad_schema() -> None:
    params = StdioServerParameters(command=BROKEN.command, args=list(BROKEN.args))
    with anyio.fail_after(LIMIT_S):
        async with Client(params) as client:
            with pytest.raises(ValidationError):
                await client.list_tools()


async def test_a_schema_without_object_type_is_normalized_and_a_malformed_tool_is_reported() -> None:
    with anyio.fail_after(LIMIT_S):
        async with Upstream("broken", BROKEN) as upstream:
            listing = await upstream.list_tools()
    assert [tool.spec.name for tool in listing.tools] == [
        "broken__add",
        "broken__echo",
        "broken__hang",
        "broken__crash",
    ]
    assert [tool.upstream_name for tool in listing.tools] == ["add", "echo", "hang", "crash"]
    assert listing.repaired == ("echo",)
    assert [(problem.server, problem.tool) for problem in listing.problems] == [("broken", "broken"), ("broken", None)]
    echo = listing.tools[1].spec
    assert echo.namespace == "broken"
    assert echo.parameters["type"] == "object"
    assert echo.parameters["properties"] == {"text": {"title": "Text", "type": "string"}}
    assert echo.description == "Return the text unchanged."


async def test_a_separator_from_config_joins_server_and_tool() -> None:
    with anyio.fail_after(LIMIT_S):
        async with Upstream("paged", PAGED, separator=".") as upstream:
            listing = await upstream.list_tools()
    assert listing.tools[0].spec.name == "paged.alpha"


async def test_calls_are_routed_by_the_upstream_name() -> None:
    with anyio.fail_after(LIMIT_S):
        async with Upstream("broken", BROKEN) as upstream:
            result = await upstream.call_tool("add", {"a": 2, "b": 40}, timeout_s=LIMIT_S)
            echoed = await upstream.call_tool("echo", {"text": "héllo"}, timeout_s=LIMIT_S)
    assert text(result) == "42" and not result.is_error
    assert text(echoed) == "héllo"


async def test_a_tool_failure_is_a_result_and_an_error_answer_an_upstream_error() -> None:
    with anyio.fail_after(LIMIT_S):
        async with Upstream("broken", BROKEN) as upstream:
            bad_arguments = await upstream.call_tool("add", {"a": "x"}, timeout_s=LIMIT_S)
        async with Upstream("paged", PAGED) as upstream:  # it has no tools/call handler at all
            with pytest.raises(UpstreamError) as caught:
                await upstream.call_tool("alpha", {}, timeout_s=LIMIT_S)
    assert bad_arguments.is_error
    assert caught.value.kind == "protocol" and caught.value.server == "paged"
    assert "answered with error" in str(caught.value)


async def test_a_hanging_call_times_out_and_the_connection_stays_usable() -> None:
    with anyio.fail_after(LIMIT_S):
        async with Upstream("broken", BROKEN) as upstream:
            with pytest.raises(UpstreamError) as caught:
                await upstream.call_tool("hang", {}, timeout_s=0.5)
            after = await upstream.call_tool("add", {"a": 1, "b": 1}, timeout_s=LIMIT_S)
    assert caught.value.kind == "timeout"
    assert "'hang' did not answer within 0.5 s" in str(caught.value)
    assert text(after) == "2"


async def test_a_server_that_dies_mid_call_gives_a_closed_error_for_that_call_and_the_next() -> None:
    with anyio.fail_after(LIMIT_S):
        async with Upstream("broken", BROKEN) as upstream:
            with pytest.raises(UpstreamError) as crashed:
                await upstream.call_tool("crash", {}, timeout_s=LIMIT_S)
            with pytest.raises(UpstreamError) as after:
                await upstream.call_tool("add", {"a": 1, "b": 1}, timeout_s=LIMIT_S)
    assert crashed.value.kind == "closed" and after.value.kind == "closed"
    assert "exited or crashed" in str(after.value)


async def test_every_page_of_a_paginated_listing_is_followed() -> None:
    with anyio.fail_after(LIMIT_S):
        async with Upstream("paged", PAGED) as upstream:
            listing = await upstream.list_tools()
    names = [tool.upstream_name for tool in listing.tools]
    assert names == ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot"]
    assert listing.complete and listing.problems == ()


async def test_pages_that_never_end_keep_what_was_read_and_report_it() -> None:
    cycling = StdioServer(command=sys.executable, args=(*PAGED.args, "--cycle"))
    with anyio.fail_after(LIMIT_S):
        async with Upstream("paged", cycling) as upstream:
            listing = await upstream.list_tools()
    assert len(listing.tools) == 6
    assert not listing.complete and listing.problems == ()


async def test_a_missing_command_fails_to_start_with_the_reason() -> None:
    with anyio.fail_after(LIMIT_S), pytest.raises(UpstreamError) as caught:
        async with Upstream("ghost", StdioServer(command="/nonexistent/mcp-server")):
            pass
    assert caught.value.kind == "start"
    assert "cannot start '/nonexistent/mcp-server'" in str(caught.value)


async def test_a_server_that_exits_at_start_up_shows_the_end_of_its_stderr() -> None:
    script = "import sys; sys.stderr.write('FOO_TOKEN environment variable is not set\\n'); sys.exit(1)"
    with anyio.fail_after(LIMIT_S), pytest.raises(UpstreamError) as caught:
        async with Upstream("quitter", StdioServer(command=sys.executable, args=("-c", script))):
            pass
    assert caught.value.kind == "start"
    assert "exited during start-up" in str(caught.value)
    assert "FOO_TOKEN environment variable is not set" in str(caught.value)


async def test_a_server_that_never_answers_fails_at_the_connect_timeout() -> None:
    silent = StdioServer(command=sys.executable, args=("-c", "import sys; sys.stdin.read()"))
    with anyio.fail_after(LIMIT_S), pytest.raises(UpstreamError) as caught:
        async with Upstream("silent", silent, connect_timeout_s=0.5):
            pass
    assert caught.value.kind == "start"
    assert "within 0.5 s" in str(caught.value)


async def test_config_env_reaches_the_server_process() -> None:
    script = "import os, sys; sys.stderr.write(os.environ['TS_PROBE']); sys.exit(1)"
    probe = StdioServer.model_validate({"command": sys.executable, "args": ["-c", script], "env": {"TS_PROBE": "seen"}})
    with anyio.fail_after(LIMIT_S), pytest.raises(UpstreamError, match="seen"):
        async with Upstream("probe", probe):
            pass


@pytest.fixture
async def http_url() -> AsyncIterator[str]:
    command = [sys.executable, str(SERVERS / "broken_listing.py"), "--http", "test-token"]
    async with await anyio.open_process(command) as process:
        assert process.stdout is not None
        with anyio.fail_after(LIMIT_S):
            line = await process.stdout.receive()
        yield line.decode().strip()
        process.terminate()


async def test_a_streamable_http_upstream_gets_its_headers_and_the_same_repairs(http_url: str) -> None:
    server = HttpServer.model_validate({"url": http_url, "headers": {"Authorization": "Bearer test-token"}})
    with anyio.fail_after(LIMIT_S):
        async with Upstream("remote", server) as upstream:
            listing = await upstream.list_tools()
            result = await upstream.call_tool("add", {"a": 3, "b": 4}, timeout_s=LIMIT_S)
    assert [tool.upstream_name for tool in listing.tools] == ["add", "echo", "hang", "crash"]
    assert listing.repaired == ("echo",)
    assert text(result) == "7"


async def test_a_rejected_http_upstream_fails_to_start(http_url: str) -> None:
    with anyio.fail_after(LIMIT_S), pytest.raises(UpstreamError) as caught:
        async with Upstream("remote", HttpServer(url=http_url)):
            pass
    assert caught.value.kind == "start" and http_url in str(caught.value)
