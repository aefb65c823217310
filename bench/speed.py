"""Index build time and query latency at 1k, 3k and 10k tools: toolscout lexical vs rank_bm25 vs bm25s.

The catalogs are real: the pooled BFCL catalog (2,963 tools), cut to 1,000, padded to 3,000
and grown to 10,000 with namespaced copies (``github__name`` in namespace ``github``, ...), as a
gateway fronting many servers would hold them. Queries are the BFCL tuning requests. Every
number is from one run on one machine; ratios compare systems within that run. Memory of the
10k-tool index is measured in a fresh child process per engine (tracemalloc of the build, and
the resident-set growth).

    .venv/bin/python bench/speed.py   # -> bench/results/speed.{json,csv,md}
"""

from __future__ import annotations

import os

# One thread for every engine, torch included (set before anything imports torch): on a small shared
# machine torch's default intra-op threads make a single-query forward pass many times slower.
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import csv
import gc
import json
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from bfcl import load_bfcl
from systems import Search, bm25s_system, rank_bm25_system, toolscout_system

from toolscout import Catalog, ScoutSettings
from toolscout.search import SearchMode, build_searcher

RESULTS = Path(__file__).resolve().parent / "results"
SIZES = (1_000, 3_000, 10_000)
NAMESPACES = ("github", "slack", "jira", "notion", "gdrive", "postgres", "stripe", "linear")
QUERIES = 300
BUILD_REPEATS = 3
LIMIT = 10

ENGINES: dict[str, Callable[[Catalog], Search]] = {
    "rank_bm25": rank_bm25_system,
    "bm25s": bm25s_system,
    "toolscout lexical": lambda catalog: toolscout_system(catalog, "lexical"),
}


