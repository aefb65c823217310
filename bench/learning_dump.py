"""Dump what learned searches answer, at a fixed clock, to check that a change to the learned stage changes no ranking.

A speed change to ``learning/`` (the `learned` stage's evidence, features, scores) that must change nothing the
model reads is checked by dumping before and after and comparing byte for byte, with the hash seed fixed (the
order of a set of query terms follows it, and so does the order the term cosines are summed in: two runs of the
same tree with different seeds differ in the last bits of some confidences):

    PYTHONHASHSEED=0 PYTHONPATH=/tmp/old/src .venv/bin/python bench/learning_dump.py --out /tmp/before
    PYTHONHASHSEED=0 .venv/bin/python bench/learning_dump.py --out /tmp/after
    diff -r /tmp/before /tmp/after

(``git archive HEAD src | tar -x -C /tmp/old`` puts the old tree there.) Pairs: seeded random requests of BFCL tuning
and the sample requests (some reworded), random tools of the sample catalog (some not in it), sessions, times,
``first`` and ``missed`` flags; one use (`USE`). Each search runs through the whole search pipeline
(`ToolScout.searcher`) inside `learned_search` with a `LearnedRanking` whose clock is fixed, over a store whose pairs
outlive the dump (the store ages pairs out by the real clock: with its default 90 days, one of the history's pairs
left it about every 48 minutes, and dumps made on either side of that moment differed). One file per mode:
``lexical`` (``min_sessions`` 1-3, ``min_similarity`` 0.75 and 0.3, three ``allowed`` sets, limits 1, 5 and 10)
and ``hybrid`` (fewer pairs; waits for the catalog's and the past requests' embeddings first). Each file holds
every search's hits (name, score, confidence, learned), total, abstention and suggestions, and each request's
`Evidence` per tool.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from learning_cost import BOUNDS, SCOPE, requests

from toolscout import Catalog, ScoutSettings, ToolScout
from toolscout._settings import LearningSettings
from toolscout.data import sample_catalog_path, sample_queries_path
from toolscout.learning import UsagePair
from toolscout.learning._internal import LearnedRanking, SqliteUsageStore, learned_search
from toolscout.search._internal import HybridIndex

NOW = 1_800_000_000.0
"""The clock of every ranking (seconds since the epoch)."""
KEPT = dataclasses.replace(BOUNDS, ttl_s=20 * 365 * 86_400.0)
"""The store's bounds: no pair of the history ages out by the real clock before 2047."""


def history(catalog: Catalog, count: int, texts: Sequence[str], sessions: int) -> list[UsagePair]:
    """`count` seeded pairs over `texts` (a tenth reworded), 70 % for the catalog's first 40 tools, and one use."""
    rng = random.Random(1)
    names = [tool.name for tool in catalog]
    pairs = [
        UsagePair(
            scope=SCOPE,
            request=rng.choice(texts) + (" please" if rng.random() < 0.1 else ""),
            tool=rng.choice(names[:40]) if rng.random() < 0.7 else "not_in_catalog",
            session=f"s{rng.randrange(sessions)}",
            at=NOW - rng.random() * 200 * 86_400,
            missed=rng.random() < 0.3,
            first=rng.random() < 0.3,
        )
        for _ in range(count)
    ]
    return [*pairs, UsagePair(scope=SCOPE, request="__use__", tool=names[0], session="s1", at=NOW)]


def dump(mode: str) -> list[object]:
    """Every search's answer and every request's evidence in `mode` (module docstring)."""
    lexical = mode == "lexical"
    settings = ScoutSettings(mode="on", style="bridge", search_mode=mode, learning=LearningSettings(enabled=True))
    scout = ToolScout(Catalog.from_file(sample_catalog_path()), settings=settings)
    scout.wait_for_embeddings()
    catalog = scout.catalog
    names = [tool.name for tool in catalog]
    texts = requests(3000 if lexical else 600)
    sample = [json.loads(line)["query"] for line in sample_queries_path().open() if line.strip()]
    queries = sample + (texts[:300:3] + ["zzz qqq", "", "get"] if lexical else texts[:200:4])
    index = scout.index()
    dense = index.dense if isinstance(index, HybridIndex) else None
    searcher = scout.searcher()
    allowed_sets = (None, frozenset(names[:20]), frozenset(names[::2])) if lexical else (None, frozenset(names[::2]))
    configs = [(k, s) for k in (1, 2, 3) for s in (0.75, 0.3)] if lexical else [(1, 0.75), (2, 0.75)]
    out: list[object] = []
    with tempfile.TemporaryDirectory() as folder:
        store = SqliteUsageStore(Path(folder) / "usage.db", KEPT)
        store.record(history(catalog, 6000 if lexical else 1500, texts, 300 if lexical else 100))
        for min_sessions, min_similarity in configs:
            learning = LearningSettings(min_sessions=min_sessions, min_similarity=min_similarity)
            ranking = LearnedRanking(store, learning, clock=lambda: NOW)
            ranking.evidence(SCOPE, "warm", queries[0], None, dense)
            ranking.wait_for_vectors()
            for number, query in enumerate(queries):
                session = f"s{number % 100}"
                for allowed in allowed_sets:
                    shown = sorted(allowed) if allowed is not None else None
                    found = ranking.evidence(SCOPE, session, query, allowed, dense)
                    evidence = {t: [v.lexical, v.dense, v.votes, v.first, v.missed] for t, v in sorted(found.items())}
                    out.append(["evidence", min_sessions, query, shown, evidence])
                    if not query.strip():
                        continue
                    for limit in (1, 5, 10) if lexical else (5,):
                        with learned_search(ranking, scope=SCOPE, session=session, dense=dense):
                            result = searcher.search(query, limit=limit, mode=scout.search_mode, allowed=allowed)
                        hits = [[hit.name, hit.score, hit.confidence, hit.learned] for hit in result.hits]
                        answer = [result.total, result.abstained, list(result.suggestions)]
                        out.append(["search", min_sessions, min_similarity, query, shown, limit, hits, *answer])
    scout.close()
    return out


def main(argv: Sequence[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, required=True, help="a folder: one <mode>.json per mode")
    parser.add_argument("--modes", nargs="+", default=["lexical", "hybrid"])
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for mode in args.modes:
        found = dump(mode)
        (args.out / f"{mode}.json").write_text(json.dumps(found) + "\n", encoding="utf-8")
        searches = [entry for entry in found if isinstance(entry, list) and entry[0] == "search"]
        learned = sum(1 for entry in searches if any(hit[3] for hit in entry[6]))
        print(f"{mode}: {len(searches)} searches, {learned} learned")


if __name__ == "__main__":
    main(sys.argv[1:])
