"""Abstention on small catalogs: how often `tool_search` empties a result that holds the right tool.

    .venv/bin/python bench/bfcl.py                     # once: the BFCL catalog and requests
    .venv/bin/python bench/abstention.py [--mode lexical|hybrid]   # -> results/abstention_MODE.md

For each BFCL tuning request and each catalog size 1-10, a catalog of that many tools is drawn
from the pooled BFCL catalog (seeded): once with the request's gold tool in it ("relevant") and
once without any of its gold tools ("irrelevant"). Every request goes through `tool_search` of a
`ToolScout` session with deferral on, as a model would send it. Reported: the share of relevant
requests answered with no hit at all (target: at most 2 %), the share whose hits miss the gold
tool, and the share of irrelevant requests answered with no hit (higher is better: nothing
unrelated offered).
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from bfcl import load_bfcl

from toolscout import Catalog, ScoutSettings, ToolScout

SIZES = range(1, 11)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mode", choices=("lexical", "hybrid"), default="lexical")
    parser.add_argument("--queries", type=int, default=200, help="requests drawn from the tuning set")
    args = parser.parse_args()
    data = load_bfcl()
    # BFCL has a function named tool_search, a bridge tool's name: ToolScout renames it tool_search_2
    # (ToolScout.renamed); hits are scored under the catalog's own names.
    tools = list(data.catalog)
    by_original: dict[str, list[str]] = {}
    for tool in tools:
        by_original.setdefault(data.original_name.get(tool.name, tool.name), []).append(tool.name)
    rng = random.Random(7)
    names = {tool.name for tool in tools}
    usable = [q for q in data.queries if any(name in names for o in q.gold for name in by_original.get(o, [o]))]
    queries = rng.sample(usable, min(args.queries, len(usable)))
    settings = ScoutSettings(mode="on", search_mode=args.mode)
    counts = {size: {"relevant": 0, "emptied": 0, "missed": 0, "irrelevant": 0, "silent": 0} for size in SIZES}
    scout = ToolScout((), settings=settings)
    for query in queries:
        gold_names = {name for original in query.gold for name in by_original.get(original, [original])}
        others = [tool for tool in tools if tool.name not in gold_names]
        gold_tool = next(tool for tool in tools if tool.name in gold_names)  # present: `usable` ensures it
        for size in SIZES:
            picked = rng.sample(others, size)
            for relevant in (True, False):
                catalog = Catalog([gold_tool, *picked[: size - 1]] if relevant else picked)
                scout.set_tools(catalog)
                if args.mode == "hybrid":
                    scout.wait_for_embeddings(600)
                outcome = scout.session("bench").dispatch_sync("tool_search", {"query": query.query})
                content = outcome.content
                assert isinstance(content, dict), outcome
                hits = [scout.renamed.get(str(tool["name"]), str(tool["name"])) for tool in content["tools"]]
                row = counts[size]
                if relevant:
                    row["relevant"] += 1
                    row["emptied"] += not hits
                    row["missed"] += bool(hits) and gold_tool.name not in hits
                else:
                    row["irrelevant"] += 1
                    row["silent"] += not hits
    lines = [
        f"`tool_search` ({args.mode}) on catalogs of 1-10 BFCL tools, {len(queries)} tuning requests per size "
        f"(`.venv/bin/python bench/abstention.py --mode {args.mode}`):",
        "",
        "| tools | relevant emptied | relevant, gold missing from hits | irrelevant answered with nothing |",
        "|---:|---:|---:|---:|",
    ]
    total = {key: sum(row[key] for row in counts.values()) for key in counts[1]}
    for size, row in [*counts.items(), ("all", total)]:
        lines.append(
            f"| {size} | {row['emptied'] / row['relevant']:.1%} | {row['missed'] / row['relevant']:.1%} "
            f"| {row['silent'] / row['irrelevant']:.1%} |"
        )
    text = "\n".join(lines) + "\n"
    out = Path(__file__).parent / "results" / f"abstention_{args.mode}.md"
    out.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
