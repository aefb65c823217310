"""Would a learned fusion beat hybrid search's blend? An offline probe over the packaged model's rankings.

Every request of BFCL tuning, BFCL live (held out) and the packaged sample requests goes through
`ToolIndex.search(mode="hybrid")` with the packaged model and default settings; a recording fusion keeps what the
index hands its fusion for the whole request (the lexical ranking as shares of the request's best, the dense ranking
as cosines, the request's lexical weight). The recorded rankings are then re-fused offline:

- ``blend``: `HybridFusion` as shipped (the check that the replay reproduces ``tool_search``);
- ``learned``: a scorer over 15 features of each candidate (its lexical share and cosine, whether and where each
  ranking lists it, its gaps to each ranking's best, products and squares, the blend itself, the request's weight
  times each score, whether lexical search found nothing), linear or with one hidden layer of 16 units, fitted with
  a listwise softmax loss (the gold tools against the request's other candidates) on BFCL tuning's training half.

The candidates are the ones the blend ranks (lexical hits and dense top 50; dense-only ones over the similarity
floor when lexical search found nothing). Scores are R@1 / R@5 of the re-fused order (no top band, exact names or
compound splitting: those steps come after fusion and do not change with it) on BFCL tuning's held half, BFCL live
and the sample requests, plus R@10 and the share of requests with a gold tool among the candidates (what any
reordering of them could reach). Nothing is fitted on BFCL live or the sample requests.

    .venv/bin/python bench/learned_fusion.py   # -> results/learned_fusion.{json,md}
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt
import torch
from model_compare import Labelled, labelled_sets

from toolscout.search._internal import HybridFusion, build_index
from toolscout.search.embeddings import EmbeddingSettings
from toolscout.search.embeddings._internal import DenseRanker, EmbeddingCache, shared_embedder

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from train._bfcl import request_half  # noqa: E402

RESULTS = ROOT / "bench" / "results"
FEATURES = 15
DENSE_DEPTH = 50
MODELS = (("linear", 0, 300), ("linear", 0, 1000), ("16 hidden", 16, 300), ("16 hidden", 16, 1000))
"""(label, hidden units, Adam steps) of each learned scorer."""

Ranking = list[tuple[str, float]]


@dataclass(frozen=True)
class Recorded:
    """What fusion received for one request, and which of its candidates are gold."""

    weight: float
    lexical: Ranking
    dense: Ranking
    gold: frozenset[str]
    canonical: dict[str, str]


class RecordingFusion:
    """A `RequestFusion` that answers with `HybridFusion` and keeps each request's first fusion inputs."""

    def __init__(self) -> None:
        self.inner = HybridFusion()
        self.current = self.inner
        self.calls: list[tuple[float, Ranking, Ranking]] = []

    def for_request(self, query: str) -> RecordingFusion:
        self.current = self.inner.for_request(query)
        return self

    def __call__(self, lexical: Ranking, dense: Ranking) -> list[tuple[str, float]]:
        self.calls.append((self.current.lexical_weight, list(lexical), list(dense)[:DENSE_DEPTH]))
        return self.current(lexical, dense)


def record(data: Labelled, ranker: DenseRanker) -> list[Recorded]:
    fusion = RecordingFusion()
    index = build_index(data.catalog, dense=ranker, fuse=fusion)
    out = []
    for query, gold in zip(data.queries, data.golds, strict=True):
        fusion.calls.clear()
        index.search(query, limit=10, mode="hybrid")
        weight, lexical, dense = fusion.calls[0] if fusion.calls else (fusion.inner.lexical_weight, [], [])
        names = {name for name, _ in lexical} | {name for name, _ in dense}
        canonical = {name: data.canonical([name])[0] for name in names}
        out.append(Recorded(weight, lexical, dense, frozenset(gold), canonical))
    return out


def candidates(request: Recorded) -> list[str]:
    """The names the blend ranks for this request (see `HybridFusion.__call__`)."""
    if request.lexical:
        return list(dict.fromkeys([*(n for n, _ in request.lexical), *(n for n, _ in request.dense)]))
    floor = HybridFusion().similarity_floor
    return [name for name, cosine in request.dense if cosine >= floor]


def features(request: Recorded, names: Sequence[str]) -> npt.NDArray[np.float32]:
    shares, cosines = dict(request.lexical), dict(request.dense)
    lexical_rank = {name: i for i, (name, _) in enumerate(request.lexical)}
    dense_rank = {name: i for i, (name, _) in enumerate(request.dense)}
    unlisted = min(cosines.values(), default=0.0)
    best_cosine, best_share = max(cosines.values(), default=0.0), max(shares.values(), default=0.0)
    w = request.weight
    rows = []
    for name in names:
        s, c = shares.get(name, 0.0), cosines.get(name, unlisted)
        rows.append(
            [
                s,
                c,
                float(name in shares),
                float(name in cosines),
                1 / (2 + lexical_rank[name]) if name in lexical_rank else 0.0,
                1 / (2 + dense_rank[name]) if name in dense_rank else 0.0,
                c - best_cosine,
                s - best_share,
                s * c,
                w * s + (1 - w) * c,
                w * s,
                w * c,
                s * s,
                c * c,
                float(not shares),
            ]
        )
    return np.asarray(rows, dtype=np.float32).reshape(len(rows), FEATURES)


