"""Tune and check toolscout's lexical search on the BFCL tuning categories, next to plain BM25.

Runs in one process on the pooled BFCL catalog (bench/bfcl.py): plain `rank_bm25.BM25Okapi` over
name + description, and `ToolIndex.search(mode="lexical", limit=10)` with every cutoff active.
Metrics come from `toolscout.evaluation.summarize` (capped recall, hit rate, MRR) after mapping
hit names to BFCL's original names. Tune on these categories only.

Usage: ``python bench/tune_lexical.py [--by-category]``
"""

from __future__ import annotations

import re
import sys
import time
from collections.abc import Callable, Sequence

from bfcl import TUNING_CATEGORIES, BfclData, Query, load_bfcl
from rank_bm25 import BM25Okapi

from toolscout.evaluation import EvalReport, summarize
from toolscout.search.index import IndexConfig, build_index

Ranker = Callable[[str], list[str]]
LIMIT = 10


def plain_bm25(data: BfclData) -> Ranker:
    """rank_bm25.BM25Okapi over name + description (names split on non-alphanumerics and camelCase)."""
    names = [tool.name for tool in data.catalog]

    def tokens(text: str) -> list[str]:
        return re.findall(r"[a-z0-9]+", re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", text).lower())

    bm25 = BM25Okapi([tokens(f"{tool.name} {tool.description}") for tool in data.catalog])

    def rank(query: str) -> list[str]:
        scores = bm25.get_scores(tokens(query))
        order = sorted(range(len(scores)), key=lambda i: -scores[i])[:LIMIT]
        return [names[i] for i in order if scores[i] > 0]

    return rank


def toolscout_lexical(data: BfclData, config: IndexConfig | None = None) -> Ranker:
    index = build_index(data.catalog, config=config)

    def rank(query: str) -> list[str]:
        return [hit.name for hit in index.search(query, limit=LIMIT).hits]

    return rank


def evaluate(data: BfclData, queries: Sequence[Query], rank: Ranker) -> EvalReport:
    rankings: list[list[str]] = []
    latencies: list[float] = []
    for q in queries:
        start = time.perf_counter()
        ranked = rank(q.query)
        latencies.append((time.perf_counter() - start) * 1000)
        rankings.append(data.canonical(ranked))
    return summarize(rankings, [q.gold for q in queries], ks=(1, 5, 10), latencies_ms=latencies)


def line(label: str, report: EvalReport) -> str:
    return (
        f"{label:<26} R@1 {report.recall[1]:.3f}  R@5 {report.recall[5]:.3f}  hit@5 {report.hit[5]:.3f}  "
        f"MRR {report.mrr:.3f}  p50 {report.latency_p50_ms:.3f} ms"
    )


def main(argv: Sequence[str]) -> None:
    data = load_bfcl(TUNING_CATEGORIES)
    print(f"BFCL tuning categories: {len(data.queries)} queries over {len(data.catalog)} pooled tools")
    rankers = {"plain rank_bm25": plain_bm25(data), "toolscout lexical": toolscout_lexical(data)}
    for label, rank in rankers.items():
        print(line(label, evaluate(data, data.queries, rank)))
        if "--by-category" in argv:
            for category in TUNING_CATEGORIES:
                subset = [q for q in data.queries if q.category == category]
                print(line(f"  {category}", evaluate(data, subset, rank)))


if __name__ == "__main__":
    main(sys.argv[1:])
