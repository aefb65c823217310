"""What the gateway costs and saves: added latency per tool call, and first-turn tokens a client sees.

Latency: a fast local upstream (``bench/servers/echo_server.py``) is called directly with the MCP
SDK client over stdio, and through ``toolscout serve`` (stdio, and Streamable HTTP) fronting the
same server, in the same run, in interleaved rounds. Through the gateway the call is made both
as ``tool_call`` (bridge) and directly by its name (a pinned tool).

First-turn tokens: for the six real test servers and the twelve of ``examples/mcp_servers.json``,
the tool definitions (name, description, input schema) a client would hand the model when it
connects to every server itself, against what it gets from the gateway (its tools plus its
``instructions``), counted with toolscout's default token counter.

    .venv/bin/python bench/gateway_overhead.py [--calls 400] [--rounds 5]
    # -> bench/results/gateway_overhead.{json,md}

Against a git revision: ``--against REV`` serves the same config (the echo server and the real
``everything`` server, bridge style, lexical search) from this checkout and from REV's ``src/``
(``git archive``, on ``PYTHONPATH``), and times a ``tool_search`` and a bridged ``tool_call`` through
each, interleaved in the same rounds; it reports each p50 and the ratio this checkout / REV, with
the CPU time each gateway process spent per call (read from /proc, Linux).

    .venv/bin/python bench/gateway_overhead.py --against REV [--calls 400] [--rounds 5]
    # -> bench/results/gateway_against.{json,md}
"""

from __future__ import annotations

import argparse
import io
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx2
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from toolscout._tokens import default_token_counter
from toolscout.gateway import load_config
from toolscout.gateway._internal import StdioServer, Upstream

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
TOOLSCOUT = str(Path(sys.executable).with_name("toolscout"))
ECHO = {"command": sys.executable, "args": [str(ROOT / "bench" / "servers" / "echo_server.py")]}
REAL = ROOT / ".mcp-servers"
WARMUP = 50
# Measure the gateway with every upstream attached (it otherwise answers at once and attaches them after).
SERVE = ("serve", "--wait-for-upstreams")


def write_config(folder: Path, name: str, servers: dict[str, Any], **settings: Any) -> Path:
    path = folder / f"{name}.json"
    settings.setdefault("store", str(folder / f"{name}.sqlite3"))
    path.write_text(json.dumps({"mcpServers": servers, "toolscout": settings}))
    return path


@asynccontextmanager
async def stdio(command: str, *args: str, env: dict[str, str] | None = None) -> AsyncIterator[Client]:
    # The whole environment, so a gateway runs the toolscout on PYTHONPATH like the HTTP one does.
    params = StdioServerParameters(command=command, args=list(args), env=env if env is not None else dict(os.environ))
    with open("/dev/null", "w") as sink:
        async with Client(stdio_client(params, errlog=sink)) as client:
            yield client


@asynccontextmanager
async def http_gateway(config: Path) -> AsyncIterator[Client]:
    command = [TOOLSCOUT, *SERVE, str(config), "--transport", "http", "--port", "0"]
    async with await anyio.open_process(command, stderr=None) as process:
        assert process.stdout is not None
        line = b""
        while b"\n" not in line:
            line += await process.stdout.receive()
        url = line.decode().split()[0]
        try:
            async with httpx2.AsyncClient() as http, Client(streamable_http_client(url, http_client=http)) as client:
                yield client
        finally:
            process.terminate()


def percentile(values: list[float], pct: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(pct / 100 * (len(ordered) - 1)))]


