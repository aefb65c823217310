"""A real MCP server (@modelcontextprotocol/server-filesystem) reading multi-megabyte files through toolscout.

The server runs as a subprocess; toolscout's `Upstream` is the MCP client and the executor of a
`ToolScout` with offloading, in this process. What the model would get is checked against the files.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import anyio
import pytest

from tests.conftest import require
from toolscout import CharsPerToken, ScoutSettings, ToolScout
from toolscout.gateway._internal import StdioServer, Upstream
from toolscout.offload import Offloader, OffloadSettings
from toolscout.offload._internal import FileOffloadStore

pytestmark = pytest.mark.anyio

ROOT = Path(__file__).parents[2]
SERVER = ROOT / ".mcp-servers" / "node_modules" / ".bin" / "mcp-server-filesystem"
COUNTER = CharsPerToken()
BUDGET = 4000


def write_files(folder: Path) -> tuple[Path, Path]:
    log = folder / "server.log"
    rows = []
    for i in range(1, 60_001):
        level = "ERROR" if i % 1_500 == 0 else "INFO"
        rows.append(f"2025-01-01T00:{i % 60:02d}:00 {level} request {i} took {i % 977} ms — café ✓\r\n")
    log.write_bytes("".join(rows).encode())
    listing = folder / "repos.json"
    repos = [{"id": i, "name": f"repo-{i}", "stars": (i * 37) % 5000, "archived": i % 11 == 0} for i in range(25_000)]
    listing.write_text(json.dumps({"total": len(repos), "repos": repos}, indent=1), encoding="utf-8")
    return log, listing


async def test_large_files_read_through_a_real_server_come_back_as_stubs_and_exact_slices(tmp_path: Path) -> None:
    require(SERVER.exists(), "the real MCP servers are missing: run scripts/setup.sh")
    shared = (tmp_path / "shared").resolve()
    shared.mkdir()
    log, listing = write_files(shared)
    assert log.stat().st_size > 3_000_000 and listing.stat().st_size > 2_000_000
    offloader = Offloader(
        OffloadSettings(budget_tokens=BUDGET),
        store=FileOffloadStore(tmp_path / "offload"),
        token_counter=COUNTER,
    )
    with anyio.fail_after(120):
        async with Upstream("fs", StdioServer(command=str(SERVER), args=(str(shared),))) as upstream:
            tools = (await upstream.list_tools()).tools
            routes = {tool.spec.name: tool.upstream_name for tool in tools}

            async def execute(call):
                return await upstream.call_tool(routes[call.name], call.arguments, timeout_s=60)

            scout = ToolScout(
                [tool.spec for tool in tools],
                settings=ScoutSettings(mode="on"),
                executor=execute,
                token_counter=COUNTER,
                offload=offloader,
            )
            session = scout.session("real")
            assert session.assemble().names[:3] == ("output_read", "output_search", "output_query")

            read = await session.dispatch("tool_call", {"name": "fs__read_text_file", "arguments": {"path": str(log)}})
            assert not read.is_error
            assert COUNTER.count(read.to_text()) <= BUDGET
            [part] = read.content["parts"]
            text = log.read_bytes().decode()
            assert part["bytes"] == log.stat().st_size and part["lines"] == 60_000
            assert text.startswith(part["preview"])
            handle = part["handle"]

            page = await session.dispatch("output_read", {"handle": handle, "start_line": 30_000, "lines": 4})
            lines = text.splitlines(keepends=True)
            assert page.content["text"] == "".join(lines[29_999:30_003])
            chars = await session.dispatch("output_read", {"handle": handle, "offset": 1_000_003, "length": 777})
            assert chars.content["text"] == text[1_000_003:1_000_780]

            errors = await session.dispatch("output_search", {"handle": handle, "pattern": "error", "context": 1})
            expected = [n for n, line in enumerate(lines, 1) if " ERROR " in line]
            assert [match["line"] for match in errors.content["matches"]] == expected[:20]
            first = errors.content["matches"][0]
            assert first["text"] == lines[1_499].rstrip("\r\n")
            assert first["before"] == [lines[1_498].rstrip("\r\n")] and first["after"] == [lines[1_500].rstrip("\r\n")]
            assert errors.content["remaining_matches"] == len(expected) - 20
            regex = await session.dispatch(
                "output_search", {"handle": handle, "pattern": r"request 4\d{4} took 9\d\d ms", "regex": True}
            )
            wanted = [n for n, line in enumerate(lines, 1) if re.search(r"request 4\d{4} took 9\d\d ms", line)]
            assert [match["line"] for match in regex.content["matches"]] == wanted[:20]

            tree = await session.dispatch(
                "tool_call", {"name": "fs__read_text_file", "arguments": {"path": str(listing)}}
            )
            assert COUNTER.count(tree.to_text()) <= BUDGET
            [json_part] = tree.content["parts"]
            assert json_part["content_type"] == "application/json"
            assert json_part["shape"]["fields"]["repos"] == "array[25000] of object"
            data = json.loads(listing.read_text(encoding="utf-8"))
            starred = await session.dispatch(
                "output_query",
                {"handle": json_part["handle"], "expression": "[.repos[] | select(.stars > 4990) | .name]"},
            )
            assert starred.content["results"] == [[repo["name"] for repo in data["repos"] if repo["stars"] > 4990]]
            archived = await session.dispatch(
                "output_query", {"handle": json_part["handle"], "expression": "[.repos[] | select(.archived)] | length"}
            )
            assert archived.content["results"] == [sum(repo["archived"] for repo in data["repos"])]

            other = await scout.session("someone-else").dispatch("output_read", {"handle": handle})
            assert other.error is not None and other.error.code == "output_not_found"
            scout.close()
    assert not (tmp_path / "offload").exists() or not any((tmp_path / "offload").iterdir())
