"""Gateway start-up with many stdio upstreams: time to the first answer, what it holds, and until all attached.

For each server count, N small generated MCP servers (``bench/servers/small_server.py``, the
SDK's MCPServer, ``--tools`` tools each) sit behind ``toolscout serve`` (stdio, mode off so
``tools/list`` shows every tool). A 2025-era SDK client spawns the gateway and measures, from
the spawn: the end of ``initialize`` plus the first ``tools/list`` answer ("first answer") and how
many of the tools it holds, and the moment a ``tools/list`` (re-read on every
``notifications/tools/list_changed``) holds every tool ("all attached"). Each count is measured
three ways in one run: this tree with a fresh cache folder (no tool lists remembered), this tree
started again on the same cache folder (the tools listed last time stand in), and the ``src`` tree
of a baseline commit (``--baseline``, default: where this branch left ``main``) run by the same
interpreter. With ``--compare`` ``--wait-for-upstreams`` (answer only once every upstream's first
attempt finished) is measured too. The same run also times the imports alone, alternating (median
of 7 fresh interpreters each): the MCP SDK's server modules that any Python MCP server loads, and
the gateway's whole stack. Bytecode is compiled first, as an installed package has it.

    .venv/bin/python bench/gateway_startup.py [--servers 3 20 70] [--tools 7] [--baseline REF] [--compare]
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
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path
from typing import Any

import anyio
from mcp.client import Client
from mcp.client.session import IncomingMessage
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp_types import ToolListChangedNotification

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
SMALL = ROOT / "bench" / "servers" / "small_server.py"
LIMIT_S = 900.0
IMPORTS = {
    "MCP SDK server (any Python MCP server)": "import mcp.server.lowlevel, mcp.server.stdio",
    "toolscout serve's whole stack": "import toolscout.cli._main, toolscout.gateway._http._serve",
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


async def measure(config: Path, expected: int, *, env: dict[str, str], wait: bool = False) -> dict[str, float]:
    changed = anyio.Event()

    async def on_message(message: IncomingMessage) -> None:
        if isinstance(message, ToolListChangedNotification):
            changed.set()

    launch = "from toolscout.cli import main; main()"  # the `toolscout` script, importing toolscout from PYTHONPATH
    args = ["-c", launch, "serve", str(config), *(["--wait-for-upstreams"] if wait else [])]
    params = StdioServerParameters(command=sys.executable, args=args, env=env)
    started = time.perf_counter()
    with anyio.fail_after(LIMIT_S), open(os.devnull, "w") as sink:
        async with Client(stdio_client(params, errlog=sink), mode="legacy", message_handler=on_message) as client:
            listed = len((await client.list_tools()).tools)
            first = time.perf_counter() - started
            in_first = listed
            while listed < expected:
                await changed.wait()
                changed = anyio.Event()
                listed = len((await client.list_tools()).tools)
            attached = time.perf_counter() - started
    return {"first_answer_s": round(first, 2), "tools_in_first_answer": in_first, "all_attached_s": round(attached, 2)}


def export_src(ref: str, into: Path) -> Path:
    """Write the ``src`` tree of commit `ref` under `into`; return its path."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", ref, "src"], check=True, capture_output=True).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    compileall.compile_dir(str(into / "src"), quiet=1)
    return into / "src"


def environment(src: Path, cache: Path) -> dict[str, str]:
    """The gateway's environment: toolscout imported from `src`, tool lists remembered in `cache`."""
    path = os.pathsep.join(filter(None, [str(src), os.environ.get("PYTHONPATH", "")]))
    return {**os.environ, "PYTHONPATH": path, "TOOLSCOUT_CACHE_DIR": str(cache)}


async def run(counts: list[int], tools: int, baseline: Path, compare: bool) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    here = ROOT / "src"
    with tempfile.TemporaryDirectory() as folder:
        for count in counts:
            config = write_config(Path(folder), count, tools)
            expected = count * tools
            cache = Path(folder) / f"cache_{count}"
            row: dict[str, Any] = {"servers": count, "tools": expected}
            row["baseline"] = await measure(config, expected, env=environment(baseline, Path(folder) / "unused"))
            row["fresh"] = await measure(config, expected, env=environment(here, cache))
            row["remembered"] = await measure(config, expected, env=environment(here, cache))
            if compare:
                row["wait_for_upstreams"] = await measure(
                    config, expected, env=environment(here, Path(folder) / f"cold_{count}"), wait=True
                )
            print(json.dumps(row), flush=True)
            rows.append(row)
    return rows


def markdown(rows: list[dict[str, Any]], imports: dict[str, float], baseline: str) -> str:
    lines = [
        "# Gateway start-up with many stdio servers",
        "",
        f"`{' '.join(sys.argv)}` on {platform.node()} ({os.cpu_count()} CPUs, shared). Seconds from spawning",
        "`toolscout serve` (stdio) to the first `tools/list` answer (and the tools it holds) and to a `tools/list`",
        f"holding every tool. Baseline: the `src` tree of `{baseline}`, same interpreter, same run.",
        "",
        "| servers | tools | first answer s (tools) | all attached s | remembered: first answer s (tools) "
        f"| baseline `{baseline}`: first answer s (tools) | baseline all attached s | --wait-for-upstreams s |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        fresh, remembered, old = row["fresh"], row["remembered"], row["baseline"]
        waited = row.get("wait_for_upstreams", {}).get("first_answer_s", "-")
        lines.append(
            f"| {row['servers']} | {row['tools']} | {fresh['first_answer_s']} ({fresh['tools_in_first_answer']}) "
            f"| {fresh['all_attached_s']} | {remembered['first_answer_s']} ({remembered['tools_in_first_answer']}) "
            f"| {old['first_answer_s']} ({old['tools_in_first_answer']}) | {old['all_attached_s']} | {waited} |"
        )
    lines += ["", "Imports alone, same run (median of fresh interpreters, alternating):", ""]
    lines += ["| imports | s |", "|---|---:|", *(f"| {label} | {seconds} |" for label, seconds in imports.items())]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--servers", type=int, nargs="+", default=[3, 20, 70])
    parser.add_argument("--tools", type=int, default=7, help="tools per server")
    parser.add_argument("--baseline", help="commit to compare with (default: merge-base of HEAD and main)")
    parser.add_argument("--compare", action="store_true", help="also measure --wait-for-upstreams")
    options = parser.parse_args()
    baseline = (
        options.baseline
        or subprocess.run(
            ["git", "-C", str(ROOT), "merge-base", "HEAD", "main"], check=True, capture_output=True, text=True
        ).stdout.strip()
    )
    imports = import_times()
    with tempfile.TemporaryDirectory() as exported:
        src = export_src(baseline, Path(exported))
        rows = anyio.run(run, options.servers, options.tools, src, options.compare)
    RESULTS.mkdir(exist_ok=True)
    document = {"baseline": baseline, "rows": rows, "imports": imports}
    (RESULTS / "gateway_startup.json").write_text(json.dumps(document, indent=2) + "\n")
    (RESULTS / "gateway_startup.md").write_text(markdown(rows, imports, baseline[:7]))
    print(markdown(rows, imports, baseline[:7]))


if __name__ == "__main__":
    main()