async def measure_latency(calls: int, rounds: int, workdir: Path) -> dict[str, dict[str, float]]:
    bridged = write_config(workdir, "bridged", {"echo": ECHO}, mode="on")
    pinned = write_config(workdir, "pinned", {"echo": ECHO}, mode="on", pinned=["echo__*"])
    samples: dict[str, list[float]] = {}
    async with (
        stdio(*[ECHO["command"], *ECHO["args"]]) as direct,
        stdio(TOOLSCOUT, *SERVE, str(bridged)) as via_bridge,
        stdio(TOOLSCOUT, *SERVE, str(pinned)) as via_pinned,
        http_gateway(bridged) as via_http,
    ):
        paths: dict[str, Callable[[], Awaitable[Any]]] = {
            "direct (stdio)": lambda: direct.call_tool("echo", {"text": "hello"}),
            "gateway stdio, tool_call": lambda: via_bridge.call_tool(
                "tool_call", {"name": "echo__echo", "arguments": {"text": "hello"}}
            ),
            "gateway stdio, pinned tool": lambda: via_pinned.call_tool("echo__echo", {"text": "hello"}),
            "gateway HTTP, tool_call": lambda: via_http.call_tool(
                "tool_call", {"name": "echo__echo", "arguments": {"text": "hello"}}
            ),
        }
        for label, run in paths.items():
            for _ in range(WARMUP):
                result = await run()
                assert not result.is_error, (label, result)
            samples[label] = []
        for _ in range(rounds):
            for label, run in paths.items():
                for _ in range(calls):
                    started = time.perf_counter()
                    await run()
                    samples[label].append((time.perf_counter() - started) * 1000)
    base = statistics.median(samples["direct (stdio)"])
    return {
        label: {
            "p50_ms": round(statistics.median(values), 3),
            "p99_ms": round(percentile(values, 99), 3),
            "mean_ms": round(statistics.fmean(values), 3),
            "added_p50_ms": round(statistics.median(values) - base, 3),
            "calls": len(values),
        }
        for label, values in samples.items()
    }


def sources_of(rev: str, folder: Path) -> Path:
    """REV's ``src/`` folder, extracted under `folder`."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "src"], check=True, capture_output=True).stdout
    target = folder / f"src-{rev}"
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(target, filter="data")
    return target / "src"


def gateway_pids(pythonpaths: dict[str, Path]) -> dict[str, int]:
    """The pid of the gateway process started with each PYTHONPATH (Linux: read from /proc)."""
    found: dict[str, int] = {}
    for entry in Path("/proc").iterdir():
        try:
            environ = (entry / "environ").read_bytes().split(b"\0")
            command = (entry / "cmdline").read_bytes()
        except (OSError, ValueError):
            continue
        for side, path in pythonpaths.items():
            if f"PYTHONPATH={path}".encode() in environ and b"serve" in command:
                found[side] = int(entry.name)
    assert found.keys() == pythonpaths.keys(), found
    return found


def cpu_s(pid: int) -> float:
    """User plus system CPU seconds process `pid` has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def measure_against(rev: str, calls: int, rounds: int, workdir: Path) -> dict[str, Any]:
    """p50 of a ``tool_search`` and a bridged ``tool_call`` through this checkout's gateway and REV's, interleaved."""
    servers = {"echo": ECHO, "everything": {"command": str(REAL / "node_modules/.bin/mcp-server-everything")}}
    config = write_config(workdir, "against", servers, mode="on", search_mode="lexical", offload=False)
    sources = {"this checkout": ROOT / "src", rev: sources_of(rev, workdir)}
    requests: dict[str, tuple[str, dict[str, Any]]] = {
        "tool_search": ("tool_search", {"query": "add two numbers"}),
        "tool_call": ("tool_call", {"name": "echo__echo", "arguments": {"text": "hello"}}),
    }
    samples: dict[tuple[str, str], list[float]] = {(side, kind): [] for side in sources for kind in requests}
    cpu: dict[tuple[str, str], float] = {(side, kind): 0.0 for side in sources for kind in requests}
    async with (
        stdio(TOOLSCOUT, *SERVE, str(config), env={**os.environ, "PYTHONPATH": str(sources["this checkout"])}) as now,
        stdio(TOOLSCOUT, *SERVE, str(config), env={**os.environ, "PYTHONPATH": str(sources[rev])}) as then,
    ):
        clients = {"this checkout": now, rev: then}
        pids = gateway_pids(sources)
        for client in clients.values():
            for name, arguments in requests.values():
                for _ in range(WARMUP):
                    assert not (await client.call_tool(name, arguments)).is_error
        for number in range(rounds):
            order = list(clients.items()) if number % 2 == 0 else list(clients.items())[::-1]
            for kind, (name, arguments) in requests.items():
                used = {side: cpu_s(pid) for side, pid in pids.items()}
                for _ in range(calls):  # call by call, alternating the gateways, so load on the machine hits both
                    for side, client in order:
                        started = time.perf_counter()
                        await client.call_tool(name, arguments)
                        samples[side, kind].append((time.perf_counter() - started) * 1000)
                for side, pid in pids.items():
                    cpu[side, kind] += cpu_s(pid) - used[side]
    rows = {}
    for kind in requests:
        after, before = (statistics.median(samples[side, kind]) for side in sources)
        cpu_after, cpu_before = (cpu[side, kind] * 1000 / (calls * rounds) for side in sources)
        rows[kind] = {
            "cpu_ms_before": round(cpu_before, 3),
            "cpu_ms_after": round(cpu_after, 3),
            "cpu_ratio": round(cpu_after / cpu_before, 3),
            "p50_ms_before": round(before, 3),
            "p50_ms_after": round(after, 3),
            "ratio": round(after / before, 3),
        }
    return {"against": rev, "calls": calls, "rounds": rounds, "latency": rows}


