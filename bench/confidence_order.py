"""Do a search's order and its confidences agree, and could a per-hit confidence make them agree?

Every request of BFCL tuning, BFCL live (held out), the packaged sample requests and the everyday probe goes through
`ToolIndex.search(mode="hybrid")` with the packaged model (the fusion inputs recorded as in `learned_fusion.py`);
the blend's top 10 are then scored offline four ways:

- ``blend, previous confidence``: the engine's order with the calibrator shipped until this comparison (fitted on
  each search's best hit over lexical share, cosine and ``lead``, measured against the next lower hit, so a second
  hit far ahead of the third read more confident than the first; weights below as they were shipped);
- ``order by previous confidence``: the same hits sorted by those confidences;
- ``tool_search's pipeline, shipped confidence``: the answers themselves, as ``tool_search`` searches (`build_searcher`
  with the default settings: every stage, the shipped calibrator fitted per hit by ``bench/calibrate.py fit`` over the
  ranking score, the gap to the best other hit, the top cosine and the word coverage, abstention on);
- ``per-hit (score, gap)``: a logistic regression fitted on every top-10 hit of BFCL tuning's training half (label:
  gold) over the fused score and the gap to the best other hit (``(s - best other) / s``), both non-increasing down
  the blend's order, so the confidences fall as the order does by construction;
- ``per-hit (lexical, cosine, gap)``: the same with the two scores apart (order by its confidences).

Reported per set: R@1 / R@5 (a hit is any gold tool; BFCL by original name) and the share of answers whose top-5
confidences never rise down the list. Nothing is fitted on BFCL live, the sample requests or the everyday probe.

    .venv/bin/python bench/bfcl.py                 # once
    .venv/bin/python bench/confidence_order.py     # -> results/confidence_order.md
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
from learned_fusion import Recorded, record
from model_compare import Labelled, labelled_sets
from sklearn.linear_model import LogisticRegression

from toolscout import ScoutSettings
from toolscout.catalog import Catalog
from toolscout.search import SearchPipeline
from toolscout.search._internal import HybridFusion, build_index
from toolscout.search.embeddings import EmbeddingSettings
from toolscout.search.embeddings._internal import DenseRanker, EmbeddingCache, shared_embedder

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from train._bfcl import request_half  # noqa: E402

RESULTS = ROOT / "bench" / "results"
DATA = ROOT / "bench" / "data"
Features = dict[str, float]


def blend(request: Recorded) -> list[tuple[str, float]]:
    return HybridFusion(lexical_weight=request.weight)(request.lexical, request.dense)[:10]


def features(request: Recorded, fused: Sequence[tuple[str, float]]) -> list[tuple[str, Features]]:
    shares, cosines = dict(request.lexical), dict(request.dense)
    unlisted = min(cosines.values(), default=0.0)
    top_cosine = max(cosines.values(), default=0.0)
    scores = [score for _, score in fused]
    out = []
    for i, (name, score) in enumerate(fused):
        other = max((s for j, s in enumerate(scores) if j != i), default=0.0)
        lower = max((s for s in scores if s < score), default=None)
        lead = 1.0 if lower is None else (score - lower) / score if score > 0 else 0.0
        gap = (score - other) / score if score > 0 else 0.0
        out.append(
            (
                name,
                {
                    "s": score,
                    "lex": shares.get(name, 0.0),
                    "cos": cosines.get(name, unlisted),
                    "gap": gap,
                    "lead": lead,
                    "top_cos": top_cosine,
                },
            )
        )
    return out


PREVIOUS = {"intercept": -7.1485, "lexical": 0.1909, "cosine": 12.5295, "lead": 3.5673}
"""The hybrid weights shipped before the per-hit fit (calibration.json at commit d13e08d)."""


def previous() -> Callable[[Features], float]:
    fit = PREVIOUS

    def confidence(f: Features) -> float:
        z = fit["intercept"] + fit["lexical"] * f["lex"] + fit["cosine"] * f["cos"] + fit["lead"] * f["lead"]
        return 1.0 / (1.0 + math.exp(-max(min(z, 60.0), -60.0)))

    return confidence


def answered(data: Labelled, ranker: DenseRanker, keep: Callable[[Sequence[str]], bool]) -> str:
    """R@1 / R@5 and the falling share of `tool_search`'s own answers to the requests of `data` that `keep` keeps."""
    searcher = SearchPipeline.from_settings(ScoutSettings()).around(
        build_index(data.catalog, dense=ranker), data.catalog
    )
    top1 = top5 = falling = n = 0
    for query, gold in zip(data.queries, data.golds, strict=True):
        if not keep(gold):
            continue
        hits = searcher.search(query, limit=10, mode="hybrid").hits
        names = [data.canonical([hit.name])[0] for hit in hits]
        values = [hit.confidence or 0.0 for hit in hits][:5]
        gold_names = set(data.canonical(list(gold)))
        n += 1
        top1 += bool(names) and names[0] in gold_names
        top5 += bool(set(names[:5]) & gold_names)
        falling += all(a >= b for a, b in zip(values, values[1:], strict=False))
    return f"{top1 / n:.3f} / {top5 / n:.3f} · {falling / n:.0%}"