def grow(base: Catalog, size: int) -> Catalog:
    """The first `size` tools of `base` followed by namespaced copies of it."""
    tools = list(base.tools[:size])
    copy = 0
    while len(tools) < size:
        ns = NAMESPACES[copy % len(NAMESPACES)] + (str(copy // len(NAMESPACES)) if copy >= len(NAMESPACES) else "")
        tools.extend(replace(tool, name=f"{ns}__{tool.name}", namespace=ns) for tool in base.tools[: size - len(tools)])
        copy += 1
    return Catalog(tools)


def time_engine(make: Callable[[Catalog], Search], catalog: Catalog, queries: list[str]) -> dict[str, float]:
    builds = []
    for _ in range(BUILD_REPEATS):
        gc.collect()
        started = time.perf_counter()
        search = make(catalog)
        builds.append(time.perf_counter() - started)
    for query in queries[:5]:
        search(query, LIMIT)
    latencies = []
    for query in queries:
        started = time.perf_counter()
        search(query, LIMIT)
        latencies.append((time.perf_counter() - started) * 1000)
    latencies.sort()
    return {
        "build_s": statistics.median(builds),
        "p50_ms": statistics.median(latencies),
        "p95_ms": latencies[int(0.95 * (len(latencies) - 1))],
    }


def rss_mb() -> float:
    with open("/proc/self/statm", encoding="ascii") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def memory_child(mode: SearchMode) -> None:
    """Build what ``tool_search`` searches (`build_searcher`) for 10k tools in a fresh process; print what it holds."""
    catalog = grow(load_bfcl().catalog, SIZES[-1])
    settings = ScoutSettings(search_mode=mode)
    if mode == "hybrid":
        from toolscout.search.embeddings._internal import shared_embedder

        shared_embedder(settings.embeddings)  # the default model, loaded (once per process) before the baseline is read
    gc.collect()
    before = rss_mb()
    tracemalloc.start()
    started = time.perf_counter()
    index = build_searcher(settings, catalog)
    build_s = time.perf_counter() - started
    gc.collect()
    current, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    index.search("weather forecast", limit=LIMIT, mode=mode)
    print(
        json.dumps(
            {
                "mode": mode,
                "tools": len(catalog),
                "build_s": build_s,
                "traced_mb": current / 2**20,
                "traced_peak_mb": peak / 2**20,
                "rss_delta_mb": rss_mb() - before,
            }
        )
    )


def measure_memory(mode: str) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "TOOLSCOUT_CACHE_DIR": cache, "HF_HUB_OFFLINE": "1"}
        out = subprocess.run(
            [sys.executable, __file__, "--memory-child", mode], check=True, capture_output=True, text=True, env=env
        ).stdout
    return dict(json.loads(out.strip().splitlines()[-1]))


def markdown(rows: list[dict[str, object]], memory: list[dict[str, object]]) -> str:
    lines = [
        "Build time and query latency (p50 of the BFCL tuning requests, top 10), one thread, same machine and run.",
        "Ratios: the alternative's time divided by toolscout lexical's (above 1 means toolscout is faster).",
        "",
        "| tools | engine | build s | query p50 ms | query p95 ms | build ratio | query ratio |",
        "|---:|---|---:|---:|---:|---:|---:|",
    ]
    lines += [
        f"| {r['tools']:,} | {r['engine']} | {r['build_s']:.3f} | {r['p50_ms']:.3f} | {r['p95_ms']:.3f} "
        f"| {r['build_ratio']:.2f} | {r['query_ratio']:.1f} |"
        for r in rows
    ]
    at = {(r["tools"], r["engine"]): r for r in rows}
    ours_3k, ours_10k = at[(3_000, "toolscout lexical")], at[(10_000, "toolscout lexical")]
    query_x = float(at[(3_000, "rank_bm25")]["p50_ms"]) / float(ours_3k["p50_ms"])
    build_x = float(ours_10k["build_s"]) / float(at[(10_000, "bm25s")]["build_s"])
    lines += [
        "",
        f"- Query p50 at 3,000 tools: toolscout lexical is **{query_x:.0f}×** faster than rank_bm25 (target ≥ 25×).",
        f"- Index build at 10,000 tools: toolscout lexical takes **{build_x:.2f}×** bm25s's time (target ≤ 2×).",
    ]
    lines += [
        "",
        "Memory of a 10,000-tool toolscout index, each built in a fresh process (hybrid: the embedding model is",
        "loaded before the baseline is read, so only the index and its vectors count; embedding cache empty):",
        "",
        "| index | build s (traced, slower) | retained (tracemalloc) MB | build peak MB | RSS growth MB |",
        "|---|---:|---:|---:|---:|",
    ]
    lines += [
        f"| {m['mode']} | {m['build_s']:.2f} | {m['traced_mb']:.1f} | {m['traced_peak_mb']:.1f} "
        f"| {m['rss_delta_mb']:.1f} |"
        for m in memory
    ]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memory-child", choices=("lexical", "hybrid"), help=argparse.SUPPRESS)
    parser.add_argument("--no-hybrid", action="store_true", help="skip the hybrid memory measurement")
    args = parser.parse_args()
    if args.memory_child:
        memory_child(args.memory_child)
        return
    data = load_bfcl()
    queries = [q.query for q in data.queries[:QUERIES]]
    rows: list[dict[str, object]] = []
    for size in SIZES:
        catalog = grow(data.catalog, size)
        timings = {}
        for name, make in ENGINES.items():
            print(f"{size} tools: {name} ...", file=sys.stderr, flush=True)
            timings[name] = time_engine(make, catalog, queries)
        ours = timings["toolscout lexical"]
        for name, t in timings.items():
            rows.append(
                {
                    "tools": size,
                    "engine": name,
                    **{key: round(value, 4) for key, value in t.items()},
                    "build_ratio": round(t["build_s"] / ours["build_s"], 3),
                    "query_ratio": round(t["p50_ms"] / ours["p50_ms"], 2),
                }
            )
    memory = [measure_memory("lexical")] + ([] if args.no_hybrid else [measure_memory("hybrid")])

    RESULTS.mkdir(exist_ok=True)
    meta = {"cpus": os.cpu_count(), "load_average_1_5_15": [round(x, 2) for x in os.getloadavg()]}
    payload = {"meta": meta, "timings": rows, "memory": memory}
    (RESULTS / "speed.json").write_text(json.dumps(payload, indent=1) + "\n", "utf-8")
    with (RESULTS / "speed.csv").open("w", newline="", encoding="utf-8") as out:
        writer = csv.DictWriter(out, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    table = markdown(rows, memory)
    (RESULTS / "speed.md").write_text(table, encoding="utf-8")
    print(table)


if __name__ == "__main__":
    main()
