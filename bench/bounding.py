"""Result bounding: recall and result size of `tool_search` per top-band value (``search_top_band``).

    .venv/bin/python bench/bfcl.py          # once: the BFCL catalog and requests
    .venv/bin/python bench/bounding.py      # -> results/bounding.md

Every BFCL tuning request goes through ``ToolScout(catalog, settings).session(...).dispatch_sync(
"tool_search", {"query": ...})`` with default settings except ``search_top_band`` (and, for the
second table, ``search_mode="lexical"``, what a host without an embedding backend runs); then the
packaged sample requests the same way (the band is chosen on these two sets). The band
is the engine's one cut (``search_top_band``), so each band value gets its own `ToolScout` (the
embeddings come from the on-disk cache after the first); the hybrid engine is queried once the
catalog's embeddings are in. R@k is capped recall (gold tools in the top k / min(k, gold
tools)), from `toolscout.search._evaluation`; hits are what one call lists (default limit 5).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from bfcl import load_bfcl

from toolscout import Catalog, ScoutSettings, ToolScout
from toolscout.search._evaluation import recall_at_k

BANDS = (0.0, 0.2, 0.25, 0.3, 0.5)
OUT = Path(__file__).parent / "results" / "bounding.md"
SAMPLE = Path(__file__).resolve().parents[1] / "src" / "toolscout" / "data"


def measure(catalog: Catalog, queries: list[tuple[str, list[str]]], original: dict[str, str], mode: str) -> list[str]:
    engine = "lexical"
    rows = []
    for band in BANDS:
        scout = ToolScout(catalog, settings=ScoutSettings(search_mode=mode, search_top_band=band))
        if not scout.wait_for_embeddings(3600):
            raise RuntimeError("embedding the catalog did not finish")
        engine = scout.search_status().mode
        session = scout.session("bench")
        r1 = r5 = hits = empty = 0.0
        for text, gold in queries:
            content = session.dispatch_sync("tool_search", {"query": text}).content
            assert isinstance(content, dict), content
            own = [scout.renamed.get(str(tool["name"]), str(tool["name"])) for tool in content["tools"]]
            names = [original.get(name, name) for name in own]
            r1 += recall_at_k(names, gold, 1)
            r5 += recall_at_k(names, gold, 5)
            hits += len(names)
            empty += not names
        n = len(queries)
        rows.append(f"| {band:g} | {r1 / n:.3f} | {r5 / n:.3f} | {hits / n:.2f} | {empty / n:.1%} |")
        print(rows[-1], flush=True)
    return [
        f"### search_mode = `{mode}` (engine: {engine})",
        "",
        "| search_top_band | R@1 | R@5 | mean hits returned | answered with nothing |",
        "|---:|---:|---:|---:|---:|",
        *rows,
        "",
    ]


def main() -> None:
    data = load_bfcl()
    catalog = data.catalog
    queries = [(q.query, list(q.gold)) for q in data.queries]
    lines = [
        f"`tool_search` per `search_top_band` on the pooled BFCL catalog ({len(catalog):,} tools), "
        f"{len(queries):,} tuning requests, default settings otherwise (limit 5) "
        "(`.venv/bin/python bench/bfcl.py && .venv/bin/python bench/bounding.py`).",
        "",
    ]
    for mode in ("auto", "lexical"):
        lines += measure(catalog, queries, data.original_name, mode)
    sample = Catalog.from_file(SAMPLE / "sample_catalog.json")
    requests = [json.loads(line) for line in (SAMPLE / "sample_queries.jsonl").read_text().splitlines() if line]
    labelled = [(str(r["query"]), list(r["gold"])) for r in requests if r["gold"]]
    lines += [
        f"## The packaged sample requests ({len(labelled)} with a right tool, {len(sample)} tools)",
        "",
    ]
    for mode in ("auto", "lexical"):
        lines += measure(sample, labelled, {}, mode)
    OUT.write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