def fit(requests: Sequence[Recorded], hidden: int, steps: int, seed: int = 0) -> torch.nn.Module:
    """A candidate scorer fitted with a listwise softmax loss over each request's candidates (full batch, Adam)."""
    torch.manual_seed(seed)
    groups = []
    for request in requests:
        names = candidates(request)
        positive = [i for i, name in enumerate(names) if request.canonical[name] in request.gold]
        if positive and len(names) > 1:
            groups.append((features(request, names), positive))
    width = max(len(x) for x, _ in groups)
    x = torch.zeros(len(groups), width, FEATURES)
    listed = torch.zeros(len(groups), width, dtype=torch.bool)
    gold = torch.zeros(len(groups), width, dtype=torch.bool)
    for i, (matrix, positive) in enumerate(groups):
        x[i, : len(matrix)] = torch.from_numpy(matrix)
        listed[i, : len(matrix)] = True
        gold[i, positive] = True
    model: torch.nn.Module = (
        torch.nn.Linear(FEATURES, 1)
        if not hidden
        else torch.nn.Sequential(torch.nn.Linear(FEATURES, hidden), torch.nn.Tanh(), torch.nn.Linear(hidden, 1))
    )
    optimizer = torch.optim.Adam(model.parameters(), lr=0.02)
    absent = torch.tensor(-1e9)
    for _ in range(steps):
        optimizer.zero_grad()
        scores = torch.where(listed, model(x).squeeze(-1), absent)
        log_p = scores - torch.logsumexp(scores, 1, keepdim=True)
        loss = -torch.logsumexp(torch.where(gold, log_p, absent), 1).mean()
        loss.backward()
        optimizer.step()
    return model


def blend_order(request: Recorded) -> list[str]:
    fused = HybridFusion(lexical_weight=request.weight)(request.lexical, request.dense)
    return [name for name, _ in fused]


def learned_order(model: torch.nn.Module, request: Recorded) -> list[str]:
    names = candidates(request)
    if not names:
        return []
    with torch.no_grad():
        scores = model(torch.from_numpy(features(request, names))).squeeze(-1).tolist()
    return [names[i] for i in sorted(range(len(names)), key=lambda i: (-scores[i], names[i]))]


def recall(requests: Sequence[Recorded], orders: Sequence[Sequence[str]], k: int) -> float:
    total = 0.0
    for request, order in zip(requests, orders, strict=True):
        found = {request.canonical[name] for name in order[:k]}
        total += len(found & request.gold) / min(k, len(request.gold))
    return round(total / len(requests), 4)


def main() -> None:
    sets = labelled_sets()
    embedder = shared_embedder(EmbeddingSettings(backend="onnx"))
    tuning = sets["BFCL tuning"]
    bfcl_ranker = DenseRanker(tuning.catalog, embedder, cache=EmbeddingCache())  # BFCL live shares the catalog
    recorded_tuning = record(tuning, bfcl_ranker)
    halves = [request_half(sorted(r.gold)) for r in recorded_tuning]
    train = [r for r, half in zip(recorded_tuning, halves, strict=True) if half == "train"]
    evaluated = {
        "BFCL tuning, held half": [r for r, half in zip(recorded_tuning, halves, strict=True) if half == "held"],
        "BFCL live (held out)": record(sets["BFCL live (held out)"], bfcl_ranker),
        "sample": record(sets["sample"], DenseRanker(sets["sample"].catalog, embedder, cache=EmbeddingCache())),
    }
    results: dict[str, dict[str, dict[str, float]]] = {"blend": {}}
    for name, requests in evaluated.items():
        orders = [blend_order(r) for r in requests]
        reachable = sum(any(r.canonical[n] in r.gold for n in candidates(r)) for r in requests) / len(requests)
        results["blend"][name] = {
            **{f"R@{k}": recall(requests, orders, k) for k in (1, 5, 10)},
            "gold among candidates": round(reachable, 4),
        }
    for label, hidden, steps in MODELS:
        model = fit(train, hidden, steps)
        results[f"learned, {label}, {steps} steps"] = {
            name: {f"R@{k}": recall(requests, [learned_order(model, r) for r in requests], k) for k in (1, 5, 10)}
            for name, requests in evaluated.items()
        }
        print(label, steps, results[f"learned, {label}, {steps} steps"], flush=True)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "learned_fusion.json").write_text(json.dumps(results, indent=1) + "\n")
    (RESULTS / "learned_fusion.md").write_text(markdown(results, len(train), evaluated))


def markdown(
    results: dict[str, dict[str, dict[str, float]]], trained_on: int, evaluated: dict[str, list[Recorded]]
) -> str:
    names = list(evaluated)
    lines = [
        "Learned fusion vs the blend, replayed on the packaged model's recorded rankings "
        f"(`.venv/bin/python bench/learned_fusion.py`); learned scorers fitted on BFCL tuning's training half "
        f"({trained_on} requests). R@1 / R@5 (R@10).",
        "",
        "| fusion | " + " | ".join(f"{name} ({len(evaluated[name])})" for name in names) + " |",
        "|---|" + "---:|" * len(names),
    ]
    for label, row in results.items():
        cells = [f"{row[n]['R@1']:.3f} / {row[n]['R@5']:.3f} ({row[n]['R@10']:.3f})" for n in names]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    reach = " · ".join(f"{n} {results['blend'][n]['gold among candidates']:.3f}" for n in names)
    lines += ["", f"Requests with a gold tool among the candidates (the most any reordering reaches): {reach}.", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
