"""Well-behaved clients next to one abusive client, on one HTTP gateway: does the abuser hurt them?

N well-behaved MCP SDK clients (each its own session) loop ``tool_search`` → ``tool_describe`` →
``tool_call`` against ``toolscout serve`` fronting the echo upstream (``bench/servers/echo_server.py``,
offloading on). The run alternates quiet phases and abuse phases of the same length; in abuse
phases one client sends, all at once: multi-MB queries and tool names, a ``tool_describe`` of
10,000 names, jq bombs on an offloaded output, a flood of new sessions never closed, and
slow-loris connections that trickle their headers. The well-behaved clients' latencies are
compared between the two kinds of phase of the same run (the ratio, since the machine is shared);
the gateway's RSS and open file descriptors are sampled throughout.

    .venv/bin/python bench/abuse.py [--clients 8] [--phases 6] [--phase-seconds 20] [--name abuse]
    # -> bench/results/abuse.{json,md}
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import signal
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import httpx2
from gateway_clients import ECHO, RESULTS, TOOLSCOUT, Tally, echoed, percentiles, process_url, timed
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client

LEGACY = "2025-06-18"
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
MB = 1 << 20
JQ_BOMBS = ("[range(1e9)]", "def f: [f, f]; f", "[limit(1e8; repeat(.))] | length", "[.[] | tostring * 100000]")
SLOW_LORIS = 200
ATTACKS = ("big", "jq", "sessions", "slowloris")
_HUGE = "find " * (3 * MB // 5)
BIG_REQUESTS = [
    (label, name, json.dumps(arguments).encode())
    for label, name, arguments in (
        ("3 MB query", "tool_search", {"query": _HUGE}),
        ("3 MB tool name", "tool_call", {"name": _HUGE, "arguments": {}}),
        ("10,000-name describe", "tool_describe", {"names": [f"echo__echo{n}" for n in range(10_000)]}),
        ("1 MB name to describe", "tool_describe", {"names": ["x" * MB]}),
    )
]


@dataclass
class Phases:
    """Which phase the run is in, and everything measured, by phase kind."""

    current: str = "warm-up"
    calls: dict[str, Tally] = field(default_factory=lambda: {"quiet": Tally(), "abuse": Tally(), "warm-up": Tally()})
    samples: list[dict[str, Any]] = field(default_factory=list)
    abuse: Counter[str] = field(default_factory=Counter)


async def well_behaved(url: str, index: int, phases: Phases, stop: anyio.Event) -> None:
    """search → describe → call, again and again, each latency counted in the phase it started in."""
    async with (
        httpx2.AsyncClient(headers={"Toolscout-Session": f"good-{index}"}, timeout=60) as http,
        Client(streamable_http_client(url, http_client=http)) as client,
    ):
        count = 0
        while not stop.is_set():
            text = f"{index}-{count}"
            count += 1
            tally = phases.calls[phases.current]
            await timed(
                tally,
                "tool_search",
                lambda: client.call_tool("tool_search", {"query": "echo text back"}),
                lambda result: "echo__echo" in result.content[0].text,
            )
            await timed(
                tally,
                "tool_describe",
                lambda: client.call_tool("tool_describe", {"names": ["echo__echo"]}),
                lambda result: '"text"' in result.content[0].text,
            )
            arguments = {"name": "echo__echo", "arguments": {"text": text}}
            await timed(tally, "tool_call", lambda: client.call_tool("tool_call", arguments), echoed(text))  # noqa: B023


class Abuser:
    """One client doing everything it should not, in a 2025-era session of its own (plus the floods)."""

    def __init__(self, url: str, attacks: list[str]) -> None:
        self.url = url
        self.attacks = attacks
        self.counts: Counter[str] = Counter()
        self.headers: dict[str, str] = {}
        self.handle = ""
        self.ids = itertools.count(1)  # unique: a session's second request with an id in flight orphans the first

    async def post(self, http: httpx2.AsyncClient, message: dict[str, Any], headers: dict[str, str]) -> int:
        response = await http.post(self.url, content=json.dumps(message).encode(), headers={**ACCEPT, **headers})
        return response.status_code

    async def call(self, http: httpx2.AsyncClient, name: str, arguments: Any) -> httpx2.Response:
        return await self.send(http, name, json.dumps(arguments).encode())

    async def send(self, http: httpx2.AsyncClient, name: str, arguments: bytes) -> httpx2.Response:
        """A ``tools/call`` of `name` with arguments already encoded (the abuser's own CPU is not the point)."""
        head = json.dumps({"jsonrpc": "2.0", "id": next(self.ids), "method": "tools/call", "params": {"name": name}})
        body = head[:-2].encode() + b', "arguments": ' + arguments + b"}}"
        return await http.post(self.url, content=body, headers={**ACCEPT, **self.headers})

    async def open_session(self, http: httpx2.AsyncClient) -> dict[str, str]:
        hello = {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "abuser", "version": "1"}}
        message = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello}
        response = await http.post(self.url, content=json.dumps(message).encode(), headers=ACCEPT)
        headers = {"mcp-session-id": response.headers.get("mcp-session-id", ""), "MCP-Protocol-Version": LEGACY}
        await self.post(http, {"jsonrpc": "2.0", "method": "notifications/initialized"}, headers)
        return headers

    async def prepare(self) -> None:
        """Open the abuser's session and store a large output to aim jq at."""
        async with httpx2.AsyncClient(timeout=120) as http:
            self.headers = await self.open_session(http)
            rows = json.dumps([{"n": n, "text": "x" * 20} for n in range(10_000)])
            answer = (await self.call(http, "tool_call", {"name": "echo__echo", "arguments": {"text": rows}})).text
            start = answer.index('\\"handle\\": \\"') + len('\\"handle\\": \\"')
            self.handle = answer[start : answer.index('\\"', start)]

    async def run(self) -> None:
        """Every attack at once, each again and again, until cancelled."""
        async with anyio.create_task_group() as group:
            chosen = {
                "big": [self.big_requests],
                "jq": [self.jq_bombs, self.jq_bombs],  # enough to keep every jq worker of a 2-CPU machine busy
                "sessions": [self.session_flood],
                "slowloris": [self.slow_loris],
            }
            for name in self.attacks:
                for attack in chosen[name]:
                    group.start_soon(self.repeat, attack)

    async def repeat(self, attack: Callable[[httpx2.AsyncClient], Awaitable[None]]) -> None:
        async with httpx2.AsyncClient(timeout=120) as http:
            while True:
                try:
                    await attack(http)
                except (httpx2.HTTPError, OSError) as exc:
                    self.counts[f"{attack.__name__}: {type(exc).__name__}"] += 1

    async def big_requests(self, http: httpx2.AsyncClient) -> None:
        for label, name, arguments in BIG_REQUESTS:
            response = await self.send(http, name, arguments)
            self.counts[f"{label}: HTTP {response.status_code}"] += 1

    async def jq_bombs(self, http: httpx2.AsyncClient) -> None:
        for expression in JQ_BOMBS:
            self.counts["jq bomb sent"] += 1
            response = await self.call(http, "output_query", {"handle": self.handle, "expression": expression})
            self.counts[f"jq bomb answered: HTTP {response.status_code}"] += 1

    async def session_flood(self, http: httpx2.AsyncClient) -> None:
        hello = {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "flood", "version": "1"}}
        status = await self.post(http, {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello}, {})
        self.counts[f"new session: HTTP {status}"] += 1

    async def slow_loris(self, http: httpx2.AsyncClient) -> None:
        """Hold `SLOW_LORIS` connections whose request headers never end (a line a second) until cancelled."""
        host, port = self.url.split("//")[1].split("/")[0].rsplit(":", 1)
        streams = []
        try:
            for _ in range(SLOW_LORIS):
                stream = await anyio.connect_tcp(host, int(port))
                await stream.send(f"POST /mcp HTTP/1.1\r\nHost: {host}:{port}\r\n".encode())
                streams.append(stream)
            self.counts["slow-loris connections opened"] += len(streams)
            while True:
                await anyio.sleep(1)
                for stream in list(streams):
                    try:
                        await stream.send(b"X-a: b\r\n")
                    except (OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
                        self.counts["slow-loris connection closed by the gateway"] += 1
                        streams.remove(stream)
        finally:
            with anyio.CancelScope(shield=True):
                for stream in streams:
                    await stream.aclose()


def resources(pid: int) -> dict[str, float]:
    """The gateway's RSS (MB) and open file descriptors now."""
    status = Path(f"/proc/{pid}/status").read_text()
    rss_kb = next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:"))
    return {"rss_mb": round(rss_kb / 1024, 1), "fds": len(os.listdir(f"/proc/{pid}/fd"))}


async def sample(pid: int, phases: Phases, started: float, stop: anyio.Event) -> None:
    while not stop.is_set():
        phases.samples.append({"t": round(time.monotonic() - started, 1), "phase": phases.current, **resources(pid)})
        with anyio.move_on_after(0.5):
            await stop.wait()


async def abuse_until_terminated(url: str, attacks: list[str]) -> None:
    """The abuser's own process (``--abuse URL``): attack until SIGTERM, then print what was sent, as JSON."""
    abuser = Abuser(url, attacks)
    async with anyio.create_task_group() as group:
        with anyio.open_signal_receiver(signal.SIGTERM) as signals:
            await abuser.prepare()
            group.start_soon(abuser.run)
            async for _ in signals:
                break
        group.cancel_scope.cancel()
    print(json.dumps(abuser.counts))


async def abuse_phase(url: str, phases: Phases, seconds: float, attacks: list[str]) -> None:
    """Run the abuser in a process of its own (so its work does not slow the clients' event loop) for `seconds`."""
    command = [sys.executable, __file__, "--abuse", url, "--attacks", *attacks]
    async with await anyio.open_process(command, stderr=None) as abuser:
        await anyio.sleep(seconds)
        abuser.terminate()
        assert abuser.stdout is not None
        printed = b"".join([chunk async for chunk in abuser.stdout])
    phases.abuse.update(json.loads(printed))


async def run(url: str, pid: int, args: argparse.Namespace) -> Phases:
    phases = Phases()
    started = time.monotonic()
    stop_all = anyio.Event()
    async with anyio.create_task_group() as group:
        group.start_soon(sample, pid, phases, started, stop_all)
        for index in range(args.clients):
            group.start_soon(well_behaved, url, index, phases, stop_all)
        await anyio.sleep(args.phase_seconds / 2)
        for number in range(args.phases):
            phases.current = "abuse" if number % 2 else "quiet"
            if phases.current == "abuse":
                await abuse_phase(url, phases, args.phase_seconds, args.attacks)
            else:
                await anyio.sleep(args.phase_seconds)
        phases.current = "warm-up"  # the tail after the last phase is not counted
        stop_all.set()
    return phases


def summary(phases: Phases, args: argparse.Namespace, rows: int) -> dict[str, Any]:
    report: dict[str, Any] = {"clients": args.clients, "phases": args.phases, "phase_seconds": args.phase_seconds}
    report["attacks"] = args.attacks
    report["cpus"] = os.cpu_count()
    for kind in ("quiet", "abuse"):
        tally = phases.calls[kind]
        every = [value for values in tally.latencies.values() for value in values]
        report[kind] = {
            "all": percentiles(every) if every else None,
            **{name: percentiles(values) for name, values in tally.latencies.items()},
            "failures": tally.failures,
            "failure_examples": tally.examples,
        }
    quiet, abuse = report["quiet"]["all"], report["abuse"]["all"]
    report["p99_ratio"] = round(abuse["p99_ms"] / quiet["p99_ms"], 2)
    report["p50_ratio"] = round(abuse["p50_ms"] / quiet["p50_ms"], 2)
    report["resources"] = {
        kind: {
            "rss_mb_max": max(s["rss_mb"] for s in phases.samples if s["phase"] == kind),
            "fds_max": max(s["fds"] for s in phases.samples if s["phase"] == kind),
        }
        for kind in ("quiet", "abuse")
    }
    report["timeline"] = [s for s in phases.samples if s["phase"] in ("quiet", "abuse")][:: max(1, rows)]
    report["abuse_requests"] = dict(sorted(phases.abuse.items()))
    report["samples"] = phases.samples
    return report


def markdown(report: dict[str, Any]) -> str:
    lines = [
        "# Well-behaved clients next to an abusive one",
        "",
        f"`bench/abuse.py --clients {report['clients']} --phases {report['phases']} "
        f"--phase-seconds {report['phase_seconds']}`: one run on a {report['cpus']}-CPU machine (clients, "
        "abuser, gateway and upstream share it), quiet and abuse phases alternating.",
        "",
        "| phase | requests | p50 ms | p99 ms | failed | gateway RSS max MB | open fds max |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for kind in ("quiet", "abuse"):
        row, used = report[kind], report["resources"][kind]
        stats = row["all"]
        lines.append(
            f"| {kind} | {stats['count']:,} | {stats['p50_ms']:.1f} | {stats['p99_ms']:.1f} | {row['failures']} "
            f"| {used['rss_mb_max']:.0f} | {used['fds_max']} |"
        )
    lines += [
        "",
        f"p99 with the abuser / without: **{report['p99_ratio']}x** (p50: {report['p50_ratio']}x).",
        "",
        "Per request kind (p50 / p99 ms, quiet → abuse):",
        "",
    ]
    for name in ("tool_search", "tool_describe", "tool_call"):
        quiet, abuse = report["quiet"].get(name), report["abuse"].get(name)
        if quiet and abuse:
            before, during = (f"{row['p50_ms']:.1f} / {row['p99_ms']:.1f}" for row in (quiet, abuse))
            lines.append(f"- `{name}`: {before} → {during}")
    lines += ["", "What the abuser sent, by answer:", ""]
    lines += [f"- {what}: {count:,}" for what, count in report["abuse_requests"].items()]
    lines += ["", "Gateway RSS (MB) and open fds over the run (every few samples):", ""]
    lines.append("| s | phase | RSS MB | fds |")
    lines.append("|---:|---|---:|---:|")
    lines += [f"| {s['t']} | {s['phase']} | {s['rss_mb']} | {s['fds']} |" for s in report["timeline"]]
    lines.append("")
    return "\n".join(lines)


async def main(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as folder:
        config = Path(folder) / "abuse.json"
        servers = {"echo": {"command": ECHO[0], "args": ECHO[1:]}}
        settings = {"mode": "on", "store": "memory", "offload": {"folder": str(Path(folder) / "outputs")}}
        config.write_text(json.dumps({"mcpServers": servers, "toolscout": settings}))
        command = [TOOLSCOUT, "serve", str(config), "--transport", "http", "--port", "0", "--wait-for-upstreams"]
        async with process_url(command) as gateway:
            phases = await run(gateway.url, gateway.pid, args)
            after = resources(gateway.pid)
    report = summary(phases, args, rows=max(1, len(phases.samples) // 24))
    report["resources"]["after"] = after
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"{args.name}.json").write_text(json.dumps(report, indent=2) + "\n")
    (RESULTS / f"{args.name}.md").write_text(markdown(report))
    print(markdown(report))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--phases", type=int, default=6, help="alternating quiet and abuse phases, quiet first")
    parser.add_argument("--phase-seconds", type=float, default=20.0)
    parser.add_argument("--name", default="abuse", help="result files: bench/results/NAME.{json,md}")
    parser.add_argument("--attacks", nargs="+", choices=ATTACKS, default=list(ATTACKS), help="what the abuser does")
    parser.add_argument("--abuse", metavar="URL", help=argparse.SUPPRESS)  # the abuser's own process
    arguments = parser.parse_args()
    if arguments.abuse:
        anyio.run(abuse_until_terminated, arguments.abuse, arguments.attacks)
    else:
        anyio.run(main, arguments)
