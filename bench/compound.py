"""Compound requests searched sentence by sentence (the pipeline's `PartsStage`), measured on and off in one run.

Hybrid search with the packaged model, as ``tool_search`` runs it (`ToolIndex.search`, ``mode="hybrid"``, judged by the
``confidence`` stage), over:
BFCL tuning (pooled catalog; the threshold is chosen here and on the tooldata dev split), BFCL live (held out:
measured, never chosen on), the packaged sample requests, and the tooldata dev split (``--tooldata``; at most 40
requests per source against at most 300 of its tools, R@k macro-averaged, as ``python -m train select`` scores).
For each set: R@1 / R@5 with splitting off, then on at each ``part_min_confidence`` of the grid, the share of
requests that split, and the p50 and p95 search time with splitting off and on at 0.5 (same process,
interleaved).

    .venv/bin/python bench/compound.py   # -> results/compound.{json,md}
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from model_compare import Labelled, labelled_sets, tooldata_dev

from toolscout import ScoutSettings
from toolscout.search import SearchIndex, SearchPipeline
from toolscout.search._evaluation import summarize
from toolscout.search._internal import build_index
from toolscout.search._judge import ConfidenceStage
from toolscout.search._parts import request_parts
from toolscout.search._pipeline import PartsStage
from toolscout.search.embeddings import EmbeddingSettings
from toolscout.search.embeddings._internal import DenseRanker, EmbeddingCache, shared_embedder

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
GRID = (0.2, 0.3, 0.4, 0.5, 0.6, 0.8)
LIMIT = 10


def measure(data: Labelled, embedder: object) -> dict[str, object]:
    dense = DenseRanker(data.catalog, embedder, cache=EmbeddingCache())  # type: ignore[arg-type]
    engine, judge = build_index(data.catalog, dense=dense), ConfidenceStage.from_settings(ScoutSettings())
    indexes: dict[str, SearchIndex] = {"off": SearchPipeline([judge]).around(engine, data.catalog)} | {
        f"on@{tau}": SearchPipeline([PartsStage(min_confidence=tau), judge]).around(engine, data.catalog)
        for tau in GRID
    }
    found: dict[str, list[list[str]]] = {label: [] for label in indexes}
    timings: dict[str, list[float]] = {"off": [], "on@0.5": []}
    for query in data.queries:
        for label, index in indexes.items():
            started = time.perf_counter()
            hits = index.search(query, limit=LIMIT, mode="hybrid").hits
            if label in timings:
                timings[label].append((time.perf_counter() - started) * 1000)
            found[label].append([hit.name for hit in hits])
    row: dict[str, object] = {
        "n": len(data.queries),
        "split share": round(statistics.fmean(bool(request_parts(q, max_parts=6)) for q in data.queries), 4),
        "p50 ms": {label: round(statistics.median(values), 2) for label, values in timings.items()},
        "p95 ms": {label: round(statistics.quantiles(values, n=20)[-1], 2) for label, values in timings.items()},
    }
    for label, rankings in found.items():
        report = summarize([data.canonical(r) for r in rankings], data.golds, ks=(1, 5))
        row[label] = [round(report.recall[1], 4), round(report.recall[5], 4)]
    return row


def main(argv: Sequence[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tooldata", type=Path, default=ROOT.parent / "shared" / "tooldata")
    args = parser.parse_args(argv)
    embedder = shared_embedder(EmbeddingSettings(backend="onnx"))
    sets = labelled_sets()
    results: dict[str, object] = {"model": embedder.model_id}
    for name, data in sets.items():
        results[name] = measure(data, embedder)
        print(name, json.dumps(results[name]), flush=True)
    dev = {source: measure(data, embedder) for source, data in tooldata_dev(args.tooldata).items()}
    results["tooldata dev (per source)"] = dev
    results["tooldata dev"] = {
        label: [round(statistics.fmean(row[label][k] for row in dev.values()), 4) for k in (0, 1)]  # type: ignore[index]
        for label in ("off", *(f"on@{tau}" for tau in GRID))
    }
    print("tooldata dev", json.dumps(results["tooldata dev"]), flush=True)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "compound.json").write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    (RESULTS / "compound.md").write_text(markdown(results), encoding="utf-8")


def markdown(results: dict[str, object]) -> str:
    labels = ["off", *(f"on@{tau}" for tau in GRID)]
    lines = [
        f"Compound requests split into sentences (`bench/compound.py`, hybrid, {results['model']}); R@1 / R@5 with "
        "splitting off and on at each `part_min_confidence`.",
        "",
        "| set | split share | " + " | ".join(labels) + " | p50 ms off / on | p95 ms off / on |",
        "|---|---:|" + "---:|" * (len(labels) + 2),
    ]
    for name, row in results.items():
        if not isinstance(row, dict) or name.endswith("(per source)"):
            continue
        cells = [f"{row[label][0]:.3f} / {row[label][1]:.3f}" for label in labels]
        share = f"{row['split share']:.1%}" if "split share" in row else ""
        times = [f"{row[key]['off']} / {row[key]['on@0.5']}" if key in row else "" for key in ("p50 ms", "p95 ms")]
        lines.append(f"| {name} | {share} | " + " | ".join(cells) + f" | {times[0]} | {times[1]} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main(sys.argv[1:])
