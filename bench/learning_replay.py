"""Learning from use, replayed (issue 40): each set's seeded history share fed as use, the rest measured off and on.

For every set and engine (lexical, hybrid) `toolscout.cli._replay.replay` (what ``toolscout eval --history``
runs) feeds the first share of the shuffled requests through the recording path (``tool_search`` in a session of
its own, then the gold tool's successful call), then searches the rest in fresh sessions with learning off and
on, split into "seen" (a gold tool appeared in the history) and "never" (none did). Sets:

- BFCL tuning (pooled catalog; the stage's parameters are chosen here and on the tooldata dev split);
- BFCL live (held out: measured, never chosen on; a hit is a tool with the gold's original BFCL name);
- the tooldata dev split (per source against its own tools, pooled weighted by requests; ``--per-source``), or
  ``tooldata dev by source``: one row per source;
- the packaged sample requests (those with a tool).

Usage: ``python bench/learning_replay.py [--history 0.5] [--seed 0] [--modes lexical,hybrid] [--sets ...]``;
writes ``bench/results/learning_replay.md`` (``--out``). The stage's weights are fitted by
``bench/learning_fit.py`` (on BFCL tuning and the tooldata dev split only).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from bfcl import TUNING_CATEGORIES, load_bfcl
from tune_hybrid import LIVE_CATEGORIES

from toolscout import Catalog, ScoutSettings, ToolScout, ToolSpec
from toolscout._settings import LearningSettings
from toolscout.cli._replay import REPLAY_SCOPE, feed_history, replay
from toolscout.data import sample_catalog_path, sample_queries_path
from toolscout.search._internal import LabelledQuery

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from train._data import load_corpus  # noqa: E402
from train._select import dev_set  # noqa: E402

Set = list[tuple[Catalog, list[LabelledQuery], dict[str, str]]]
"""One or more (catalog, requests, catalog name -> scored name) groups, replayed apart and pooled."""
SPLITS = ("seen", "never", "all")
DEFAULT_SETS = "BFCL tuning,BFCL live (held out),tooldata dev,sample"


def bfcl(categories: Sequence[str]) -> Set:
    data = load_bfcl(categories)
    queries = [LabelledQuery(id=q.id, query=q.query, gold=tuple(q.gold)) for q in data.queries]
    return [(data.catalog, queries, data.original_name)]


def sample() -> Set:
    rows = [json.loads(line) for line in sample_queries_path().read_text(encoding="utf-8").splitlines() if line]
    queries = [LabelledQuery(id=i, query=r["query"], gold=tuple(r["gold"])) for i, r in enumerate(rows) if r["gold"]]
    return [(Catalog.from_file(sample_catalog_path()), queries, {})]


def tooldata(path: Path, per_source: int) -> Set:
    return [group for groups in tooldata_by_source(path, per_source).values() for group in groups]


def tooldata_by_source(path: Path, per_source: int) -> dict[str, Set]:
    """The tooldata dev split, one set per source (its requests against its own tools)."""
    corpus = load_corpus(path)
    groups: dict[str, Set] = {}
    for source, (pairs, tool_ids) in dev_set(corpus, per_source=per_source).items():
        names: dict[str, str] = {}
        for tool_id in tool_ids:
            name = corpus.tools[tool_id].name
            names[tool_id] = name if name not in names.values() else tool_id
        catalog = Catalog([ToolSpec(name=names[t], description=corpus.tools[t].description) for t in tool_ids])
        queries = [
            LabelledQuery(id=n, query=p.query, gold=tuple(names[t] for t in p.positives)) for n, p in enumerate(pairs)
        ]
        groups[source] = [(catalog, queries, {})]
    return groups


def under(namespace: str, catalog: Catalog, aliases: dict[str, str]) -> tuple[Catalog, dict[str, str]]:
    """`catalog` named as a gateway names an upstream's tools (``namespace__name``), and the aliases back."""
    tools = [
        ToolSpec(
            name=f"{namespace}__{tool.name}",
            description=tool.description,
            parameters=tool.parameters,
            title=tool.title,
            annotations=tool.annotations,
            meta=tool.meta,
        )
        for tool in catalog
    ]
    return Catalog(tools), {f"{namespace}__{tool.name}": aliases.get(tool.name, tool.name) for tool in catalog}


def learned_scout(
    catalog: Catalog, past: Sequence[LabelledQuery], aliases: dict[str, str], *, mode: str
) -> tuple[ToolScout, LearningSettings]:
    """A bridge scout of `catalog` learning in memory (`REPLAY_SCOPE`), embeddings ready, `past` fed as use.

    Returns the scout and its learning settings (for a `LearnedRanking` over ``scout.usage.store``).
    """
    learning = LearningSettings(enabled=True, store="memory", scope=REPLAY_SCOPE)
    scout = ToolScout(catalog, settings=ScoutSettings(search_mode=mode, learning=learning, mode="on", style="bridge"))
    scout.wait_for_embeddings()
    feed_history(scout, past, aliases)
    assert scout.usage is not None
    return scout, learning


