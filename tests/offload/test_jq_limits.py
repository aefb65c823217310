"""jq queries share a bounded pool of worker processes: a burst of queries cannot take the machine's memory.

Real `output_query` calls through an `Offloader`, real worker processes, counted in ``/proc``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import anyio
import pytest

from tests.conftest import require
from toolscout import CharsPerToken, ScoutSettings, ToolError, ToolScout, ToolSpec
from toolscout.offload import Offloader, OffloadSettings
from toolscout.offload._internal import FileOffloadStore

pytestmark = pytest.mark.anyio

COUNTER = CharsPerToken()
ITEMS = {"items": [{"id": i} for i in range(3000)]}
ENDLESS = "last(range(1e12))"  # runs until the time limit stops it
PROC = Path("/proc")


def scout(tmp_path: Path, settings: OffloadSettings) -> ToolScout:
    offloader = Offloader(settings, store=FileOffloadStore(tmp_path), token_counter=COUNTER)
    tools = [ToolSpec(name="api__list", namespace="api", description="List items.")]
    return ToolScout(
        tools, settings=ScoutSettings(mode="on"), executor=lambda call: ITEMS, token_counter=COUNTER, offload=offloader
    )


async def stored_handle(tool_scout: ToolScout, session_id: str) -> str:
    stub = (await tool_scout.session(session_id).dispatch("tool_call", {"name": "api__list", "arguments": {}})).content
    assert isinstance(stub, dict)
    return str(stub["parts"][0]["handle"])


def jq_workers() -> dict[int, int]:
    """Live jq worker processes started by this test process: their niceness by pid."""
    workers = {}
    for entry in PROC.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[1]) == os.getpid() and b"_jq_worker.py" in cmdline:
            workers[int(entry.name)] = int(fields[16])
    return workers


async def test_a_burst_of_queries_runs_at_most_jq_concurrency_workers_at_once(tmp_path: Path) -> None:
    require(sys.platform == "linux", "counts worker processes in /proc")
    settings = OffloadSettings(budget_tokens=1000, preview_tokens=300, jq_timeout_s=1.5)
    tool_scout = scout(tmp_path, settings)
    handle = await stored_handle(tool_scout, "s")
    answers: list[object] = []
    peak = 0
    done = anyio.Event()

    async def query() -> None:
        outcome = await tool_scout.session("s").dispatch("output_query", {"handle": handle, "expression": ENDLESS})
        answers.append(outcome.error)

    async def watch() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, len(jq_workers()))
            await anyio.sleep(0.02)

    with anyio.fail_after(120):
        async with anyio.create_task_group() as group:
            group.start_soon(watch)
            async with anyio.create_task_group() as queries:
                for _ in range(8):
                    queries.start_soon(query)
            done.set()
    assert 1 <= peak <= len(os.sched_getaffinity(0))
    assert len(answers) == 8
    for error in answers:
        # Each query either ran to its time limit or was told the workers are busy; none crashed.
        assert isinstance(error, ToolError)
        assert error.code in ("query_failed", "busy"), error


async def test_a_runaway_query_runs_at_the_lowest_cpu_priority(tmp_path: Path) -> None:
    require(sys.platform == "linux", "reads worker processes in /proc")
    tool_scout = scout(tmp_path, OffloadSettings(budget_tokens=1000, preview_tokens=300, jq_timeout_s=1.5))
    handle = await stored_handle(tool_scout, "s")
    niceness: dict[int, int] = {}
    with anyio.fail_after(120):
        async with anyio.create_task_group() as group:

            async def query() -> None:
                await tool_scout.session("s").dispatch("output_query", {"handle": handle, "expression": ENDLESS})
                group.cancel_scope.cancel()

            group.start_soon(query)
            while True:
                niceness.update(jq_workers())
                await anyio.sleep(0.05)
    # The gateway and its clients keep the CPU a runaway query would otherwise share with them.
    assert niceness and set(niceness.values()) == {19}


async def test_when_every_worker_is_busy_a_query_waits_then_is_told_to_retry(tmp_path: Path) -> None:
    settings = OffloadSettings(budget_tokens=1000, preview_tokens=300, jq_timeout_s=4, jq_concurrency=1, jq_queue_s=0.5)
    tool_scout = scout(tmp_path, settings)
    handle = await stored_handle(tool_scout, "s")
    other = await stored_handle(tool_scout, "t")
    outcomes: dict[str, object] = {}

    async def long_query() -> None:
        outcome = await tool_scout.session("s").dispatch("output_query", {"handle": handle, "expression": ENDLESS})
        outcomes["long"] = outcome.error

    with anyio.fail_after(60):
        async with anyio.create_task_group() as group:
            group.start_soon(long_query)
            while not jq_workers() and sys.platform == "linux":
                await anyio.sleep(0.02)
            await anyio.sleep(0.2)
            busy = await tool_scout.session("t").dispatch("output_query", {"handle": other, "expression": "length"})
            assert isinstance(busy.error, ToolError)
            assert busy.error.code == "busy"
            assert "at most 1 at once" in busy.error.message and "retry" in busy.error.hint.lower()
            assert busy.error.tool_ran is False
    long = outcomes["long"]
    assert isinstance(long, ToolError) and "did not finish within 4 s" in long.message  # not hurt by the other
    after = await tool_scout.session("t").dispatch("output_query", {"handle": other, "expression": ".items | length"})
    assert after.error is None and isinstance(after.content, dict) and after.content["results"] == [3000]


async def test_a_query_waiting_for_a_worker_runs_once_one_is_free(tmp_path: Path) -> None:
    settings = OffloadSettings(budget_tokens=1000, preview_tokens=300, jq_timeout_s=1, jq_concurrency=1, jq_queue_s=30)
    tool_scout = scout(tmp_path, settings)
    handle = await stored_handle(tool_scout, "s")
    results: list[object] = []

    async def query(expression: str) -> None:
        outcome = await tool_scout.session("s").dispatch("output_query", {"handle": handle, "expression": expression})
        results.append(outcome.error or outcome.content)

    with anyio.fail_after(60):
        async with anyio.create_task_group() as group:
            group.start_soon(query, ENDLESS)
            await anyio.sleep(0.2)
            group.start_soon(query, ".items | length")
    assert isinstance(results[0], ToolError) and results[0].code == "query_failed"
    assert results[1] == {"handle": handle, "results": [3000], "count": 1, "truncated": False}


def test_the_worker_limits_are_settings_with_clear_errors() -> None:
    from toolscout.offload._settings import default_jq_concurrency

    assert OffloadSettings().jq_concurrency is None
    assert OffloadSettings().jq_queue_s > 0
    assert default_jq_concurrency() >= 1
    for bad in ({"jq_concurrency": 0}, {"jq_concurrency": True}, {"jq_queue_s": float("inf")}, {"jq_queue_s": -1}):
        with pytest.raises(Exception, match="offload.jq_"):
            OffloadSettings.from_mapping(bad)
