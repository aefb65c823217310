"""Offloading through the MCP gateway: a real filesystem server upstream, an MCP client downstream.

The client only ever sees MCP: the stub arrives as a tool result's JSON text, and the offload
tools are in its tool list.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client import Client

from tests.conftest import require
from toolscout import CharsPerToken, ConfigError
from toolscout.gateway import GatewayConfig
from toolscout.gateway._server import Gateway

pytestmark = pytest.mark.anyio

ROOT = Path(__file__).parents[2]
SERVER = ROOT / ".mcp-servers" / "node_modules" / ".bin" / "mcp-server-filesystem"
BUDGET = 4000


def config(shared: Path, tmp_path: Path, mode: str) -> GatewayConfig:
    return GatewayConfig.from_mapping(
        {
            "mcpServers": {"fs": {"command": str(SERVER), "args": [str(shared)]}},
            "toolscout": {"store": "memory", "mode": mode, "offload": {"budget_tokens": BUDGET, "folder": "outputs"}},
        },
        base_dir=tmp_path,
    )


def test_the_offload_section_is_read_and_a_relative_folder_is_taken_from_the_config_folder(tmp_path):
    settings = config(tmp_path, tmp_path, "on").settings.offload
    assert settings.budget_tokens == BUDGET
    assert settings.folder == tmp_path.resolve() / "outputs"


def test_offload_false_turns_it_off_and_bad_keys_are_named():
    base = {"mcpServers": {"fs": {"command": "x"}}}
    assert not GatewayConfig.from_mapping({**base, "toolscout": {"offload": False}}).settings.offload.enabled
    with pytest.raises(ConfigError) as info:
        GatewayConfig.from_mapping({**base, "toolscout": {"offload": {"budget_tokens": "big"}}})
    assert info.value.key == "toolscout.offload.budget_tokens"


def payload(result) -> Any:
    assert not result.is_error, result
    [block] = result.content
    return json.loads(block.text)


@pytest.mark.parametrize("mode", ["on", "off"])
async def test_a_client_gets_a_stub_and_reads_exact_slices_through_the_gateway(tmp_path: Path, mode: str) -> None:
    require(SERVER.exists(), "the real MCP servers are missing: run scripts/setup.sh")
    shared = (tmp_path / "shared").resolve()
    shared.mkdir()
    big = shared / "big.txt"
    text = "".join(f"{i:07d} {'NEEDLE' if i % 5000 == 1 else 'hay'} ü€😀\r\n" for i in range(150_000))
    big.write_bytes(text.encode())
    listing = shared / "listing.json"
    rows = [{"id": i, "name": f"file-{i}.txt", "size": (i * 7919) % 100_000} for i in range(40_000)]
    listing.write_text(json.dumps({"entries": rows}), encoding="utf-8")
    with anyio.fail_after(120):
        async with Gateway(config(shared, tmp_path, mode), transport="stdio", wait_for_upstreams=True) as gateway:
            assert gateway.scout.offload is not None
            async with Client(gateway.server) as client:
                await exercise(client, big, text, direct=mode == "off")
                await query_listing(client, listing, rows, direct=mode == "off")


async def exercise(client: Client, big: Path, text: str, *, direct: bool) -> None:
    lines = text.splitlines(keepends=True)
    listed = {tool.name for tool in (await client.list_tools()).tools}
    assert {"output_read", "output_search", "output_query"} <= listed
    arguments = {"path": str(big)}
    if direct:
        result = await client.call_tool("fs__read_text_file", arguments)
    else:
        result = await client.call_tool("tool_call", {"name": "fs__read_text_file", "arguments": arguments})
    assert CharsPerToken().count(result.content[0].text) <= BUDGET
    [part] = payload(result)["parts"]
    assert part["bytes"] == big.stat().st_size and part["lines"] == 150_000
    assert text.startswith(part["preview"])
    handle = part["handle"]

    page = payload(await client.call_tool("output_read", {"handle": handle, "start_line": 77_777, "lines": 3}))
    assert page["text"] == "".join(lines[77_776:77_779])
    chars = payload(await client.call_tool("output_read", {"handle": handle, "offset": 123_456, "length": 500}))
    assert chars["text"] == text[123_456:123_956]
    found = payload(await client.call_tool("output_search", {"handle": handle, "pattern": "needle", "context": 0}))
    assert [match["line"] for match in found["matches"]] == list(range(2, 150_001, 5000))[:20]
    assert found["matches"][0]["text"] == lines[1].rstrip("\r\n")
    not_json = await client.call_tool("output_query", {"handle": handle, "expression": "."})
    assert not_json.is_error
    assert json.loads(not_json.content[0].text)["error"]["code"] == "query_failed"


async def query_listing(client: Client, listing: Path, rows: list[dict[str, object]], *, direct: bool) -> None:
    arguments = {"path": str(listing)}
    if direct:
        result = await client.call_tool("fs__read_text_file", arguments)
    else:
        result = await client.call_tool("tool_call", {"name": "fs__read_text_file", "arguments": arguments})
    assert CharsPerToken().count(result.content[0].text) <= BUDGET
    [part] = payload(result)["parts"]
    assert part["shape"]["fields"]["entries"] == "array[40000] of object"
    expression = "[.entries[] | select(.size > 99900) | .name]"
    answer = payload(await client.call_tool("output_query", {"handle": part["handle"], "expression": expression}))
    assert answer["results"] == [[row["name"] for row in rows if int(str(row["size"])) > 99_900]]