def measure(
    groups: Set,
    *,
    mode: str,
    learning: LearningSettings,
    history: float,
    seed: int,
    most: int | None = None,
    namespace: str | None = None,
) -> dict[str, object]:
    """Pooled (weighted by requests) R@1/R@5 per split and state, and the history size (`most`: each group's first
    requests only; `namespace`: every tool renamed ``namespace__name``, as a gateway names one upstream's tools)."""
    sums: dict[tuple[str, str], list[float]] = {}
    fed = 0
    settings = ScoutSettings(search_mode=mode, learning=learning)
    for catalog, queries, aliases in groups:
        if namespace:
            catalog, aliases = under(namespace, catalog, aliases)
        found = replay(
            catalog,
            list(queries)[:most] if most else queries,
            settings=settings,
            history=history,
            seed=seed,
            ks=(1, 5),
            mode=mode,
            aliases=aliases,
        )
        fed += found.history
        for key, report in found.reports.items():
            n, r1, r5 = sums.setdefault(key, [0.0, 0.0, 0.0])
            sums[key] = [n + report.n, r1 + report.n * report.recall[1], r5 + report.n * report.recall[5]]
    rows = {
        f"{split}/{state}": {"n": int(n), "r1": r1 / n, "r5": r5 / n}
        for (split, state), (n, r1, r5) in sums.items()
        if n
    }
    return {"history": fed, **rows}


def markdown(results: dict[str, dict[str, dict[str, object]]], args: argparse.Namespace, took: float) -> str:
    most = (f" --most {args.most}" if args.most else "") + (f" --namespace {args.namespace}" if args.namespace else "")
    most += f' --sets "{args.asked}"' if args.asked != DEFAULT_SETS else ""
    lines = [
        "# Learning from use, replayed (issue 40)",
        "",
        f"`python bench/learning_replay.py --history {args.history} --seed {args.seed}{most}` ({took:.0f} s): each"
        f" set's requests shuffled (seed {args.seed}), the first {args.history:.0%} fed as use (`tool_search` in a"
        " session of its own, then the gold tool's successful call recorded), the rest searched in fresh sessions with"
        " learning off and on. *seen*: a gold tool of the request appeared in the history; *never*: none did."
        f" Stage: the shipped learned weights (`learning/ranking.json`), min_similarity {args.min_similarity},"
        " min_sessions 1. Fitted only on BFCL tuning and the tooldata dev split; BFCL live is held out.",
        "",
        *table(results),
    ]
    return "\n".join(lines) + "\n"


def table(results: dict[str, dict[str, dict[str, object]]]) -> list[str]:
    """The markdown table of a replay's results: per set, engine and split, R@1 and R@5 off and on."""
    lines = [
        "| set | engine | split | n | R@1 off | R@1 on | Δ R@1 | R@5 off | R@5 on | Δ R@5 |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, modes in results.items():
        for mode, found in modes.items():
            for split in SPLITS:
                off, on = found.get(f"{split}/off"), found.get(f"{split}/on")
                if not isinstance(off, dict) or not isinstance(on, dict):
                    continue
                lines.append(
                    f"| {name} | {mode} | {split} | {off['n']} | {off['r1']:.3f} | {on['r1']:.3f} |"
                    f" {on['r1'] - off['r1']:+.3f} | {off['r5']:.3f} | {on['r5']:.3f} | {on['r5'] - off['r5']:+.3f} |"
                )
    return lines


def main(argv: Sequence[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--history", type=float, default=0.5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--modes", default="lexical,hybrid")
    parser.add_argument("--sets", default=DEFAULT_SETS)
    parser.add_argument("--most", type=int, default=None, help="Keep each set's (tooldata group's) first N requests.")
    parser.add_argument("--namespace", help="Rename every tool NAMESPACE__name, as a gateway names an upstream's.")
    parser.add_argument("--tooldata", type=Path, default=ROOT.parent.parent / "shared" / "tooldata")
    parser.add_argument("--per-source", type=int, default=200)
    parser.add_argument("--min-similarity", type=float, default=LearningSettings().min_similarity)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "learning_replay.md")
    args = parser.parse_args(argv)
    args.asked = args.sets
    if not args.tooldata.exists():
        args.tooldata = Path("/work/shared/tooldata")
    loaders = {
        "BFCL tuning": lambda: bfcl(TUNING_CATEGORIES),
        "BFCL live (held out)": lambda: bfcl(LIVE_CATEGORIES),
        "tooldata dev": lambda: tooldata(args.tooldata, args.per_source),
        "sample": sample,
    }
    if "tooldata dev by source" in args.sets.split(","):  # one row per source: where learning helps, where it cannot
        for source, groups in tooldata_by_source(args.tooldata, args.per_source).items():
            loaders[f"tooldata dev: {source}"] = lambda groups=groups: groups
        by_source = ",".join(name for name in loaders if name.startswith("tooldata dev: "))
        args.sets = args.sets.replace("tooldata dev by source", by_source)
    learning = LearningSettings(min_similarity=args.min_similarity)
    started = time.perf_counter()
    results: dict[str, dict[str, dict[str, object]]] = {}
    for name in args.sets.split(","):
        groups = loaders[name]()
        for mode in args.modes.split(","):
            found = measure(
                groups,
                mode=mode,
                learning=learning,
                history=args.history,
                seed=args.seed,
                most=args.most,
                namespace=args.namespace,
            )
            results.setdefault(name, {})[mode] = found
            print(name, mode, json.dumps(found), flush=True)
    text = markdown(results, args, time.perf_counter() - started)
    if args.out.name != "-":
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main(sys.argv[1:])
