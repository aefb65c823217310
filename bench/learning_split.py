"""Where a learned lexical ``tool_search`` spends its learned work (issue 40): each part's p50, in the bench's searches.

The setup of ``bench/learning_cost.py`` (10,000 pairs, the sample requests through `ScoutSession.resolve`, learning off
and on alternating); the learned stage's parts are timed in place by wrapping them: the term similarity over the
scope's past requests, the rest of the evidence (near rows, votes), whether a deeper search is needed, the scores, the
re-ranking, and the second (deeper) search. Each part's p50 is over the searches that ran it; its share is of the
learning-off p50.

Usage: ``python bench/learning_split.py [--pairs 10000] [--rounds 5]``; writes ``bench/results/learning_split.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from learning_cost import BOUNDS, ROOT, pairs, scout  # type: ignore[import-not-found]

from toolscout.data import sample_queries_path
from toolscout.learning import _fusion, _ranking
from toolscout.learning._internal import SqliteUsageStore

TIMES: dict[str, list[float]] = defaultdict(list)
DEEPER: list[bool] = []
"""Per learned search that drew votes: whether it searched again, deeper."""
STAGES: dict[bool, list[float]] = {False: [], True: []}
"""The whole stage's time of each search that drew votes, by whether it searched again, deeper."""


def timed(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            TIMES[name].append((time.perf_counter() - started) * 1e6)

    return wrapper


class _Timed:
    """The engine the learned stage searches, each search timed."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.spent = inner, list[float]()

    def search(self, *args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return self.inner.search(*args, **kwargs)
        finally:
            self.spent.append((time.perf_counter() - started) * 1e6)


def wrap() -> None:
    """Time the learned stage's parts where they run (`_evidence` includes the similarity, `apply` the scores)."""
    _ranking._ScopeIndex.similarities = timed("similarity", _ranking._ScopeIndex.similarities)  # type: ignore[method-assign]
    _ranking.LearnedRanking._evidence = timed("evidence", _ranking.LearnedRanking._evidence)  # type: ignore[method-assign]
    complete = timed("deeper?", _ranking._complete)

    def deeper(*args: Any) -> bool:
        done = bool(complete(*args))
        DEEPER.append(not done)
        return done

    _ranking._complete = deeper  # type: ignore[assignment]
    _fusion.LearnedWeights.scores = timed("scores", _fusion.LearnedWeights.scores)  # type: ignore[method-assign]
    _ranking.LearnedRanking.apply = timed("apply", _ranking.LearnedRanking.apply)  # type: ignore[method-assign]
    search: Any = _ranking.LearnedRanking.search

    def stage(ranking: Any, inner: Any, *args: Any, **kwargs: Any) -> Any:
        asked = len(DEEPER)
        engine = _Timed(inner)
        started = time.perf_counter()
        result = search(ranking, engine, *args, **kwargs)
        if len(DEEPER) > asked:
            TIMES["engine"].append(engine.spent[0])
            if len(engine.spent) > 1:
                TIMES["second search"].append(engine.spent[1])
            STAGES[DEEPER[-1]].append((time.perf_counter() - started) * 1e6 - sum(engine.spent))
        return result

    _ranking.LearnedRanking.search = stage  # type: ignore[assignment,method-assign]


def main(argv: Sequence[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "learning_split.md")
    args = parser.parse_args(argv)
    queries = [json.loads(line)["query"] for line in sample_queries_path().open() if line.strip()]
    with tempfile.TemporaryDirectory() as folder:
        store = SqliteUsageStore(Path(folder) / "usage.db", BOUNDS)
        store.record(pairs(args.pairs, scout(None).catalog))
        scouts = {"off": scout(None), "on": scout(store)}
        for one in scouts.values():
            one.session("warm").resolve("tool_search", {"query": queries[0]})
        wrap()
        totals: dict[str, list[float]] = {"off": [], "on": []}
        searches = 0
        for number in range(args.rounds):
            for query in queries:
                for state, one in scouts.items():
                    session = one.session(f"bench-{number}")
                    started = time.perf_counter()
                    session.resolve("tool_search", {"query": query})
                    totals[state].append((time.perf_counter() - started) * 1e6)
                searches += 1
    off, on = statistics.median(totals["off"]), statistics.median(totals["on"])
    evidence, similarity = statistics.median(TIMES["evidence"]), statistics.median(TIMES["similarity"])
    apply, scores = statistics.median(TIMES["apply"]), statistics.median(TIMES["scores"])
    parts = [
        ("similarity over past requests (`_ScopeIndex.similarities`)", similarity),
        ("near rows, votes, evidence (`_evidence` less the similarity)", evidence - similarity),
        ("whether a deeper search is needed (`_complete`)", statistics.median(TIMES["deeper?"])),
        ("features and scores (`LearnedWeights.scores`)", scores),
        ("re-ranking (`apply` less the scores)", apply - scores),
    ]
    shallow, deep = STAGES[False], STAGES[True]
    again, share = statistics.median(deep) if deep else 0.0, len(deep) / max(1, len(shallow) + len(deep))
    first = statistics.median(TIMES["engine"])
    second = statistics.median(TIMES["second search"]) if TIMES["second search"] else 0.0
    load = " / ".join(f"{value:.2f}" for value in os.getloadavg())
    lines = [
        "# Where a learned lexical `tool_search` spends its learned work (issue 40)",
        "",
        f"`python bench/learning_split.py --pairs {args.pairs} --rounds {args.rounds}` (load average {load}):"
        f" {searches} searches each way; `tool_search` p50 off {off:.0f} us, on {on:.0f} us ({on / off:.2f}x).",
        "",
        "| part | p50 | share of the off p50 |",
        "|---|---:|---:|",
        *(f"| {name} | {value:.1f} us | {value / off:.1%} |" for name, value in parts),
        f"| all the learned work, searched once (`LearnedRanking.search` less the engine's search; {len(shallow)}"
        f" searches) | {statistics.median(shallow):.1f} us | {statistics.median(shallow) / off:.1%} |",
        f"| all the learned work, searched again deeper ({len(deep)} searches, {share:.0%}) |"
        f" {again:.1f} us | {again / off:.1%} |",
        f"| the engine's first search (inside the stage) | {first:.1f} us | {first / off:.1%} |",
        f"| the engine's second, deeper search | {second:.1f} us | {second / off:.1%} |",
    ]
    text = "\n".join(lines) + "\n"
    args.out.write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main(sys.argv[1:])
