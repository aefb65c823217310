"""`toolscout client-config`: snippets per client, --write merging, a printed entry that starts the gateway."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from click.testing import CliRunner
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from tests.conftest import free_port
from tests.gateway.conftest import LIMIT_S
from toolscout.cli import main

pytestmark = pytest.mark.anyio
SERVERS = Path(__file__).parents[1] / "gateway" / "servers"
URL = "http://127.0.0.1:9000/mcp"


def gateway_config(tmp_path: Path) -> Path:
    config = tmp_path / "servers.json"
    upstream = {"command": sys.executable, "args": [str(SERVERS / "paged.py")]}
    # A generous start-up wait: this shared machine can be far slower than a user's (bench/gateway_startup.py).
    settings = {"store": "memory", "startup_wait_s": LIMIT_S}
    config.write_text(json.dumps({"mcpServers": {"paged": upstream}, "toolscout": settings}))
    return config


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["client-config", *args])
    return result.exit_code, result.stdout if result.exit_code == 0 else result.output


@pytest.mark.parametrize(
    ("client", "servers_key", "entry_keys"),
    [
        ("claude", "mcpServers", {"command", "args"}),
        ("claude-code", "mcpServers", {"type", "command", "args"}),
        ("cursor", "mcpServers", {"command", "args"}),
        ("vscode", "servers", {"type", "command", "args"}),
        ("windsurf", "mcpServers", {"command", "args"}),
    ],
)
def test_each_client_gets_a_stdio_entry_in_its_own_shape(tmp_path, client, servers_key, entry_keys) -> None:
    config = gateway_config(tmp_path)
    code, output = run(client, str(config))
    assert code == 0, output
    entry = json.loads(output)[servers_key]["toolscout"]
    assert set(entry) == entry_keys
    assert entry["args"] == ["serve", str(config.resolve())]
    assert Path(entry["command"]).is_absolute()


@pytest.mark.parametrize(
    ("client", "expected"),
    [
        ("vscode", {"type": "http", "url": URL}),
        ("cursor", {"url": URL}),
        ("windsurf", {"serverUrl": URL}),
    ],
)
def test_http_entries_use_each_clients_url_key(tmp_path, client, expected) -> None:
    code, output = run(client, str(gateway_config(tmp_path)), "--transport", "http", "--url", URL)
    assert code == 0, output
    assert next(iter(json.loads(output).values()))["toolscout"] == expected


def test_claude_desktop_refuses_http_with_the_reason(tmp_path) -> None:
    code, output = run("claude", str(gateway_config(tmp_path)), "--transport", "http")
    assert code != 0
    assert "only stdio servers" in output


def test_write_merges_into_an_existing_file_and_keeps_other_servers(tmp_path) -> None:
    target = tmp_path / "mcp.json"
    target.write_text(json.dumps({"mcpServers": {"other": {"command": "x"}}, "theme": "dark"}))
    code, output = run("cursor", str(gateway_config(tmp_path)), "--write", str(target))
    assert code == 0, output
    data = json.loads(target.read_text())
    assert data["theme"] == "dark"
    assert set(data["mcpServers"]) == {"other", "toolscout"}


def test_write_refuses_a_file_that_is_not_json_and_leaves_it_untouched(tmp_path) -> None:
    target = tmp_path / "mcp.json"
    target.write_text("{not json")
    code, output = run("cursor", str(gateway_config(tmp_path)), "--write", str(target))
    assert code != 0
    assert "nothing was written" in output
    assert target.read_text() == "{not json"


async def test_the_printed_stdio_entry_starts_a_gateway_whose_first_list_has_every_tool(tmp_path) -> None:
    _, output = run("vscode", str(gateway_config(tmp_path)))
    entry = json.loads(output)["servers"]["toolscout"]
    # The client's own environment (the SDK's safe default), not this test's: the entry must work as printed.
    params = StdioServerParameters(command=entry["command"], args=entry["args"])
    with (tmp_path / "gateway.log").open("w") as log:
        async with Client(stdio_client(params, errlog=log)) as client:
            listed = {tool.name for tool in (await client.list_tools()).tools}  # once, right after start
    assert "paged__alpha" in listed


async def test_the_printed_http_entry_reaches_the_gateway_the_printed_command_starts(tmp_path) -> None:
    config = gateway_config(tmp_path)
    port = free_port()
    data = json.loads(config.read_text())
    config.write_text(json.dumps({**data, "toolscout": {**data["toolscout"], "port": port}}))
    result = CliRunner().invoke(main, ["client-config", "cursor", str(config), "--transport", "http"])
    assert result.exit_code == 0, result.output
    url = json.loads(result.stdout)["mcpServers"]["toolscout"]["url"]
    command = shlex.split(result.stderr.strip().splitlines()[-1])
    assert url == f"http://127.0.0.1:{port}/mcp"
    with (tmp_path / "gateway.log").open("wb") as log:
        process = await anyio.open_process(command, stdout=subprocess.PIPE, stderr=log)
        try:
            assert process.stdout is not None
            with anyio.fail_after(LIMIT_S):
                await process.stdout.receive()  # the gateway prints its URL once it listens
                async with Client(streamable_http_client(url)) as client:
                    listed = {tool.name for tool in (await client.list_tools()).tools}
        finally:
            process.terminate()
            await process.wait()
    assert "paged__alpha" in listed


def test_a_stdio_entry_names_the_variables_the_config_needs_from_the_clients_environment(tmp_path) -> None:
    config = gateway_config(tmp_path)
    data = json.loads(config.read_text())
    data["mcpServers"]["paged"]["env"] = {"TOKEN": "${PAGED_TOKEN}", "MODE": "${PAGED_MODE:-fast}"}
    config.write_text(json.dumps(data))
    result = CliRunner().invoke(main, ["client-config", "claude", str(config)])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["mcpServers"]["toolscout"]["command"]
    assert "PAGED_TOKEN" in result.stderr and '"env"' in result.stderr
    assert "PAGED_MODE" not in result.stderr  # it has a default
