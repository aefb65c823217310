"""Retrieval quality side by side, in one run, on the pooled BFCL catalog (tuning categories only).

Systems: plain BM25 over name+description (`rank_bm25.BM25Okapi`, the seeds' approach, and
`bm25s`), the peers' own search code (FastMCP's BM25 search transform, pydantic-ai's local
keyword search; run from `.bench-venv/`), toolscout lexical and toolscout hybrid.

    bash bench/setup.sh                          # once: .bench-venv/ with the peers
    .venv/bin/python bench/compare_retrieval.py  # -> bench/results/retrieval.{json,csv,md}

Hits are scored on the original BFCL name (`BfclData.canonical`); every system gets the same
queries and returns at most 10 hits. Latency is wall time per query on this machine.
"""

from __future__ import annotations

import os

# One thread for every engine, torch included (set before anything imports torch): on a small shared
# machine torch's default intra-op threads make a single-query forward pass many times slower.
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import csv
import json
import platform
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

from bfcl import TUNING_CATEGORIES, BfclData, load_bfcl
from systems import IN_PROCESS, PEERS, Run, run_in_process, run_peer

from toolscout.search._evaluation import EvalReport, summarize

RESULTS = Path(__file__).resolve().parent / "results"
KS = (1, 5, 10)
LIMIT = max(KS)
ORDER = ("rank_bm25 (name+desc)", "bm25s (name+desc)", "pydantic-ai-keywords", "fastmcp-bm25", "MiniLM dense")


def score(run: Run, data: BfclData, indices: list[int] | None = None) -> EvalReport:
    picked = indices if indices is not None else list(range(len(data.queries)))
    return summarize(
        [data.canonical(run.rankings[i]) for i in picked],
        [data.queries[i].gold for i in picked],
        ks=KS,
        latencies_ms=[run.latencies_ms[i] for i in picked],
        build_s=run.build_s,
    )


def row(run: Run, report: EvalReport) -> dict[str, object]:
    return {
        "system": run.system,
        "note": run.note,
        "n": report.n,
        "R@1": round(report.recall[1], 4),
        "R@5": round(report.recall[5], 4),
        "R@10": round(report.recall[10], 4),
        "Hit@5": round(report.hit[5], 4),
        "MRR@10": round(report.mrr, 4),
        "nDCG@10": round(report.ndcg, 4),
        "p50_ms": round(report.latency_p50_ms, 3),
        "p95_ms": round(report.latency_p95_ms, 3),
        "build_s": round(report.build_s, 3),
    }


def markdown(rows: list[dict[str, object]], *, n_tools: int, n_queries: int) -> str:
    lines = [
        f"Pooled BFCL catalog ({n_tools:,} tools), {n_queries:,} queries from the tuning categories; "
        "R@k is capped recall (gold tools in the top k / min(k, gold tools)); Hit@5: a gold tool in the top 5. "
        "Latency per query, one thread, same machine and run.",
        "",
        "| system | R@1 | R@5 | R@10 | Hit@5 | MRR@10 | nDCG@10 | p50 ms | p95 ms |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        name = f"**{r['system']}**" if str(r["system"]).startswith("toolscout") else str(r["system"])
        lines.append(
            f"| {name} | {r['R@1']:.3f} | {r['R@5']:.3f} | {r['R@10']:.3f} | {r['Hit@5']:.3f} | {r['MRR@10']:.3f} "
            f"| {r['nDCG@10']:.3f} | {r['p50_ms']:.2f} | {r['p95_ms']:.2f} |"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--systems", nargs="*", help="subset of systems to run (default: all)")
    parser.add_argument("--name", default="retrieval", help="results file stem (default: retrieval)")
    args = parser.parse_args()
    data = load_bfcl(TUNING_CATEGORIES)
    queries = [q.query for q in data.queries]
    wanted = args.systems or [*ORDER, *[name for name in IN_PROCESS if name not in ORDER]]
    runs: list[Run] = []
    # A fresh embedding cache, so the hybrid build time is a cold build.
    with tempfile.TemporaryDirectory(prefix="toolscout-bench-") as cache:
        os.environ["TOOLSCOUT_CACHE_DIR"] = cache
        for name in wanted:
            print(f"running {name} ...", file=sys.stderr, flush=True)
            if name in PEERS:
                runs.append(run_peer(name, data.catalog, queries, limit=LIMIT))
            else:
                runs.append(run_in_process(name, data.catalog, queries, limit=LIMIT))

    rows = [row(run, score(run, data)) for run in runs]
    by_category: dict[str, list[int]] = defaultdict(list)
    for i, q in enumerate(data.queries):
        by_category[q.category].append(i)
    categories = {
        run.system: {cat: row(run, score(run, data, idx)) for cat, idx in by_category.items()} for run in runs
    }

    RESULTS.mkdir(exist_ok=True)
    meta = {
        "catalog_tools": len(data.catalog),
        "queries": len(data.queries),
        "categories": list(TUNING_CATEGORIES),
        "machine": f"{platform.machine()} {os.cpu_count()} cpus, python {platform.python_version()}",
        "load_average_1_5_15": [round(x, 2) for x in os.getloadavg()],
    }
    (RESULTS / f"{args.name}.json").write_text(
        json.dumps({"meta": meta, "systems": rows, "by_category": categories}, indent=1) + "\n", encoding="utf-8"
    )
    with (RESULTS / f"{args.name}.csv").open("w", newline="", encoding="utf-8") as out:
        writer = csv.DictWriter(out, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    table = markdown(rows, n_tools=len(data.catalog), n_queries=len(data.queries))
    (RESULTS / f"{args.name}.md").write_text(table, encoding="utf-8")
    raw = RESULTS / "raw"
    raw.mkdir(exist_ok=True)
    with (raw / "retrieval_rankings.jsonl").open("w", encoding="utf-8") as out:
        for i, q in enumerate(data.queries):
            ranked = {run.system: run.rankings[i] for run in runs}
            out.write(json.dumps({"id": q.id, "category": q.category, "gold": q.gold, "rankings": ranked}) + "\n")
    print(table)


if __name__ == "__main__":
    main()
