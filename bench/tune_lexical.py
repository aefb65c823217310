"""Measure toolscout's lexical ranking on the BFCL tuning categories (pooled catalog), next to plain BM25.

Usage: ``python bench/tune_lexical.py [--by-category]``. Tune on these categories only.
"""

from __future__ import annotations

import re
import statistics
import sys
import time
from collections.abc import Callable, Sequence

from bfcl import TUNING_CATEGORIES, BfclData, Query, load_bfcl
from rank_bm25 import BM25Okapi

from toolscout.search.lexical import LexicalConfig, LexicalIndex

Ranker = Callable[[str], list[str]]


def plain_bm25(data: BfclData) -> Ranker:
    """rank_bm25.BM25Okapi over name + description (names split on non-alphanumerics and camelCase)."""
    names = [tool.name for tool in data.catalog]

    def tok(text: str) -> list[str]:
        spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", text)
        return re.findall(r"[a-z0-9]+", spaced.lower())

    bm25 = BM25Okapi([tok(f"{tool.name} {tool.description}") for tool in data.catalog])

    def rank(query: str) -> list[str]:
        scores = bm25.get_scores(tok(query))
        order = sorted(range(len(scores)), key=lambda i: -scores[i])[:20]
        return [names[i] for i in order if scores[i] > 0]

    return rank


def toolscout_lexical(data: BfclData, config: LexicalConfig | None = None) -> Ranker:
    index = LexicalIndex(data.catalog.tools, config=config)
    names = [tool.name for tool in data.catalog]

    def rank(query: str) -> list[str]:
        known, _ = index.term_ids(query)
        scores = index.scores(known)
        order = scores.argsort(kind="stable")[::-1][:20]
        return [names[i] for i in order if scores[i] > 0]

    return rank


def evaluate(data: BfclData, queries: Sequence[Query], rank: Ranker) -> dict[str, float]:
    r1 = r5 = hit5 = mrr = 0.0
    latencies = []
    for q in queries:
        start = time.perf_counter()
        ranked = rank(q.query)
        latencies.append(time.perf_counter() - start)
        got = data.canonical(ranked)
        gold = set(q.gold)
        r1 += len(gold.intersection(got[:1])) / len(gold)
        r5 += len(gold.intersection(got[:5])) / len(gold)
        hit5 += bool(gold.intersection(got[:5]))
        first = next((i for i, name in enumerate(got) if name in gold), None)
        mrr += 0.0 if first is None else 1.0 / (first + 1)
    n = len(queries)
    return {
        "R@1": r1 / n,
        "R@5": r5 / n,
        "hit@5": hit5 / n,
        "MRR": mrr / n,
        "p50_ms": statistics.median(latencies) * 1000,
    }


def report(label: str, metrics: dict[str, float]) -> None:
    print(f"{label:<28}" + "  ".join(f"{key} {value:.3f}" for key, value in metrics.items()))


def main(argv: Sequence[str]) -> None:
    data = load_bfcl(TUNING_CATEGORIES)
    rankers = {"plain rank_bm25": plain_bm25(data), "toolscout lexical": toolscout_lexical(data)}
    for label, rank in rankers.items():
        report(label, evaluate(data, data.queries, rank))
        if "--by-category" in argv:
            for category in TUNING_CATEGORIES:
                subset = [q for q in data.queries if q.category == category]
                report(f"  {category}", evaluate(data, subset, rank))


if __name__ == "__main__":
    main(sys.argv[1:])
