"""What the HTTP gateway benches share: the processes they start, and timing and checking MCP calls."""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
TOOLSCOUT = str(Path(sys.executable).with_name("toolscout"))
ECHO = [sys.executable, str(ROOT / "bench" / "servers" / "echo_server.py")]


@dataclass
class Tally:
    """Latencies (ms) by request kind, and the failures with a few examples."""

    latencies: dict[str, list[float]] = field(default_factory=dict)
    failures: int = 0
    examples: list[str] = field(default_factory=list)

    def fail(self, what: str) -> None:
        self.failures += 1
        if len(self.examples) < 5:
            self.examples.append(what[:300])


@dataclass(frozen=True)
class Started:
    """A process that printed its URL as its first line."""

    url: str
    pid: int


@asynccontextmanager
async def process_url(command: list[str]) -> AsyncIterator[Started]:
    """Run `command` until the block ends; yields the URL it prints first, and its pid."""
    async with await anyio.open_process(command, stderr=None) as process:
        assert process.stdout is not None
        line = b""
        while b"\n" not in line:
            line += await process.stdout.receive()
        try:
            yield Started(url=line.decode().split()[0], pid=process.pid)
        finally:
            process.terminate()


async def timed(tally: Tally, kind: str, run: Callable[[], Awaitable[Any]], check: Callable[[Any], bool]) -> None:
    """Run one call; its latency goes to `tally` under `kind`, an exception or a wrong answer is a failure."""
    started = time.perf_counter()
    try:
        result = await run()
    except Exception as exc:  # a failure to count, not to stop the run
        tally.fail(f"{kind}: {type(exc).__name__}: {exc}")
        return
    tally.latencies.setdefault(kind, []).append((time.perf_counter() - started) * 1000)
    if getattr(result, "is_error", False) or not check(result):
        tally.fail(f"{kind}: {result}")


def echoed(expected: str) -> Callable[[Any], bool]:
    """A check that a tool result is `expected` as its one text block."""
    return lambda result: bool(result.content) and getattr(result.content[0], "text", None) == expected


def percentiles(values: list[float]) -> dict[str, float]:
    """Count, p50 and p99 (nearest rank) of latencies in ms."""
    ordered = sorted(values)
    return {
        "count": len(values),
        "p50_ms": round(statistics.median(ordered), 2),
        "p99_ms": round(ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))], 2),
    }
