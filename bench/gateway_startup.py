"""Gateway start-up with many stdio upstreams: time to first answer and until every tool is attached.

For each server count, N small generated MCP servers (``bench/servers/small_server.py``, the
SDK's MCPServer, ``--tools`` tools each) sit behind ``toolscout serve`` (stdio, mode off so
``tools/list`` shows every tool). A 2025-era SDK client spawns the gateway and measures, from
the spawn: the end of ``initialize`` plus the first ``tools/list`` answer ("first answer"),
and the moment a ``tools/list`` (re-read on every ``notifications/tools/list_changed``) holds
every tool ("all attached"). With ``--compare`` the old behaviour (``--wait-for-upstreams``:
answer only once every upstream's first attempt finished) is measured too. The same run also times
the imports alone, alternating (median of 7 fresh interpreters each): the MCP SDK's server modules
that any Python MCP server loads, and the gateway's whole stack, so the first answer can be split
into import and the rest. Bytecode is compiled first, as an installed package has it.

    .venv/bin/python bench/gateway_startup.py [--servers 3 20 70] [--tools 7] [--compare]
    # -> bench/results/gateway_startup.{json,md}
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
from mcp.client import Client
from mcp.client.session import IncomingMessage
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp_types import ToolListChangedNotification

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
TOOLSCOUT = str(Path(sys.executable).with_name("toolscout"))
SMALL = ROOT / "bench" / "servers" / "small_server.py"
LIMIT_S = 900.0
IMPORTS = {
    "MCP SDK server (any Python MCP server)": "import mcp.server.lowlevel, mcp.server.stdio",
    "toolscout serve's whole stack": "import toolscout.cli._main, toolscout.gateway._serve",
}


def import_times(repeats: int = 7) -> dict[str, float]:
    """Median seconds a fresh interpreter takes for each of `IMPORTS`, measured alternately."""
    compileall.compile_dir(str(ROOT / "src" / "toolscout"), quiet=1)
    samples: dict[str, list[float]] = {label: [] for label in IMPORTS}
    for _ in range(repeats):
        for label, statement in IMPORTS.items():
            started = time.perf_counter()
            subprocess.run([sys.executable, "-c", statement], check=True)
            samples[label].append(time.perf_counter() - started)
    return {label: round(statistics.median(times), 2) for label, times in samples.items()}


def write_config(folder: Path, servers: int, tools: int) -> Path:
    entries = {
        f"s{index:02d}": {"command": sys.executable, "args": [str(SMALL), f"s{index:02d}", str(tools)]}
        for index in range(servers)
    }
    path = folder / f"gateway_{servers}.json"
    settings = {"mode": "off", "store": "memory", "offload": False}
    path.write_text(json.dumps({"mcpServers": entries, "toolscout": settings}))
    return path


async def measure(config: Path, expected: int, *, wait: bool) -> dict[str, float]:
    changed = anyio.Event()

    async def on_message(message: IncomingMessage) -> None:
        nonlocal changed
        if isinstance(message, ToolListChangedNotification):
            changed.set()

    args = ["serve", str(config), *(["--wait-for-upstreams"] if wait else [])]
    params = StdioServerParameters(command=TOOLSCOUT, args=args, env=dict(os.environ))
    started = time.perf_counter()
    with anyio.fail_after(LIMIT_S), open(os.devnull, "w") as sink:
        async with Client(stdio_client(params, errlog=sink), mode="legacy", message_handler=on_message) as client:
            listed = len((await client.list_tools()).tools)
            first = time.perf_counter() - started
            while listed < expected:
                await changed.wait()
                changed = anyio.Event()
                listed = len((await client.list_tools()).tools)
            attached = time.perf_counter() - started
    return {"first_answer_s": round(first, 2), "all_attached_s": round(attached, 2), "tools": listed}


async def run(counts: list[int], tools: int, compare: bool) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as folder:
        for count in counts:
            config = write_config(Path(folder), count, tools)
            row: dict[str, Any] = {"servers": count, "tools": count * tools}
            row["background"] = await measure(config, count * tools, wait=False)
            if compare:
                row["wait_for_upstreams"] = await measure(config, count * tools, wait=True)
            print(json.dumps(row), flush=True)
            rows.append(row)
    return rows


def markdown(rows: list[dict[str, Any]], imports: dict[str, float]) -> str:
    lines = [
        "# Gateway start-up with many stdio servers",
        "",
        f"`{' '.join(sys.argv)}` on {platform.node()} ({os.cpu_count()} CPUs, shared). Seconds from spawning",
        "`toolscout serve` (stdio) to the first `tools/list` answer and to a `tools/list` holding every tool.",
        "",
        "| servers | tools | first answer (s) | all attached (s) | first answer, --wait-for-upstreams (s) |",
        "|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        old = row.get("wait_for_upstreams", {}).get("first_answer_s", "-")
        lines.append(
            f"| {row['servers']} | {row['tools']} | {row['background']['first_answer_s']} "
            f"| {row['background']['all_attached_s']} | {old} |"
        )
    lines += ["", "Imports alone, same run (median of fresh interpreters, alternating):", ""]
    lines += ["| imports | s |", "|---|---:|", *(f"| {label} | {seconds} |" for label, seconds in imports.items())]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--servers", type=int, nargs="+", default=[3, 20, 70])
    parser.add_argument("--tools", type=int, default=7, help="tools per server")
    parser.add_argument("--compare", action="store_true", help="also measure --wait-for-upstreams")
    options = parser.parse_args()
    imports = import_times()
    rows = anyio.run(run, options.servers, options.tools, options.compare)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "gateway_startup.json").write_text(json.dumps({"rows": rows, "imports": imports}, indent=2) + "\n")
    (RESULTS / "gateway_startup.md").write_text(markdown(rows, imports))
    print(markdown(rows, imports))


if __name__ == "__main__":
    main()
