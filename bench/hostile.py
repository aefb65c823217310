"""A hostile upstream and a hostile client against ``toolscout serve --transport http``, before and after a change.

Each scenario runs on the ``src`` tree of a baseline commit and on the working tree, in the same run
(so compare within a row: the machine is shared):

- ``render``: the library renders one bridge turn (openai-chat) over 4,000 / 8,000 / 10,000 tools:
  the first turn (plan included) and the median of the next ten.
- ``budget``: a gateway over two hostile upstreams of 5,000 tools each; ``/healthz`` is asked every
  20 ms while the web page's ``/ui/api/budget`` is computed; its p50 and worst latency then, next to
  quiet ones.
- ``queries``: 300 ``tool_search`` calls with 1 MB queries (8 at a time) while ``/healthz`` is asked
  every 20 ms; gateway RSS idle and after, and the size of ``/ui/api/activity``.
- ``results``: 4 clients call an echo upstream for 15 s quietly, then 15 s while another client asks
  the hostile upstream for 60 MB results again and again; their p50 both times, and what the 60 MB
  calls got.
- issue 41's abuse cases (``oversize``, ``exchanges``, ``sessions``, ``session_ids``, ``jwks_drip``,
  ``jwks_huge``, ``resources``, ``subscriber``, ``subscribe_lock``, ``listen``; see ``hostile_cases.py``):
  a victim client's p50 quiet and under the abuse, gateway RSS growth, the victim's failed calls, and
  what the abuse broke, against the issue's bar.

    .venv/bin/python bench/hostile.py --baseline REF   # -> bench/results/hostile.{json,md}
    .venv/bin/python bench/hostile.py --baseline REF --scenarios cases --name hostile_cases  # the abuse cases alone
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from io import BytesIO
from pathlib import Path
from typing import Any

import anyio
import httpx2
from gateway_clients import RESULTS, ROOT, TOOLSCOUT, process_url
from hostile_cases import CASES, cases_markdown
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client

HOSTILE = [sys.executable, str(ROOT / "tests" / "gateway" / "servers" / "hostile.py")]
ECHO = [sys.executable, str(ROOT / "bench" / "servers" / "echo_server.py")]
MB = 1 << 20
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def export_src(ref: str, into: Path) -> Path:
    """Write the ``src`` tree of commit `ref` under `into`; return its path."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", ref, "src"], check=True, capture_output=True).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into / "src"


def render_times() -> dict[str, Any]:
    from toolscout import ScoutSettings, ToolScout
    from toolscout.providers import get_provider

    rows: dict[str, Any] = {}
    for count in (4_000, 8_000, 10_000):
        tools = [
            {
                "name": f"srv{n % 20}__tool_{n}",
                "description": f"Widget operation number {n}: frobnicate the gadget.",
                "inputSchema": {"type": "object", "properties": {"x": {"type": "string"}}},
            }
            for n in range(count)
        ]
        session = ToolScout(tools, settings=ScoutSettings(mode="on", search_mode="lexical")).session("bench")
        adapter = get_provider("openai-chat")
        started = time.perf_counter()
        try:
            adapter.render(session, style="bridge")
        except Exception as exc:  # the baseline's token counter refused a listing over 200,000 tokens
            rows[str(count)] = {"first_turn_ms": type(exc).__name__, "turn_ms": "-"}
            continue
        first = time.perf_counter() - started
        turns = []
        for _ in range(10):
            started = time.perf_counter()
            adapter.render(session, style="bridge")
            turns.append(time.perf_counter() - started)
        rows[str(count)] = {
            "first_turn_ms": round(first * 1000, 1),
            "turn_ms": round(statistics.median(turns) * 1000, 2),
        }
    return rows


def write_config(folder: Path, servers: dict[str, list[str]], **settings: Any) -> Path:
    path = folder / "gateway.json"
    entries = {name: {"command": command[0], "args": command[1:]} for name, command in servers.items()}
    settings = {"store": "memory", "offload": False, **settings}
    path.write_text(json.dumps({"mcpServers": entries, "toolscout": settings}))
    return path


def serve(config: Path) -> list[str]:
    return [TOOLSCOUT, "serve", str(config), "--transport", "http", "--port", "0", "--wait-for-upstreams"]


