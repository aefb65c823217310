"""Latency of one query embedding with all-MiniLM-L6-v2: one torch thread vs torch's default.

`SentenceTransformerEmbedder(query_threads=1)` (the default) runs each query's forward pass on
one intra-op thread; ``query_threads=None`` leaves torch's default (one per core). Both
embedders load the same packaged model and embed the same requests, interleaved, in one run,
twice: on an otherwise idle machine, and with one core kept busy by a spinning process (a
shared machine, or a gateway serving other work).

Usage: ``python bench/query_threads.py`` -> ``bench/results/query_threads.md``
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import torch
from bfcl import TUNING_CATEGORIES, load_bfcl

from toolscout.search.embeddings._local import SentenceTransformerEmbedder

RESULTS = Path(__file__).resolve().parent / "results" / "query_threads.md"
REQUESTS = 200


def measure(embedders: dict[str, SentenceTransformerEmbedder], queries: Sequence[str]) -> dict[str, list[float]]:
    timings: dict[str, list[float]] = {label: [] for label in embedders}
    for query in queries:
        for label, embedder in embedders.items():
            start = time.perf_counter()
            embedder.embed_query(query)
            timings[label].append((time.perf_counter() - start) * 1000)
    return timings


def rows(condition: str, timings: dict[str, list[float]]) -> list[str]:
    p50 = {label: statistics.median(ms) for label, ms in timings.items()}
    p95 = {label: statistics.quantiles(ms, n=20)[-1] for label, ms in timings.items()}
    base = p50["1 thread"]
    return [
        f"| {condition} | {label} | {p50[label]:.1f} | {p95[label]:.1f} | {p50[label] / base:.2f}× |" for label in p50
    ]


def main() -> None:
    queries = [q.query for q in load_bfcl(TUNING_CATEGORIES).queries][:: 1490 // REQUESTS][:REQUESTS]
    embedders = {
        "1 thread": SentenceTransformerEmbedder(),
        "torch default": SentenceTransformerEmbedder(query_threads=None),
    }
    for embedder in embedders.values():
        embedder.embed_query("warm up")
    idle = measure(embedders, queries)
    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        busy = measure(embedders, queries)
    finally:
        spinner.kill()
        spinner.wait()
    lines = [
        "# One query embedding: one torch thread vs torch's default",
        "",
        f"{len(queries)} BFCL requests, each embedded by both settings in turn; torch default = "
        f"{torch.get_num_threads()} threads on {os.cpu_count()} cores. Busy: one core kept busy by a spinning process.",
        "",
        "| machine | setting | p50 ms | p95 ms | p50 / 1 thread's |",
        "|---|---|---:|---:|---:|",
        *rows("idle", idle),
        *rows("busy", busy),
    ]
    RESULTS.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
