"""Choose hybrid search's lexical weight for the packaged model (`HybridFusion.lexical_weight`), end to end.

Each weight of the grid runs every request through `ToolIndex.search(mode="hybrid")` with the packaged model
(``embeddings.backend: onnx``) and otherwise default settings (top band, compound requests, calibrated abstention).
The weight is chosen by the score ``python -m train select`` uses for checkpoints: the mean of R@1 and R@5 on BFCL
tuning (pooled catalog) and on the tooldata dev split (at most 40 requests per source against at most 300 of its
tools, macro-averaged). BFCL live (held out) and the packaged sample requests are measured, never chosen on.

    .venv/bin/python bench/tune_fusion.py   # -> results/tune_fusion.{json,md}
    .venv/bin/python bench/tune_fusion.py --model build/model/model.onnx --name tune_fusion_candidate
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections.abc import Sequence
from pathlib import Path

from model_compare import Labelled, labelled_sets, tooldata_dev

from toolscout import ScoutSettings
from toolscout.search import SearchPipeline
from toolscout.search._evaluation import summarize
from toolscout.search._internal import HybridFusion, build_index
from toolscout.search._judge import ConfidenceStage
from toolscout.search.embeddings import Embedder, EmbeddingSettings
from toolscout.search.embeddings._internal import DenseRanker, EmbeddingCache, shared_embedder

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
WEIGHTS = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8)
CHOSEN_ON = ("BFCL tuning", "tooldata dev")


def recall(data: Labelled, dense: DenseRanker, weight: float) -> tuple[float, float]:
    engine = build_index(data.catalog, dense=dense, fuse=HybridFusion(lexical_weight=weight))
    index = SearchPipeline([ConfidenceStage.from_settings(ScoutSettings())]).around(engine, data.catalog)
    rankings = [[hit.name for hit in index.search(query, limit=10, mode="hybrid").hits] for query in data.queries]
    report = summarize([data.canonical(r) for r in rankings], data.golds, ks=(1, 5))
    return round(report.recall[1], 4), round(report.recall[5], 4)


def main(argv: Sequence[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tooldata", type=Path, default=ROOT.parent / "shared" / "tooldata")
    parser.add_argument("--model", type=Path, help="an exported ONNX model to tune for (default: the packaged one)")
    parser.add_argument("--weights", type=float, nargs="+", default=list(WEIGHTS), help="lexical weights to try")
    parser.add_argument("--name", default="tune_fusion", help="results file name, without suffix")
    args = parser.parse_args(argv)
    settings = EmbeddingSettings(backend="onnx", model=None if args.model is None else str(args.model))
    embedder: Embedder = shared_embedder(settings)
    sets = labelled_sets()
    dev = tooldata_dev(args.tooldata)
    rankers = {id(data): DenseRanker(data.catalog, embedder, cache=EmbeddingCache()) for data in sets.values()}
    dev_rankers = {source: DenseRanker(data.catalog, embedder, cache=EmbeddingCache()) for source, data in dev.items()}
    table: dict[str, dict[str, tuple[float, float]]] = {}
    for weight in args.weights:
        row = {name: recall(data, rankers[id(data)], weight) for name, data in sets.items()}
        per_source = [recall(data, dev_rankers[source], weight) for source, data in dev.items()]
        row["tooldata dev"] = (
            round(statistics.fmean(r for r, _ in per_source), 4),
            round(statistics.fmean(r for _, r in per_source), 4),
        )
        table[str(weight)] = row
        print(weight, json.dumps(row), flush=True)
    scores = {
        weight: round(statistics.fmean(v for name in CHOSEN_ON for v in row[name]), 4) for weight, row in table.items()
    }
    chosen = max(scores, key=lambda weight: scores[weight])
    results = {"model": embedder.model_id, "rows": table, "score": scores, "chosen": chosen}
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"{args.name}.json").write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    (RESULTS / f"{args.name}.md").write_text(markdown(results), encoding="utf-8")
    print("chosen", chosen, scores, flush=True)


def markdown(results: dict[str, object]) -> str:
    table: dict[str, dict[str, list[float]]] = results["rows"]  # type: ignore[assignment]
    names = list(next(iter(table.values())))
    lines = [
        f"Hybrid lexical weight (`bench/tune_fusion.py`, {results['model']}); R@1 / R@5. Chosen by the mean of BFCL "
        f"tuning and tooldata dev R@1 and R@5 (score); chosen: **{results['chosen']}**. BFCL live and the sample "
        "requests are measured only.",
        "",
        "| lexical weight | " + " | ".join(names) + " | score |",
        "|---:|" + "---:|" * (len(names) + 1),
    ]
    scores: dict[str, float] = results["score"]  # type: ignore[assignment]
    for weight, row in table.items():
        cells = [f"{row[name][0]:.3f} / {row[name][1]:.3f}" for name in names]
        lines.append(f"| {weight} | " + " | ".join(cells) + f" | {scores[weight]:.4f} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main(sys.argv[1:])