def rss_mb(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    return round(next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:")) / 1024, 1)


@asynccontextmanager
async def healthz_probe(base: str) -> AsyncIterator[list[float]]:
    """Ask ``/healthz`` every 20 ms from a process of its own while the block runs; latencies (ms) land in the list.

    Its own process, so that the work of this process's clients (8 senders encoding 1 MB queries) cannot
    delay it: what it measures is the gateway.
    """
    into: list[float] = []
    command = [sys.executable, __file__, "--probe", base]
    async with await anyio.open_process(command, stderr=None) as process:
        assert process.stdout is not None
        await process.stdout.receive()  # "ready": it has answered once
        try:
            yield into
        finally:
            process.send_signal(signal.SIGTERM)
            output = b""
            async for chunk in process.stdout:
                output += chunk
            into.extend(json.loads(output))


def probe_until_terminated(base: str) -> None:
    """The probe process: ``/healthz`` every 20 ms until SIGTERM, then the latencies (ms) as JSON on stdout."""
    stopped = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopped.set())
    latencies: list[float] = []
    with httpx2.Client(timeout=600) as http:
        http.get(f"{base}/healthz")
        print("ready", flush=True)
        while not stopped.is_set():
            started = time.perf_counter()
            http.get(f"{base}/healthz")
            latencies.append((time.perf_counter() - started) * 1000)
            stopped.wait(0.02)
    print(json.dumps(latencies), flush=True)


def spread(values: list[float]) -> dict[str, float]:
    return {
        "count": len(values),
        "p50_ms": round(statistics.median(values), 1) if values else 0.0,
        "max_ms": round(max(values), 1) if values else 0.0,
    }


async def quiet_healthz(base: str) -> list[float]:
    async with healthz_probe(base) as quiet:
        await anyio.sleep(2)
    return quiet


async def budget_scenario(folder: Path, tools: int = 10_000) -> dict[str, Any]:
    half = [*HOSTILE, "--tools", str(tools // 2 - 3)]
    config = write_config(folder, {"one": half, "two": half})
    async with process_url(serve(config)) as gateway, httpx2.AsyncClient(timeout=600) as http:
        base = gateway.url.removesuffix("/mcp")
        quiet = await quiet_healthz(base)
        async with healthz_probe(base) as during:
            started = time.perf_counter()
            answer = (await http.get(f"{base}/ui/api/budget")).json()
            budget_s = time.perf_counter() - started
        started = time.perf_counter()
        await http.get(f"{base}/ui/api/budget")
        again_s = time.perf_counter() - started
    tools = sum(server["tools"] for server in answer["servers"])
    return {
        "tools": tools,
        "budget_s": round(budget_s, 2),
        "budget_again_s": round(again_s, 3),
        "healthz_quiet": spread(quiet),
        "healthz_during_budget": spread(during),
    }


async def queries_scenario(folder: Path) -> dict[str, Any]:
    config = write_config(folder, {"echo": ECHO})
    query = "find " * (MB // 5)
    async with process_url(serve(config)) as gateway, httpx2.AsyncClient(timeout=600) as http:
        base = gateway.url.removesuffix("/mcp")
        async with Client(streamable_http_client(gateway.url, http_client=http)) as client:
            await client.call_tool("tool_search", {"query": "echo"})
        quiet = await quiet_healthz(base)
        idle = rss_mb(gateway.pid)
        peak = idle
        sent = anyio.Semaphore(8)
        started = time.perf_counter()

        async def one(client: Client) -> None:
            async with sent:
                await client.call_tool("tool_search", {"query": query})

        async with (
            healthz_probe(base) as during,
            httpx2.AsyncClient(timeout=600) as mcp_http,
            Client(streamable_http_client(gateway.url, http_client=mcp_http)) as client,
            anyio.create_task_group() as senders,
        ):
            for _ in range(300):
                senders.start_soon(one, client)
                peak = max(peak, rss_mb(gateway.pid))
        flood_s = time.perf_counter() - started
        after = rss_mb(gateway.pid)
        activity = await http.get(f"{base}/ui/api/activity")
    return {
        "queries": 300,
        "flood_s": round(flood_s, 1),
        "rss_idle_mb": idle,
        "rss_after_mb": after,
        "rss_growth_mb": round(after - idle, 1),
        "activity_bytes": len(activity.content),
        "healthz_quiet": spread(quiet),
        "healthz_during_queries": spread(during),
    }


async def results_scenario(folder: Path) -> dict[str, Any]:
    config = write_config(folder, {"echo": ECHO, "hostile": HOSTILE}, mode="off", call_timeout_s=120)
    latencies: dict[str, list[float]] = {"quiet": [], "abuse": []}
    phase = ["quiet"]
    big: list[str] = []
    async with process_url(serve(config)) as gateway:

        async def good(index: int, stop: anyio.Event) -> None:
            async with (
                httpx2.AsyncClient(timeout=600) as http,
                Client(streamable_http_client(gateway.url, http_client=http)) as client,
            ):
                while not stop.is_set():
                    started = time.perf_counter()
                    await client.call_tool("echo__echo", {"text": f"hello {index}"})
                    latencies[phase[0]].append((time.perf_counter() - started) * 1000)

        async def abuse(stop: anyio.Event) -> None:
            async with (
                httpx2.AsyncClient(timeout=600) as http,
                Client(streamable_http_client(gateway.url, http_client=http)) as client,
            ):
                while not stop.is_set():
                    started = time.perf_counter()
                    try:
                        result = await client.call_tool("hostile__blob", {"mb": 60})
                        text = getattr(result.content[0], "text", "")
                        what = f"error: {text[:160]}" if result.is_error else f"answered {len(text) // MB} MiB"
                    except Exception as exc:  # counted, not fatal
                        what = f"{type(exc).__name__}: {str(exc)[:160]}"
                    big.append(f"{what} in {time.perf_counter() - started:.1f} s")

        stop, stop_abuse = anyio.Event(), anyio.Event()
        async with anyio.create_task_group() as group:
            for index in range(4):
                group.start_soon(good, index, stop)
            await anyio.sleep(15)
            phase[0] = "abuse"
            group.start_soon(abuse, stop_abuse)
            await anyio.sleep(15)
            stop.set()
            stop_abuse.set()
    quiet, noisy = (statistics.median(latencies[name]) for name in ("quiet", "abuse"))
    return {
        "others_p50_quiet_ms": round(quiet, 1),
        "others_p50_during_60mb_ms": round(noisy, 1),
        "ratio": round(noisy / quiet, 2),
        "calls": {name: len(values) for name, values in latencies.items()},
        "60mb_calls": big[:5],
    }


RUNNERS: dict[str, Callable[[Path], Awaitable[dict[str, Any]]]] = {
    "budget": budget_scenario,
    "budget4k": lambda folder: budget_scenario(folder, 4_000),
    "queries": queries_scenario,
    "results": results_scenario,
}
SCENARIOS = ("render", "budget4k", "budget", "queries", "results", *CASES)
GROUPS = {"cases": tuple(CASES)}  # --scenarios cases: every abuse case of issue 41


async def run_variant(scenarios: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in scenarios:
        with tempfile.TemporaryDirectory() as folder:
            try:
                if name == "render":
                    out[name] = await anyio.to_thread.run_sync(render_times)
                elif name in CASES:
                    out[name] = await anyio.to_thread.run_sync(CASES[name], Path(folder))
                else:
                    out[name] = await RUNNERS[name](Path(folder))
            except Exception as exc:  # a baseline may fail a scenario outright: that is a result too
                out[name] = {"error": f"{type(exc).__name__}: {str(exc)[:300]}"}
        print(f"  {name}: {json.dumps(out[name])}", file=sys.stderr, flush=True)
    return out


def variant(src: Path | None, scenarios: list[str]) -> dict[str, Any]:
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = str(src)
    command = [sys.executable, __file__, "--inner", ",".join(scenarios)]
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    sys.stderr.write(done.stderr)
    done.check_returncode()
    return dict(json.loads(done.stdout))


def markdown(report: dict[str, Any]) -> str:
    before, after = report["before"], report["after"]
    load = "/".join(f"{value:.1f}" for value in report.get("load", ()))
    lines = [
        f"Hostile upstream and client, baseline `{report['baseline']}` vs this tree, one run each "
        f"(load average at the start, 1/5/15 min: {load}; `/healthz` asked from a process of its own).",
        "",
    ]
    if "render" in after:
        lines += ["| bridge turn (openai-chat) | before: first / next | after: first / next |", "|---|---|---|"]
        for count, row in after["render"].items():
            old = before.get("render", {}).get(count, {}) if isinstance(before.get("render"), dict) else {}
            lines.append(
                f"| {int(count):,} tools | {old.get('first_turn_ms', '-')} ms / {old.get('turn_ms', '-')} ms "
                f"| {row['first_turn_ms']} ms / {row['turn_ms']} ms |"
            )
        lines.append("")
    rows = [
        ("budget4k", "budget_s", "`/ui/api/budget` (4,000 tools), s"),
        ("budget4k", ("healthz_quiet", "p50_ms"), "`/healthz` quiet p50 (4,000 tools), ms"),
        ("budget4k", ("healthz_during_budget", "p50_ms"), "`/healthz` during the 4,000-tool budget p50, ms"),
        ("budget4k", ("healthz_during_budget", "max_ms"), "`/healthz` during the 4,000-tool budget worst, ms"),
        ("budget", "budget_s", "`/ui/api/budget` (10,000 tools), s"),
        ("budget", "budget_again_s", "the same budget asked again, s"),
        ("budget", ("healthz_quiet", "p50_ms"), "`/healthz` quiet p50, ms"),
        ("budget", ("healthz_during_budget", "p50_ms"), "`/healthz` during the budget p50, ms"),
        ("budget", ("healthz_during_budget", "max_ms"), "`/healthz` during the budget worst, ms"),
        ("queries", "flood_s", "300 `tool_search` calls with 1 MB queries, s"),
        ("queries", ("healthz_during_queries", "p50_ms"), "`/healthz` during the queries p50, ms"),
        ("queries", ("healthz_during_queries", "max_ms"), "`/healthz` during the queries worst, ms"),
        ("queries", "rss_idle_mb", "gateway RSS idle, MB"),
        ("queries", "rss_growth_mb", "gateway RSS growth after the queries, MB"),
        ("queries", "activity_bytes", "`/ui/api/activity` answer, bytes"),
        ("results", "others_p50_quiet_ms", "others' p50 quiet, ms"),
        ("results", "others_p50_during_60mb_ms", "others' p50 during 60 MB results, ms"),
        ("results", "ratio", "others' p50 ratio (during / quiet)"),
    ]
    if any(scenario in after for scenario, _, _ in rows):
        lines += ["| measure | before | after |", "|---|---|---|"]
    for scenario, key, label in rows:
        if scenario not in after:
            continue
        values = []
        for side in (before, after):
            value: Any = side.get(scenario, {})
            if "error" in value:
                values.append(f"failed ({value['error'][:80]})")
                continue
            for part in key if isinstance(key, tuple) else (key,):
                value = value.get(part, "-") if isinstance(value, dict) else "-"
            values.append(value)
        lines.append(f"| {label} | {values[0]} | {values[1]} |")
    if "results" in after:
        lines += ["", "What the 60 MB calls got (first five):", ""]
        for side in ("before", "after"):
            for call in report[side].get("results", {}).get("60mb_calls", []):
                lines.append(f"- {side}: {call}")
    if any(name in after for name in CASES):
        lines += [*([""] if lines[-1] else []), *cases_markdown(before, after)]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--baseline", required=False, help="commit to compare with (omit: this tree only)")
    parser.add_argument("--scenarios", default=",".join(SCENARIOS))
    parser.add_argument("--name", default="hostile")
    parser.add_argument("--inner", help=argparse.SUPPRESS)
    parser.add_argument("--probe", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.probe:
        probe_until_terminated(args.probe)
        return
    if args.inner:
        print(json.dumps(anyio.run(run_variant, args.inner.split(","))))
        return
    scenarios = [name for part in args.scenarios.split(",") for name in GROUPS.get(part, (part,))]
    report: dict[str, Any] = {"baseline": args.baseline or "-", "before": {}, "load": os.getloadavg()}
    if args.baseline:
        with tempfile.TemporaryDirectory() as folder:
            print(f"baseline {args.baseline}:", file=sys.stderr)
            report["before"] = variant(export_src(args.baseline, Path(folder)), scenarios)
    print("this tree:", file=sys.stderr)
    report["after"] = variant(None, scenarios)
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"{args.name}.json").write_text(json.dumps(report, indent=2) + "\n")
    (RESULTS / f"{args.name}.md").write_text(markdown(report))
    print(markdown(report))


if __name__ == "__main__":
    main()
