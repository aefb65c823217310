"""What a user pays for a lexical ``tool_search`` beyond the search itself (issue 38), interleaved in one run.

On the pooled BFCL catalog (2,963 tools) and its first 600 tuning requests, top 10, one thread:

- ``searcher``: the searcher `build_searcher` makes from default settings (lexical), alone, as
  ``bench/lexical_vs_bm25.py`` times it;
- ``tool_search``: the same request as a model makes it through the library: `ScoutSession.resolve`
  (``tool_search``, ``{"query": ..., "limit": 10}``) on a `ToolScout` of the catalog with default settings
  (``search_mode="lexical"``), and the answer written as the text the model reads: the `ToolOutcome`
  ``dispatch`` makes of it (`run_resolution`), its `ToolOutcome.to_text`;
- ``rank_bm25``: `rank_bm25.BM25Okapi` over the same tools (`systems.rank_bm25_system`), the bar's reference.

Each source tree (this one, and with ``--baseline REF`` that commit's ``src``) runs in a worker process of its
own, rank_bm25 in one more; the main process hands each block of 20 requests to every system in turn, the order
rotating block by block (`interleaved.run`). Times are the working thread's CPU time
(`time.thread_time`). "Added" is the median over requests of ``tool_search``'s CPU less the searcher's for the
same request, in µs.

    .venv/bin/python bench/tool_search_cost.py [--baseline REF] [--no-bm25]   # -> results/tool_search_cost.{json,md}
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import hashlib
import json
import statistics
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from interleaved import BLOCK, Timed, Worker, percentile, run, serve

from toolscout.dispatch import BridgeAnswer, ToolOutcome

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
QUERIES = 600
LIMIT = 10


def _toolscout_systems() -> dict[str, Callable[[str], str]]:
    """The searcher alone and a whole ``tool_search`` through `ScoutSession.resolve`, for the toolscout on sys.path."""
    from bfcl import load_bfcl

    from toolscout import ScoutSettings, ToolScout
    from toolscout.search import build_searcher

    catalog = load_bfcl().catalog
    settings = ScoutSettings(search_mode="lexical")
    searcher = build_searcher(settings, catalog, mode="lexical")
    session = ToolScout(catalog, settings=settings).session("bench")

    def search(query: str) -> str:
        return "\n".join(hit.name for hit in searcher.search(query, limit=LIMIT, mode="lexical").hits)

    def tool_search(query: str) -> str:
        return text(session.resolve("tool_search", {"query": query, "limit": LIMIT}))

    return {"searcher": search, "tool_search": tool_search}


def text(read: object) -> str:
    """The text the model reads for a resolved bridge read: its outcome as `run_resolution` makes it, written out."""
    assert isinstance(read, BridgeAnswer)
    outcome = ToolOutcome(
        name=read.name, requested=read.name, arguments=read.arguments, content=read.content, answer=read.answer
    )
    return outcome.to_text()


def _rank_bm25_systems() -> dict[str, Callable[[str], str]]:
    from bfcl import load_bfcl
    from systems import rank_bm25_system

    search = rank_bm25_system(load_bfcl().catalog)
    return {"rank_bm25": lambda query: "\n".join(search(query, LIMIT))}


def worker(kind: str) -> None:
    """Serve timed calls for rank_bm25 or the toolscout on sys.path; each answer goes back as a digest."""
    systems = (_rank_bm25_systems if kind == "rank_bm25" else _toolscout_systems)()
    serve(systems, record=lambda answer: hashlib.sha256(str(answer).encode()).hexdigest()[:16])


def figures(raw: dict[str, list[Timed]], labels: list[str]) -> dict[str, dict[str, float]]:
    """Per system: CPU p50 and p95 (ms); per tree: µs ``tool_search`` adds to the searcher (median per request)."""
    rows: dict[str, dict[str, float]] = {}
    for name, timed in raw.items():
        cpu = [call.cpu_ms for call in timed]
        rows[name] = {"cpu_p50_ms": statistics.median(cpu), "cpu_p95_ms": percentile(cpu, 0.95)}
    for label in labels:
        suffix = f" ({label})" if label else ""
        whole, alone = raw[f"tool_search{suffix}"], raw[f"searcher{suffix}"]
        added = [(a.cpu_ms - b.cpu_ms) * 1000 for a, b in zip(whole, alone, strict=True)]
        rows[f"tool_search{suffix}"]["added_us_p50"] = statistics.median(added)
    return rows


def markdown(rows: dict[str, dict[str, float]], labels: list[str], meta: dict[str, object]) -> str:
    lines = [
        f"Pooled BFCL catalog ({meta['tools']:,} tools), the first {meta['queries']} tuning requests, top {LIMIT}, "
        "lexical, default settings;",
        f"each source tree in its own process, interleaved in blocks of {BLOCK} requests in one run, one thread each.",
        "CPU: the working thread's own CPU time (`time.thread_time`). `tool_search`: `ScoutSession.resolve` and the "
        "answer's JSON text; searcher: `build_searcher(...).search` alone.",
        f"Machine: {meta['cpus']} CPUs, load average {meta['load_before']} before, {meta['load_after']} after."
        + (f" Baseline: `{meta['baseline']}`." if meta["baseline"] else ""),
        f"Command: `{meta['command']}`",
        "",
        "| system | CPU p50 ms | CPU p95 ms | rank_bm25 CPU p50 / CPU p50 | tool_search / searcher (p50) "
        "| µs added (median per request) |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    bm25 = rows.get("rank_bm25", {}).get("cpu_p50_ms")
    for name, row in rows.items():
        p50 = row["cpu_p50_ms"]
        label = name[name.index("(") + 1 : -1] if "(" in name else ""
        suffix = f" ({label})" if label else ""
        alone = rows.get(f"searcher{suffix}", {}).get("cpu_p50_ms")
        ratio = f"{p50 / alone:.2f}×" if name.startswith("tool_search") and alone else ""
        added = f"{row['added_us_p50']:.0f}" if "added_us_p50" in row else ""
        versus = f"{bm25 / p50:.1f}×" if bm25 else ""
        lines.append(f"| {name} | {p50:.3f} | {row['cpu_p95_ms']:.3f} | {versus} | {ratio} | {added} |")
    if meta.get("same_answers") is not None:
        lines.append(
            f"\n- Baseline and this tree write the same `tool_search` text for every request: "
            f"{'yes' if meta['same_answers'] else 'NO'}."
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--baseline", help="also time this commit's src (e.g. the commit before a change)")
    parser.add_argument("--no-bm25", action="store_true", help="leave rank_bm25 out")
    parser.add_argument("--name", default="tool_search_cost", help="results/NAME.{json,md}")
    args = parser.parse_args()
    if args.worker:
        worker(args.worker)
        return
    from bfcl import load_bfcl
    from multilingual import export_src

    data = load_bfcl()
    queries = [query.query for query in data.queries[:QUERIES]]
    load_before = [round(x, 2) for x in os.getloadavg()]
    labels = ["baseline", "this tree"] if args.baseline else [""]
    with tempfile.TemporaryDirectory() as tmp:
        workers = [] if args.no_bm25 else [Worker(__file__, "", ["rank_bm25"], None)]
        if args.baseline:
            workers.append(Worker(__file__, "baseline", ["toolscout"], export_src(args.baseline, Path(tmp))))
        workers.append(Worker(__file__, labels[-1], ["toolscout"], ROOT / "src"))
        try:
            raw = run(queries, workers)
        finally:
            for w in workers:
                w.close()
    meta: dict[str, object] = {
        "tools": len(data.catalog),
        "queries": len(queries),
        "limit": LIMIT,
        "baseline": args.baseline,
        "cpus": os.cpu_count(),
        "load_before": load_before,
        "load_after": [round(x, 2) for x in os.getloadavg()],
        "command": " ".join(["bench/tool_search_cost.py", *sys.argv[1:]]),
        "same_answers": (
            [call.answer for call in raw["tool_search (baseline)"]]
            == [call.answer for call in raw["tool_search (this tree)"]]
            if args.baseline
            else None
        ),
    }
    rows = figures(raw, labels)
    table = markdown(rows, labels, meta)
    print(table)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"{args.name}.md").write_text(table, encoding="utf-8")
    rounded = {name: {k: round(v, 4) for k, v in row.items()} for name, row in rows.items()}
    (RESULTS / f"{args.name}.json").write_text(json.dumps({"meta": meta, "cpu": rounded}, indent=1) + "\n", "utf-8")


if __name__ == "__main__":
    main()