def per_hit(train: Sequence[Recorded], keys: Sequence[str]) -> Callable[[Features], float]:
    rows, labels = [], []
    for request in train:
        for name, f in features(request, blend(request)):
            rows.append([f[k] for k in keys])
            labels.append(request.canonical.get(name, name) in request.gold)
    model = LogisticRegression(C=10, max_iter=3000).fit(np.asarray(rows), np.asarray(labels))
    return lambda f: float(model.predict_proba(np.asarray([[f[k] for k in keys]]))[0, 1])


def score(requests: Sequence[Recorded], confidence: Callable[[Features], float], reorder: bool) -> str:
    top1 = top5 = falling = 0
    for request in requests:
        scored = [(name, confidence(f)) for name, f in features(request, blend(request))]
        if reorder:
            scored.sort(key=lambda item: -item[1])
        names = [request.canonical.get(name, name) for name, _ in scored]
        values = [c for _, c in scored][:5]
        top1 += bool(names) and names[0] in request.gold
        top5 += bool(set(names[:5]) & request.gold)
        falling += all(a >= b - 1e-9 for a, b in zip(values, values[1:], strict=False))
    n = len(requests)
    return f"{top1 / n:.3f} / {top5 / n:.3f} · {falling / n:.0%}"


def main() -> None:
    sets = labelled_sets()
    embedder = shared_embedder(EmbeddingSettings(backend="onnx"))
    tuning = sets["BFCL tuning"]
    bfcl = DenseRanker(tuning.catalog, embedder, cache=EmbeddingCache())
    recorded_tuning = record(tuning, bfcl)
    train = [r for r in recorded_tuning if request_half(sorted(r.gold)) == "train"]
    catalog = Catalog.from_file(DATA / "everyday_catalog.json")
    rows = [json.loads(line) for line in (DATA / "everyday_probe.jsonl").read_text(encoding="utf-8").splitlines()]
    everyday = Labelled(catalog, [r["query"] for r in rows], [r["gold"] for r in rows])
    live, sample = sets["BFCL live (held out)"], sets["sample"]
    rankers = {
        "sample": DenseRanker(sample.catalog, embedder, cache=EmbeddingCache()),
        "everyday": DenseRanker(catalog, embedder, cache=EmbeddingCache()),
    }
    evaluated = {
        "BFCL tuning, held half": [r for r in recorded_tuning if request_half(sorted(r.gold)) == "held"],
        "BFCL live (held out)": record(live, bfcl),
        "sample": record(sample, rankers["sample"]),
        "everyday": record(everyday, rankers["everyday"]),
    }
    scorers = {
        "blend, previous confidence": (previous(), False),
        "order by previous confidence": (previous(), True),
        "per-hit (score, gap), blend order": (per_hit(train, ("s", "gap")), False),
        "per-hit (lexical, cosine, gap), its order": (per_hit(train, ("lex", "cos", "gap")), True),
    }
    lines = [
        "Order and confidence (`.venv/bin/python bench/confidence_order.py`): hybrid search's top 10, R@1 / R@5 and "
        "the share of answers whose top-5 confidences never rise down the list; per-hit fits on BFCL tuning's "
        f"training half ({len(train)} requests).",
        "",
        "| scorer | " + " | ".join(f"{name} ({len(reqs)})" for name, reqs in evaluated.items()) + " |",
        "|---|" + "---:|" * len(evaluated),
    ]
    for label, (confidence, reorder) in scorers.items():
        cells = [score(requests, confidence, reorder) for requests in evaluated.values()]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    everything: Callable[[Sequence[str]], bool] = lambda gold: True  # noqa: E731
    shipped = [
        answered(tuning, bfcl, lambda gold: request_half(sorted(gold)) == "held"),
        answered(live, bfcl, everything),
        answered(sample, rankers["sample"], everything),
        answered(everyday, rankers["everyday"], everything),
    ]
    lines.append("| tool_search's pipeline, shipped confidence | " + " | ".join(shipped) + " |")
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "confidence_order.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
