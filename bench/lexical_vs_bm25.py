"""Lexical ``tool_search`` against rank_bm25 at 2,963 tools, interleaved in one run (issue 38's speed bar).

What ``toolscout eval --mode lexical`` times, on the pooled BFCL catalog (2,963 tools) and its first 600
tuning requests (top 10): the searcher `build_searcher` makes from default settings (the pipeline's stages
around the engine, as ``tool_search`` runs them), against `rank_bm25.BM25Okapi` over the same tools' name
and description (`systems.rank_bm25_system`). Hybrid runs beside them (the same searcher with
``mode="hybrid"``, the catalog's embeddings computed first, one torch thread).

Every system runs in its own process (a worker importing toolscout from a source tree: the working tree,
and with ``--baseline REF`` that commit's ``src``; rank_bm25 in one more) and times its own calls; the
main process hands each block of 20 requests to every system in turn (each answers them in a hot loop,
as ``toolscout eval`` does), the order rotating block by block, so a busy moment of a shared machine
lands on every system alike. The figures to compare are the ratios
(rank_bm25's p50 over each system's) and the baseline's p50 over the tree's, all from one run.

A baseline from before `build_searcher` (``275d0b9``, the commit before the search pipeline) is timed as
``toolscout eval --mode lexical`` searched then: its lexical index, which did the steps that are the
pipeline's stages today (results/lexical_vs_bm25_before_pipeline.md).

    .venv/bin/python bench/lexical_vs_bm25.py [--baseline REF] [--no-hybrid] [--name NAME]   # -> results/NAME.{json,md}
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import json
import statistics
import tempfile
from collections.abc import Callable
from pathlib import Path

from interleaved import BLOCK, Worker, percentile, run, serve

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
QUERIES = 600
LIMIT = 10


def _toolscout_searchers(modes: list[str]) -> dict[str, Callable[[str], list[str]]]:
    """The searchers `build_searcher` makes from default settings, one per mode, for the toolscout on sys.path."""
    from bfcl import load_bfcl

    from toolscout import ScoutSettings
    from toolscout import search as toolscout_search

    catalog = load_bfcl().catalog
    searchers = {}
    for mode in modes:
        if hasattr(toolscout_search, "build_searcher"):
            index = toolscout_search.build_searcher(ScoutSettings(), catalog, mode=mode)
        else:  # a baseline from before the pipeline: its lexical index did what tool_search did (`toolscout eval`)
            index = toolscout_search.build_index(catalog)

        def search(query: str, index: object = index, mode: str = mode) -> list[str]:
            return [hit.name for hit in index.search(query, limit=LIMIT, mode=mode).hits]  # type: ignore[attr-defined]

        searchers[mode] = search
    return searchers


def _rank_bm25_searchers(modes: list[str]) -> dict[str, Callable[[str], list[str]]]:
    from bfcl import load_bfcl
    from systems import rank_bm25_system

    search = rank_bm25_system(load_bfcl().catalog)
    return {"rank_bm25": lambda query: search(query, LIMIT)}


def worker(kind: str, modes: list[str]) -> None:
    """Serve timed searches for rank_bm25 or the toolscout on sys.path; each answer goes back as its names."""
    searchers = (_rank_bm25_searchers if kind == "rank_bm25" else _toolscout_searchers)(modes)
    serve(searchers)


def timings(queries: list[str], workers: list[Worker]) -> dict[str, dict[str, object]]:
    """Every query through every system (`interleaved.run`): wall and CPU p50, wall p95, and the answers."""
    return {
        name: {
            "p50_ms": statistics.median(call.wall_ms for call in timed),
            "p95_ms": percentile([call.wall_ms for call in timed], 0.95),
            "cpu_p50_ms": statistics.median(call.cpu_ms for call in timed),
            "answers": [call.answer for call in timed],
        }
        for name, timed in run(queries, workers).items()
    }


def markdown(results: dict[str, dict[str, object]], meta: dict[str, object]) -> str:
    bm25 = float(results["rank_bm25"]["p50_ms"])  # type: ignore[arg-type]
    lines = [
        f"Pooled BFCL catalog ({meta['tools']:,} tools), the first {meta['queries']} tuning requests, top {LIMIT};",
        f"each system in its own process, interleaved in blocks of {BLOCK} requests in one run, one thread each.",
        "CPU: the searching thread's own CPU time (`time.thread_time`), which a busy shared machine inflates less.",
        f"Machine: {meta['cpus']} CPUs, load average {meta['load_before']} before, {meta['load_after']} after."
        + (f" Baseline: `{meta['baseline']}`." if meta["baseline"] else ""),
        "",
        "| system | p50 ms | p95 ms | rank_bm25 p50 / p50 | CPU p50 ms | rank_bm25 CPU p50 / CPU p50 |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    bm25_cpu = float(results["rank_bm25"]["cpu_p50_ms"])  # type: ignore[arg-type]
    for name, row in results.items():
        p50, cpu = float(row["p50_ms"]), float(row["cpu_p50_ms"])  # type: ignore[arg-type]
        lines.append(
            f"| {name} | {p50:.3f} | {float(row['p95_ms']):.3f} | {bm25 / p50:.1f}× "  # type: ignore[arg-type]
            f"| {cpu:.3f} | {bm25_cpu / cpu:.1f}× |"
        )
    for mode in ("lexical", "hybrid"):
        before, after = results.get(f"{mode} (baseline)"), results.get(f"{mode} (this tree)")
        if before is not None and after is not None:
            speedup = float(before["p50_ms"]) / float(after["p50_ms"])  # type: ignore[arg-type]
            same = before["answers"] == after["answers"]
            lines.append(
                f"\n- {mode}: baseline p50 / this tree's p50 = **{speedup:.2f}×**; "
                f"same answers to every request: {'yes' if same else 'NO'}."
            )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--worker", nargs="+", help=argparse.SUPPRESS)
    parser.add_argument("--baseline", help="also time this commit's src (e.g. the commit before a change)")
    parser.add_argument("--no-hybrid", action="store_true", help="time lexical search only")
    parser.add_argument("--name", default="lexical_vs_bm25", help="results/NAME.{json,md}")
    args = parser.parse_args()
    if args.worker:
        worker(args.worker[0], args.worker[1:])
        return
    from bfcl import load_bfcl
    from multilingual import export_src

    data = load_bfcl()
    queries = [query.query for query in data.queries[:QUERIES]]
    modes = ["lexical"] if args.no_hybrid else ["lexical", "hybrid"]
    load_before = [round(x, 2) for x in os.getloadavg()]
    with tempfile.TemporaryDirectory() as tmp:
        workers = [Worker(__file__, "", ["rank_bm25"], None)]
        if args.baseline:
            workers.append(Worker(__file__, "baseline", ["toolscout", *modes], export_src(args.baseline, Path(tmp))))
        workers.append(Worker(__file__, "this tree" if args.baseline else "", ["toolscout", *modes], ROOT / "src"))
        try:
            results = timings(queries, workers)
        finally:
            for w in workers:
                w.close()
    meta = {
        "tools": len(data.catalog),
        "queries": len(queries),
        "limit": LIMIT,
        "baseline": args.baseline,
        "cpus": os.cpu_count(),
        "load_before": load_before,
        "load_after": [round(x, 2) for x in os.getloadavg()],
    }
    table = markdown(results, meta)
    print(table)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"{args.name}.md").write_text(table, encoding="utf-8")
    figures = {name: {k: round(v, 4) for k, v in row.items() if k != "answers"} for name, row in results.items()}  # type: ignore[union-attr]
    (RESULTS / f"{args.name}.json").write_text(json.dumps({"meta": meta, "p50": figures}, indent=1) + "\n", "utf-8")


if __name__ == "__main__":
    main()
