"""Interleaved timing across worker processes: each system in a process of its own, one run, rotating blocks.

A bench script names its systems (a worker kind builds them, ``serve`` answers timed calls for them) and starts
one `Worker` per source tree: the working tree, a baseline commit's ``src`` (``multilingual.export_src``), or
none for a reference library. `run` hands each block of requests to every system in turn, the order rotating
block by block, so a busy moment of a shared machine lands on every system alike. Times are wall and the working
thread's CPU (`time.thread_time`), in ms; the answer of each call is kept as the system's ``record`` makes it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO

WARM_UP = 20
"""Requests each system answers once before timing starts."""
BLOCK = 20
"""Requests a system answers in a row before the next system's turn (a hot loop, as ``toolscout eval`` times it)."""


@dataclass(frozen=True)
class Timed:
    """One timed call: wall ms, the working thread's CPU ms, and the answer as the worker recorded it."""

    wall_ms: float
    cpu_ms: float
    answer: object


def serve(systems: Mapping[str, Callable[[str], object]], record: Callable[[object], object] = lambda a: a) -> None:
    """A worker's loop: a line ``[system, [query, ...]]`` in, a line ``[[wall ms, CPU ms, record], ...]`` out.

    ``record`` turns an answer into what goes back (a digest, a list of names); it runs outside the timed span.
    """
    print(json.dumps({"ready": sorted(systems)}), flush=True)
    for line in sys.stdin:
        system, queries = json.loads(line)
        call, timed = systems[system], []
        for query in queries:
            started, cpu = time.perf_counter(), time.thread_time()
            answer = call(query)
            elapsed, cpu = (time.perf_counter() - started) * 1000, (time.thread_time() - cpu) * 1000
            timed.append([elapsed, cpu, record(answer)])
        print(json.dumps(timed), flush=True)


class Worker:
    """One worker process (``script --worker *argv``, importing toolscout from ``src`` if given) and its systems."""

    def __init__(self, script: str, label: str, argv: list[str], src: Path | None) -> None:
        env = {**os.environ, "OMP_NUM_THREADS": "1"}
        if src is not None:
            env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(src), os.environ.get("PYTHONPATH", "")]))
        command = [sys.executable, script, "--worker", *argv]
        self.process = subprocess.Popen(command, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.label = label
        self.systems: list[str] = json.loads(self._stdout.readline())["ready"]

    @property
    def _stdout(self) -> IO[str]:
        assert self.process.stdout is not None
        return self.process.stdout

    def call(self, system: str, queries: list[str]) -> list[Timed]:
        """Each of `queries` answered in turn by `system`, timed in the worker."""
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps([system, queries]) + "\n")
        self.process.stdin.flush()
        return [Timed(float(wall), float(cpu), answer) for wall, cpu, answer in json.loads(self._stdout.readline())]

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=60)


def run(queries: list[str], workers: list[Worker]) -> dict[str, list[Timed]]:
    """Every query through every system, block by block, the order rotating per block; keyed ``system (label)``."""
    systems = [(w, system, f"{system} ({w.label})" if w.label else system) for w in workers for system in w.systems]
    for w, system, _ in systems:
        w.call(system, queries[:WARM_UP])
    out: dict[str, list[Timed]] = {name: [] for _, _, name in systems}
    for at, start in enumerate(range(0, len(queries), BLOCK)):
        for w, system, name in systems[at % len(systems) :] + systems[: at % len(systems)]:
            out[name].extend(w.call(system, queries[start : start + BLOCK]))
    return out


def percentile(values: list[float], share: float) -> float:
    """The value at `share` of the sorted values (nearest rank below)."""
    ordered = sorted(values)
    return ordered[int(share * (len(ordered) - 1))]
