"""Why a seen request stays wrong with learning on (issue 40's gain bar): one row per future request of a replay.

The replay's split (`split_history`, seed, share) and history (`feed_history`) as ``bench/learning_replay.py``;
each future request is searched unlearned `DEPTH` deep, its `Evidence` read from the stage's `LearnedRanking`,
its candidates scored with the shipped weights (`features`, `LearnedWeights.score`) and the stage's answer made
by `LearnedRanking.apply`. For each request the dump keeps: the gold's rank off and on, the history requests
of the gold tool (term cosine under the stage's IDF, embedding cosine under the shipped model, token share),
the gold's evidence and score, the best-scored voted tool and the engine's top hit's score, and a verdict:

- ``right``: the gold is first with learning on;
- ``far``: no history request of the gold reaches ``near`` (no vote for it at all);
- ``outvoted``: the gold drew votes, but another voted tool scored higher and took the one move;
- ``prior``: the gold was the best-scored voted tool, but an engine hit above it scored higher still;
- ``abstained``: the engine abstained and the gold's nearest request is under ``learning.min_similarity``, so the
  stage kept the abstention;
- ``capped``: the gold scored highest of all but the stage's rule kept it below first (not expected).

A diagnosis of the stage reads the stage's own term index (`_ranking._ScopeIndex`: the IDF and the request order it
votes with); like ``bench/learning_split.py``, it looks inside what it measures and moves with it.

Usage: ``python bench/learning_gain_diagnosis.py --set "BFCL tuning" --mode hybrid --out /tmp/diag.jsonl``;
prints the verdict counts per split.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from bfcl import TUNING_CATEGORIES
from learning_replay import ROOT, Set, bfcl, learned_scout, tooldata
from tune_hybrid import LIVE_CATEGORIES

from toolscout.cli._replay import REPLAY_SCOPE, split_history
from toolscout.learning._fusion import features
from toolscout.learning._internal import LearnedRanking
from toolscout.learning._ranking import _ScopeIndex
from toolscout.search._internal import HybridIndex, tokenize

DEPTH = 20


def diagnose(groups: Set, *, mode: str, seed: int, history: float) -> list[dict[str, object]]:
    """One row per future request of each group (see the module docstring)."""
    rows: list[dict[str, object]] = []
    for catalog, queries, aliases in groups:
        past, future = split_history(queries, history=history, seed=seed)
        scout, learning = learned_scout(catalog, past, aliases, mode=mode)
        assert scout.usage is not None
        ranking = LearnedRanking(scout.usage.store, learning, refresh_s=0.0)
        weights = ranking.weights
        index = scout.index()
        dense = index.dense if isinstance(index, HybridIndex) and mode == "hybrid" else None
        if dense is not None and future:
            ranking.evidence(REPLAY_SCOPE, "warm", future[0].query, None, dense)
            ranking.wait_for_vectors()
        terms = _ScopeIndex(scout.usage.store.pairs(REPLAY_SCOPE))
        requests = list(terms.requests)
        embedded = (
            np.array([dense.embedder.embed_query(text) for text in requests], dtype=np.float32)
            if dense is not None and requests
            else None
        )
        by_tool: dict[str, list[int]] = {}
        for item in past:
            for gold in item.gold:
                by_tool.setdefault(gold, []).append(requests.index(item.query) if item.query in requests else -1)
        seen_tools = {name for item in past for name in item.gold}
        searcher = scout.searcher()
        for number, item in enumerate(future):
            result = searcher.search(item.query, limit=DEPTH, mode=mode)  # type: ignore[arg-type]
            evidence = ranking.evidence(REPLAY_SCOPE, f"future-{number}", item.query, None, dense)
            evidence = {tool: value for tool, value in evidence.items() if tool in catalog}
            is_gold = [aliases.get(hit.name, hit.name) in item.gold for hit in result.hits]
            off = is_gold.index(True) if True in is_gold else None
            learned = ranking.apply(result, evidence, catalog) if evidence else result
            on_gold = [aliases.get(hit.name, hit.name) in item.gold for hit in learned.hits]
            on = on_gold.index(True) if True in on_gold else None
            similarities = terms.similarities(item.query)
            vector = dense.query_vector(item.query) if dense is not None else None
            mine = set(tokenize(item.query))
            history_rows = []
            for gold in item.gold:
                for row in by_tool.get(gold, []):
                    if row < 0:
                        continue
                    theirs = set(tokenize(requests[row]))
                    history_rows.append(
                        {
                            "request": requests[row],
                            "term": round(float(similarities[row]) if similarities is not None else 0.0, 3),
                            "dense": round(float(embedded[row] @ vector), 3)
                            if embedded is not None and vector is not None
                            else 0.0,
                            "share": round(len(mine & theirs) / max(1, len(mine | theirs)), 3),
                        }
                    )
            entry: dict[str, object] = {
                "query": item.query,
                "gold": list(item.gold),
                "seen": bool(seen_tools.intersection(item.gold)),
                "off": off,
                "on": on,
                "history": sorted(history_rows, key=lambda one: -max(one["term"], one["dense"]))[:5],  # type: ignore[type-var]
                "near_max": max((max(one["term"], one["dense"]) for one in history_rows), default=0.0),  # type: ignore[type-var]
                "voted": len(evidence),
            }
            verdict = "right" if on == 0 else "far"
            if evidence:
                names, table = features([(hit.name, hit.confidence or 0.0) for hit in result.hits], evidence)
                scores = weights.score(table, mode)
                voted = [row for row, name in enumerate(names) if name in evidence]
                best = max(voted, key=lambda row: scores[row])
                golds = [row for row in voted if aliases.get(names[row], names[row]) in item.gold]
                entry["best"] = {"tool": names[best], "score": round(float(scores[best]), 3)}
                entry["top_engine"] = {"tool": names[0], "score": round(float(scores[0]), 3)} if result.hits else None
                if golds:
                    gold_row = max(golds, key=lambda row: scores[row])
                    entry["gold_score"] = round(float(scores[gold_row]), 3)
                    entry["gold_evidence"] = evidence[names[gold_row]]._asdict()
                    if on != 0:
                        if not result.hits:
                            verdict = "abstained"
                        elif gold_row != best:
                            verdict = "outvoted"
                        elif scores[0] >= scores[best]:
                            verdict = "prior"
                        else:
                            verdict = "capped"
            entry["verdict"] = verdict
            rows.append(entry)
        scout.close()
    return rows


def main(argv: Sequence[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", default="BFCL tuning")
    parser.add_argument("--mode", default="hybrid")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--history", type=float, default=0.5)
    parser.add_argument("--tooldata", type=Path, default=Path("/work/shared/tooldata"))
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    loaders = {
        "BFCL tuning": lambda: bfcl(TUNING_CATEGORIES),
        "BFCL live (held out)": lambda: bfcl(LIVE_CATEGORIES),
        "tooldata dev": lambda: tooldata(args.tooldata, 200),
    }
    rows = diagnose(loaders[args.set](), mode=args.mode, seed=args.seed, history=args.history)
    args.out.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    for split in (True, False):
        part = [row for row in rows if row["seen"] is split]
        counts = Counter(str(row["verdict"]) for row in part)
        off1 = sum(row["off"] == 0 for row in part) / max(1, len(part))
        on1 = sum(row["on"] == 0 for row in part) / max(1, len(part))
        print(f"{args.set} {args.mode} {'seen' if split else 'never'} n={len(part)} R@1 off {off1:.3f} on {on1:.3f}")
        print("  ", dict(counts.most_common()))


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    main(sys.argv[1:])
