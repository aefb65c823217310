"""Tune and check toolscout's lexical search on the BFCL tuning categories, next to plain BM25.

Runs in one process on the pooled BFCL catalog (bench/bfcl.py): plain `rank_bm25.BM25Okapi` over
name + description, and `ToolIndex.search(mode="lexical", limit=10)` with every cutoff active.
Metrics come from `toolscout.search._evaluation.summarize` (capped recall, hit rate, MRR) after mapping
hit names to BFCL's original names. Tune on these categories only.

Usage: ``python bench/tune_lexical.py [--by-category] [--search bfcl|joint]``

``--search`` runs a coordinate search over the lexical weights from the shipped defaults
(each setting scaled by 0.7, 0.85, 1.15, 1.4 in turn, kept when the objective improves, until
a round changes nothing) and prints where it ends. Objective: R@1 + R@5 + MRR/2 on BFCL
(``bfcl``), or that plus the same on the packaged sample catalog's paraphrased requests
(``joint``, how the defaults were chosen: tuning on BFCL alone overfits to its requests,
which spell out argument names).
"""

from __future__ import annotations

import json
import re
import sys
import time
from collections.abc import Callable, Sequence

from bfcl import TUNING_CATEGORIES, BfclData, Query, load_bfcl
from rank_bm25 import BM25Okapi
from sample_set import load_sample

from toolscout.search._evaluation import EvalReport, summarize
from toolscout.search._index import IndexConfig, build_index
from toolscout.search._lexical import LexicalConfig

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


Settings = dict[str, float]


def settings_of(config: IndexConfig) -> Settings:
    lexical = config.lexical
    out = {f"weight.{name}": weight for name, weight in lexical.weights.items()}
    out |= {"k1": lexical.k1, "coordination": lexical.coordination}
    return out | {"description_coverage": lexical.description_coverage, "synonym_weight": config.synonym_weight}


def config_of(settings: Settings) -> IndexConfig:
    weights = {key.removeprefix("weight."): value for key, value in settings.items() if key.startswith("weight.")}
    lexical = LexicalConfig(
        weights=weights,  # type: ignore[arg-type]  # keys come from LexicalConfig's own field names
        k1=settings["k1"],
        coordination=settings["coordination"],
        description_coverage=settings["description_coverage"],
    )
    return IndexConfig(lexical=lexical, synonym_weight=settings["synonym_weight"])


def objective(report: EvalReport) -> float:
    return report.recall[1] + report.recall[5] + report.mrr / 2


def coordinate_search(data: BfclData, joint: bool) -> None:
    catalog, requests = load_sample()
    sample = [request for request in requests if request.gold]

    def measure(settings: Settings) -> tuple[float, EvalReport, EvalReport]:
        config = config_of(settings)
        bfcl = evaluate(data, data.queries, toolscout_lexical(data, config))
        index = build_index(catalog, config=config)
        rankings = [[hit.name for hit in index.search(q.query, limit=LIMIT).hits] for q in sample]
        paraphrased = summarize(rankings, [q.gold for q in sample], ks=(1, 5, 10))
        return objective(bfcl) + (objective(paraphrased) if joint else 0.0), bfcl, paraphrased

    settings = settings_of(IndexConfig())
    best, bfcl, paraphrased = measure(settings)
    print(line("start: BFCL", bfcl), "|", line("sample", paraphrased))
    improved = True
    while improved:
        improved = False
        for key in list(settings):
            for factor in (0.7, 0.85, 1.15, 1.4):
                trial = settings | {key: round(settings[key] * factor, 4)}
                value, trial_bfcl, trial_sample = measure(trial)
                if value > best + 1e-4:
                    best, settings, bfcl, paraphrased, improved = value, trial, trial_bfcl, trial_sample, True
                    print(f"{key}={trial[key]}:", line("BFCL", bfcl), "|", line("sample", paraphrased))
    print(json.dumps(settings))
    print(line("end: BFCL", bfcl), "|", line("sample", paraphrased))


def main(argv: Sequence[str]) -> None:
    data = load_bfcl(TUNING_CATEGORIES)
    if "--search" in argv:
        coordinate_search(data, joint=argv[argv.index("--search") + 1 :][:1] != ["bfcl"])
        return
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