def against_markdown(report: dict[str, Any]) -> str:
    lines = [
        "# The gateway against a revision",
        "",
        f"`bench/gateway_overhead.py --against {report['against']} --calls {report['calls']} "
        f"--rounds {report['rounds']}`:",
        "one run, both gateways interleaved, stdio, upstreams `echo_server.py` and `everything`, lexical search.",
        "",
        "p50: the client's wall time per call; CPU: the gateway process's CPU time per call (/proc), which",
        "a loaded machine disturbs less.",
        "",
        f"| request | p50 ms, {report['against']} | p50 ms, this checkout | ratio | gateway CPU ms, "
        f"{report['against']} | gateway CPU ms, this checkout | ratio |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for kind, row in report["latency"].items():
        lines.append(
            f"| {kind} | {row['p50_ms_before']:.3f} | {row['p50_ms_after']:.3f} | {row['ratio']:.3f} "
            f"| {row['cpu_ms_before']:.3f} | {row['cpu_ms_after']:.3f} | {row['cpu_ratio']:.3f} |"
        )
    return "\n".join([*lines, ""])


def tool_tokens(tools: list[dict[str, Any]], counter: Any) -> int:
    return sum(counter.count(json.dumps(tool, ensure_ascii=False)) for tool in tools)


async def first_turn(name: str, servers: dict[str, Any], workdir: Path) -> dict[str, Any]:
    counter = default_token_counter()
    direct: list[dict[str, Any]] = []
    for server, entry in servers.items():
        async with Upstream(server, StdioServer.model_validate(entry), connect_timeout_s=60) as upstream:
            listing = await upstream.list_tools(timeout_s=60)
        direct += [
            {"name": tool.upstream_name, "description": tool.spec.description, "input_schema": tool.spec.parameters}
            for tool in listing.tools
        ]
    row: dict[str, Any] = {
        "servers": len(servers),
        "tools": len(direct),
        "without_gateway": tool_tokens(direct, counter),
        "counter": counter.name,
    }
    for key, style, offload in (
        ("bridge", "bridge", True),
        ("reveal", "reveal", True),
        ("bridge_no_offload", "bridge", False),
    ):
        config = write_config(workdir, f"{name}-{key}", servers, style=style, offload=offload)
        async with stdio(TOOLSCOUT, *SERVE, str(config)) as client:
            listed = await client.list_tools()
            instructions = client.instructions or ""
        tools = [{"name": t.name, "description": t.description, "input_schema": t.input_schema} for t in listed.tools]
        row[f"gateway_{key}"] = tool_tokens(tools, counter) + counter.count(instructions)
        row[f"gateway_{key}_tools"] = len(tools)
    return row


def real_test_servers(workdir: Path) -> dict[str, Any]:
    npm = REAL / "node_modules" / ".bin"
    files = workdir / "files"
    files.mkdir(exist_ok=True)
    return {
        "time": {"command": str(REAL / "pyvenv/bin/mcp-server-time"), "args": ["--local-timezone", "UTC"]},
        "everything": {"command": str(npm / "mcp-server-everything")},
        "memory": {"command": str(npm / "mcp-server-memory"), "env": {"MEMORY_FILE_PATH": str(workdir / "m.jsonl")}},
        "filesystem": {"command": str(npm / "mcp-server-filesystem"), "args": [str(files)]},
        "git": {"command": str(REAL / "pyvenv/bin/mcp-server-git"), "args": ["--repository", str(ROOT)]},
        "fetch": {"command": str(REAL / "pyvenv/bin/mcp-server-fetch")},
    }


def example_servers() -> dict[str, Any]:
    loaded = load_config(ROOT / "examples" / "mcp_servers.json")
    return {
        name: {"command": server.command, "args": list(server.args), "env": server.plain_env(), "cwd": str(server.cwd)}
        for name, server in loaded.enabled_servers().items()
        if isinstance(server, StdioServer)
    }


def markdown(latency: dict[str, dict[str, float]], tokens: dict[str, dict[str, Any]], args: argparse.Namespace) -> str:
    lines = [
        "# Gateway overhead and first-turn tokens",
        "",
        f"`bench/gateway_overhead.py --calls {args.calls} --rounds {args.rounds}`: one run, one machine; compare rows",
        "within a table. Upstream: `bench/servers/echo_server.py` (lowlevel SDK server, stdio).",
        "",
        "| path | p50 ms | p99 ms | mean ms | added p50 ms | calls |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for label, row in latency.items():
        lines.append(
            f"| {label} | {row['p50_ms']:.2f} | {row['p99_ms']:.2f} | {row['mean_ms']:.2f} "
            f"| {row['added_p50_ms']:+.2f} | {row['calls']} |"
        )
    lines += [
        "",
        "First turn: tokens of the tool definitions (name, description, input schema) the model is",
        "given, plus the gateway's `instructions`; servers' own instructions are not counted. The",
        "gateway lists its three offload tools unless `offload` is off.",
        "",
        "| servers | tools | without gateway | gateway, bridge | gateway, reveal | bridge, offload off "
        "| saved (bridge) |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for name, row in tokens.items():
        saved = 1 - row["gateway_bridge"] / row["without_gateway"]
        lines.append(
            f"| {name} ({row['servers']}) | {row['tools']} | {row['without_gateway']:,} | {row['gateway_bridge']:,} "
            f"| {row['gateway_reveal']:,} | {row['gateway_bridge_no_offload']:,} | {saved:.0%} |"
        )
    counter = next(iter(tokens.values()))["counter"] if tokens else "?"
    lines += ["", f"Token counter: {counter}.", ""]
    return "\n".join(lines)


async def main(args: argparse.Namespace) -> None:
    if args.against:
        with tempfile.TemporaryDirectory() as folder:
            report = await measure_against(args.against, args.calls, args.rounds, Path(folder))
        RESULTS.mkdir(parents=True, exist_ok=True)
        (RESULTS / "gateway_against.json").write_text(json.dumps(report, indent=2) + "\n")
        (RESULTS / "gateway_against.md").write_text(against_markdown(report))
        print(against_markdown(report))
        return
    with tempfile.TemporaryDirectory() as folder:
        workdir = Path(folder)
        if args.tokens_only:  # keep the latency table of the last full run
            previous = json.loads((RESULTS / "gateway_overhead.json").read_text())
            latency = previous["latency"]
            args.calls, args.rounds = previous["calls"], previous["rounds"]
        else:
            latency = await measure_latency(args.calls, args.rounds, workdir)
        tokens = {
            "six test servers": await first_turn("six", real_test_servers(workdir), workdir),
            "examples/mcp_servers.json": await first_turn("examples", example_servers(), workdir),
        }
    RESULTS.mkdir(parents=True, exist_ok=True)
    report = {"latency": latency, "first_turn_tokens": tokens, "calls": args.calls, "rounds": args.rounds}
    (RESULTS / "gateway_overhead.json").write_text(json.dumps(report, indent=2) + "\n")
    (RESULTS / "gateway_overhead.md").write_text(markdown(latency, tokens, args))
    print(markdown(latency, tokens, args))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=400, help="Calls per path per round.")
    parser.add_argument("--rounds", type=int, default=5, help="Interleaved rounds.")
    parser.add_argument(
        "--tokens-only", action="store_true", help="Measure the first-turn tokens only; keep the last latency table."
    )
    parser.add_argument("--against", metavar="REV", help="Time tool_search and tool_call against REV's gateway.")
    anyio.run(main, parser.parse_args())
