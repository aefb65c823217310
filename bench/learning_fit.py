"""Fit the learned ranking's weights (``learning/ranking.json``) on BFCL tuning and the tooldata dev split.

For each set, engine (lexical, hybrid) and seed, the replay of ``toolscout eval --history`` feeds the first half
of the shuffled requests through the recording path; each other request is searched unlearned, `DEPTH` deep, and
its candidates (the hits, plus every tool near past requests voted for) get the stage's own rows
(`toolscout.learning._fusion.features` over `LearnedRanking.evidence`). A conditional logit (softmax over a
request's candidates; L2; non-negative engine weights) is fitted per engine mode to pick a gold tool, on requests
that drew votes,
with requests whose tool never appeared in the history weighed `--never-weight` times (so learning does not cost
them what it gains on the others).

BFCL live is never read here (it is the held-out check of ``bench/learning_replay.py``).

Usage: ``python bench/learning_fit.py [--seeds 0] [--never-weight 10] [--write]`` (without ``--write`` it prints
the weights and the in-sample R@1 of each set, learning off and on).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt
from bfcl import TUNING_CATEGORIES
from learning_replay import ROOT, Set, bfcl, learned_scout, tooldata

from toolscout.cli._replay import REPLAY_SCOPE
from toolscout.learning._fusion import FEATURES, MODES, WEIGHTS_FILE, LearnedWeights, features
from toolscout.learning._internal import LearnedRanking
from toolscout.search._internal import HybridIndex

NEAR = 0.5
DEPTH = 20
Group = tuple[npt.NDArray[np.float64], npt.NDArray[np.bool_], bool]
"""(candidate rows, which are gold, whether a gold tool appeared in the history)."""


def collect(groups: Set, *, mode: str, seed: int, weights: LearnedWeights) -> list[Group]:
    """Every future request that drew votes, as candidate rows."""
    found: list[Group] = []
    for catalog, queries, aliases in groups:
        order = list(queries)
        random.Random(seed).shuffle(order)
        past, future = order[: len(order) // 2], order[len(order) // 2 :]
        scout, learning = learned_scout(catalog, past, aliases, mode=mode)
        assert scout.usage is not None
        ranking = LearnedRanking(scout.usage.store, learning, refresh_s=0.0, weights=weights)
        index = scout.index()
        dense = index.dense if isinstance(index, HybridIndex) and mode == "hybrid" else None
        if dense is not None and future:
            ranking.evidence(REPLAY_SCOPE, "warm", future[0].query, None, dense)
            ranking.wait_for_vectors()
        seen = {name for item in past for name in item.gold}
        searcher = scout.searcher()
        for number, item in enumerate(future):
            result = searcher.search(item.query, limit=DEPTH, mode=mode)  # type: ignore[arg-type]
            evidence = ranking.evidence(REPLAY_SCOPE, f"future-{number}", item.query, None, dense)
            evidence = {tool: value for tool, value in evidence.items() if tool in catalog}
            if not evidence:
                continue
            names, rows = features([(hit.name, hit.confidence or 0.0) for hit in result.hits], evidence)
            gold = np.array([aliases.get(name, name) in item.gold for name in names])
            found.append((rows, gold, bool(seen.intersection(item.gold))))
        scout.close()
    return found


def fit(groups: Sequence[Group], *, never_weight: float, l2: float, steps: int, rate: float) -> npt.NDArray[np.float64]:
    """Conditional-logit weights (gradient descent from "the engine's confidence alone")."""
    train = [(rows, gold, 1.0 if seen else never_weight) for rows, gold, seen in groups if gold.any()]
    total = sum(weight for *_, weight in train)
    vector = np.zeros(len(FEATURES))
    vector[FEATURES.index("confidence")] = 1.0
    engine = [FEATURES.index("confidence"), FEATURES.index("reciprocal_rank")]
    for _ in range(steps):
        gradient = l2 * vector
        for rows, gold, weight in train:
            scores = rows @ vector
            shares = np.exp(scores - scores.max())
            shares /= shares.sum()
            gradient += weight * (rows.T @ shares - rows[gold].mean(axis=0))
        vector -= rate * gradient / total
        vector[engine] = np.maximum(vector[engine], 0.0)
    return vector


def top1(groups: Sequence[Group], vector: npt.NDArray[np.float64] | None) -> float:
    """Share of `groups` whose first candidate after the stage's move is gold (None: the engine's order)."""
    right = 0
    for rows, gold, _ in groups:
        engine = [row for row in range(len(rows)) if rows[row, FEATURES.index("reciprocal_rank")] > 0]
        if vector is None or not len(rows):
            right += bool(engine) and bool(gold[engine[0]])
            continue
        scores = rows @ vector
        learned = [row for row in range(len(rows)) if rows[row, FEATURES.index("votes")] > 0]
        best = max(learned, key=lambda row: scores[row])
        kept = [row for row in engine if row != best]
        first = kept[0] if kept and scores[kept[0]] >= scores[best] else best
        right += bool(gold[first])
    return right / max(1, len(groups))


def main(argv: Sequence[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="0")
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument("--never-weight", type=float, default=10.0)
    parser.add_argument("--l2", type=float, default=0.01)
    parser.add_argument("--steps", type=int, default=800)
    parser.add_argument("--rate", type=float, default=0.5)
    parser.add_argument("--tooldata", type=Path, default=ROOT.parent.parent / "shared" / "tooldata")
    parser.add_argument("--write", action="store_true", help="write src/toolscout/learning/ranking.json")
    args = parser.parse_args(argv)
    if not args.tooldata.exists():
        args.tooldata = Path("/work/shared/tooldata")
    started = time.perf_counter()
    unweighted = LearnedWeights(near=NEAR, depth=DEPTH, modes={mode: dict.fromkeys(FEATURES, 0.0) for mode in MODES})
    sets = {"BFCL tuning": bfcl(TUNING_CATEGORIES), "tooldata dev": tooldata(args.tooldata, 200)}
    fitted: dict[str, dict[str, float]] = {}
    for mode in args.modes.split(","):
        data: dict[str, list[Group]] = {}
        for name, groups in sets.items():
            for seed in (int(seed) for seed in args.seeds.split(",")):
                data.setdefault(name, []).extend(collect(groups, mode=mode, seed=seed, weights=unweighted))
        pooled = [group for groups in data.values() for group in groups]
        vector = fit(pooled, never_weight=args.never_weight, l2=args.l2, steps=args.steps, rate=args.rate)
        fitted[mode] = {name: round(float(value), 4) for name, value in zip(FEATURES, vector, strict=True)}
        print(mode, json.dumps(fitted[mode], indent=2))
        for name, groups in data.items():
            for split, keep in (("seen", True), ("never", False)):
                part = [group for group in groups if group[2] is keep]
                off, on = top1(part, None), top1(part, vector)
                print(f"{name} {mode} {split} (n={len(part)} with votes): top-1 off {off:.3f} on {on:.3f}")
    print(f"{time.perf_counter() - started:.0f} s")
    if args.write:
        target = ROOT / "src" / "toolscout" / "learning" / WEIGHTS_FILE
        value = {"near": NEAR, "depth": DEPTH, "modes": fitted}
        LearnedWeights.from_json(value)
        target.write_text(json.dumps(value, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1:])
