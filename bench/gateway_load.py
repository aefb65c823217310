"""Load on the HTTP gateway: N concurrent MCP clients, each searching then calling, for a bounded time.

Each client (the MCP SDK's, over Streamable HTTP on loopback, its own ``Toolscout-Session``)
loops ``tool_search`` → ``tool_call`` against ``toolscout serve`` fronting the echo upstream
(``bench/servers/echo_server.py``). The same number of clients then calls the echo server's own
Streamable HTTP endpoint directly for the same time: the same SDK stack without the gateway.
Every echo is checked; a wrong answer, an error result or an exception counts as a failure.

    .venv/bin/python bench/gateway_load.py [--clients 50] [--seconds 60]
    # -> bench/results/gateway_load.{json,md}
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
import httpx2
from gateway_clients import ECHO, RESULTS, TOOLSCOUT, Tally, echoed, percentiles, process_url, timed
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client


async def client_loop(url: str, index: int, until: float, tally: Tally, *, via_gateway: bool) -> None:
    headers = {"Toolscout-Session": f"load-{index}"}
    async with httpx2.AsyncClient(headers=headers, timeout=60) as http:
        async with Client(streamable_http_client(url, http_client=http)) as client:
            await client.list_tools()
            count = 0
            while time.monotonic() < until:
                text = f"{index}-{count}"
                count += 1
                if via_gateway:
                    await timed(
                        tally,
                        "search",
                        lambda: client.call_tool("tool_search", {"query": "echo text back"}),
                        lambda result: "echo__echo" in result.content[0].text,
                    )
                    name, arguments = "tool_call", {"name": "echo__echo", "arguments": {"text": text}}
                else:
                    name, arguments = "echo", {"text": text}
                await timed(tally, "call", lambda: client.call_tool(name, arguments), echoed(text))  # noqa: B023


async def run_load(url: str, clients: int, seconds: float, *, via_gateway: bool) -> dict[str, Any]:
    tally = Tally(latencies={"search": [], "call": []})
    started = time.monotonic()
    until = started + seconds
    async with anyio.create_task_group() as group:
        for index in range(clients):
            group.start_soon(lambda i=index: client_loop(url, i, until, tally, via_gateway=via_gateway))
    elapsed = time.monotonic() - started
    row: dict[str, Any] = {"clients": clients, "seconds": round(elapsed, 1), "failures": tally.failures}
    for kind, values in tally.latencies.items():
        if values:
            row[kind] = {**percentiles(values), "per_s": round(len(values) / elapsed, 1)}
    row["failure_examples"] = tally.examples
    return row


def markdown(report: dict[str, Any]) -> str:
    gateway, direct = report["gateway"], report["direct"]
    lines = [
        "# Gateway under load",
        "",
        f"`bench/gateway_load.py --clients {report['clients']} --seconds {report['seconds']}`: "
        f"{report['clients']} MCP SDK clients on loopback, one run on a {report['cpus']}-CPU machine",
        "(load generator, gateway and upstream share it). Gateway clients loop tool_search → tool_call;",
        "direct clients call the echo server's own HTTP endpoint.",
        "",
        "| target | request | count | per s | p50 ms | p99 ms | failures |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for label, row in (("gateway", gateway), ("echo server directly", direct)):
        for kind in ("search", "call"):
            if kind in row:
                stats = row[kind]
                lines.append(
                    f"| {label} | {'tool_search' if kind == 'search' else 'tool call'} | {stats['count']:,} "
                    f"| {stats['per_s']:,} | {stats['p50_ms']:.1f} | {stats['p99_ms']:.1f} | {row['failures']} |"
                )
    lines.append("")
    return "\n".join(lines)


async def main(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as folder:
        config = Path(folder) / "load.json"
        servers = {"echo": {"command": ECHO[0], "args": ECHO[1:]}}
        settings = {"mode": "on", "store": str(Path(folder) / "sessions.sqlite3")}
        config.write_text(json.dumps({"mcpServers": servers, "toolscout": settings}))
        command = [TOOLSCOUT, "serve", str(config), "--transport", "http", "--port", "0", "--wait-for-upstreams"]
        async with process_url(command) as started:
            gateway = await run_load(started.url, args.clients, args.seconds, via_gateway=True)
        async with process_url([*ECHO, "--http"]) as started:
            direct = await run_load(started.url, args.clients, args.seconds, via_gateway=False)
    report = {
        "clients": args.clients,
        "seconds": args.seconds,
        "cpus": os.cpu_count(),
        "gateway": gateway,
        "direct": direct,
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "gateway_load.json").write_text(json.dumps(report, indent=2) + "\n")
    (RESULTS / "gateway_load.md").write_text(markdown(report))
    print(markdown(report))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=60.0)
    anyio.run(main, parser.parse_args())
