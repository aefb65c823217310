"""What learned ranking costs (issue 40): ``tool_search`` p50 with 10,000 learned pairs against learning off, the
memory one scope's cached pairs take, and how soon a pair recorded on one replica ranks on another (real Redis).

The pairs' requests are real requests (BFCL tuning, then the sample requests, repeated with a counter when short),
each for a random tool of the sample catalog, from 2,000 sessions. Searches are the sample requests through
`ScoutSession.resolve` (the ``tool_search`` path, without an event loop), alternating off and on, lexical.

Usage: ``python bench/learning_cost.py [--pairs 10000] [--rounds 5]``; writes ``bench/results/learning_cost.md``.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Sequence
from pathlib import Path

from toolscout import Catalog, ScoutSettings, ToolScout
from toolscout._settings import LearningSettings
from toolscout.data import sample_catalog_path, sample_queries_path
from toolscout.learning import UsagePair, UsageStore
from toolscout.learning._internal import LearnedRanking, SqliteUsageStore, UsageBounds

ROOT = Path(__file__).resolve().parents[1]
SCOPE = "default"
BOUNDS = UsageBounds(max_pairs_per_scope=20_000, max_pairs_per_tool=10_000)


def requests(count: int) -> list[str]:
    texts = [json.loads(line)["query"] for line in (ROOT / ".bench-data" / "bfcl_tuning.jsonl").open()]
    texts += [json.loads(line)["query"] for line in sample_queries_path().open() if line.strip()]
    return [texts[n % len(texts)] + ("" if n < len(texts) else f" #{n // len(texts)}") for n in range(count)]


def pairs(count: int, catalog: Catalog) -> list[UsagePair]:
    rng = random.Random(0)
    names = [tool.name for tool in catalog]
    now = time.time()
    return [
        UsagePair(scope=SCOPE, request=text, tool=rng.choice(names), session=f"s{rng.randrange(2000)}", at=now)
        for text in requests(count)
    ]


def scout(store: UsageStore | None) -> ToolScout:
    learning = LearningSettings(enabled=store is not None, max_pairs_per_tool=10_000, max_pairs_per_scope=20_000)
    settings = ScoutSettings(mode="on", style="bridge", search_mode="lexical", learning=learning)
    return ToolScout(Catalog.from_file(sample_catalog_path()), settings=settings, usage_store=store)


def p50s(store: UsageStore, rounds: int) -> dict[str, float]:
    queries = [json.loads(line)["query"] for line in sample_queries_path().open() if line.strip()]
    scouts = {"off": scout(None), "on": scout(store)}
    timings: dict[str, list[float]] = {"off": [], "on": []}
    for one in scouts.values():  # warm: index built, pairs cached
        one.session("warm").resolve("tool_search", {"query": queries[0]})
    for number in range(rounds):
        for query in queries:
            for state, one in scouts.items():
                session = one.session(f"bench-{number}")
                started = time.perf_counter()
                session.resolve("tool_search", {"query": query})
                timings[state].append((time.perf_counter() - started) * 1000)
    return {state: statistics.median(values) for state, values in timings.items()}


def memory(store: UsageStore) -> float:
    """MB held by one scope's cached pairs (tracemalloc, after the build)."""
    ranking = LearnedRanking(store, LearningSettings())
    tracemalloc.start()
    ranking.evidence(SCOPE, "x", "warm", None)
    held, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return held / 1e6


def replica_delay(count: int) -> float | None:
    """Seconds from a pair's record through one replica's store until another replica's search ranks it first."""
    binary = shutil.which("redis-server")
    if binary is None:
        return None
    from toolscout.learning._redis import RedisUsageStore

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with tempfile.TemporaryDirectory() as folder:
        server = subprocess.Popen(
            [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--dir", folder],
            stdout=subprocess.DEVNULL,
        )
        try:
            time.sleep(0.5)
            url = f"redis://127.0.0.1:{port}/0"
            writer = RedisUsageStore(url, BOUNDS)
            reader = scout(RedisUsageStore(url, BOUNDS))
            writer.record(pairs(count, reader.catalog))
            request = "tell the crew the standup moved to the blue room"
            session = reader.session("reader")
            before = session.resolve("tool_search", {"query": request})
            assert "slack__post_message" not in [hit.name for hit in before.answer.tools]  # type: ignore[union-attr]
            started = time.perf_counter()
            writer.record(
                [UsagePair(scope=SCOPE, request=request, tool="slack__post_message", session="w", at=time.time())]
            )
            while True:
                answer = session.resolve("tool_search", {"query": request})
                tools = getattr(answer, "answer", None)
                if tools is not None and "slack__post_message" in [hit.name for hit in tools.tools]:
                    return time.perf_counter() - started
                if time.perf_counter() - started > 10:
                    return float("inf")
                time.sleep(0.01)
        finally:
            server.terminate()
            server.wait()


def main(argv: Sequence[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "learning_cost.md")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        store = SqliteUsageStore(Path(folder) / "usage.db", BOUNDS)
        store.record(pairs(args.pairs, scout(None).catalog))
        held = len(store.pairs(SCOPE))
        times = p50s(store, args.rounds)
        megabytes = memory(store)
    delays = [replica_delay(args.pairs) for _ in range(3)]
    shown = "n/a (no redis-server)" if None in delays else " / ".join(f"{d:.2f} s" for d in delays if d is not None)
    lines = [
        "# What learned ranking costs (issue 40)",
        "",
        f"`python bench/learning_cost.py --pairs {args.pairs} --rounds {args.rounds}`: {held} pairs in one scope"
        " (SQLite), the sample catalog, lexical, the sample requests through `ScoutSession.resolve`.",
        "",
        "| measure | value |",
        "|---|---:|",
        f"| `tool_search` p50, learning off | {times['off']:.2f} ms |",
        f"| `tool_search` p50, learning on ({held} pairs) | {times['on']:.2f} ms |",
        f"| ratio on / off | {times['on'] / times['off']:.2f}x |",
        f"| memory of the scope's cached pairs | {megabytes:.1f} MB |",
        f"| a pair recorded on one replica is in another's answer (Redis, {args.pairs} pairs; three runs, each a"
        f" fresh Redis and processes' stores) | {shown} |",
    ]
    text = "\n".join(lines) + "\n"
    args.out.write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main(sys.argv[1:])
