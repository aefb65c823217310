"""Dump what ``tool_search`` answers for every dev-probe request, to check a refactor changes no ranking.

A change to how the search pipeline is assembled (stages, builders, settings mapping) that should
change nothing the model reads is checked by dumping before and after and comparing byte for byte:

    .venv/bin/python bench/pipeline_dump.py --out /tmp/before      # on the old tree
    .venv/bin/python bench/pipeline_dump.py --out /tmp/after       # on the new tree
    diff -r /tmp/before /tmp/after

Each request goes through `ScoutSession.dispatch` (``tool_search``, limit 10), so the dump holds what
the model reads: the tools with their scores and confidences, the total, the hint (abstention says
``NO_FIT``) and the suggestions. One file per search mode (``lexical``, ``hybrid``; hybrid waits for the
catalog's embeddings first). Sets: the packaged sample requests, the multilingual probe, the no-tool
probe, BFCL's tuning categories (``bench/bfcl.py`` fetches them) and the tooldata dev split (40 requests
per source; ``--tooldata``).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

import multilingual
from bfcl import TUNING_CATEGORIES, load_bfcl
from model_compare import ROOT, tooldata_dev

from toolscout import Catalog, ScoutSettings, ToolScout
from toolscout.data import sample_catalog_path, sample_queries_path


def dump_set(catalog: Catalog, queries: Sequence[str], mode: str) -> list[dict[str, object]]:
    scout = ToolScout(catalog, settings=ScoutSettings(search_mode=mode))
    scout.wait_for_embeddings()
    session = scout.session("dump")
    out: list[dict[str, object]] = []
    for query in queries:
        content = session.dispatch_sync("tool_search", {"query": query, "limit": 10}).content
        assert isinstance(content, dict)
        tools = [[t["name"], t.get("score"), t.get("confidence")] for t in content.get("tools", [])]
        out.append(
            {
                "query": query,
                "tools": tools,
                "total": content.get("total"),
                "hint": content.get("hint"),
                "suggestions": content.get("suggestions"),
            }
        )
    scout.close()
    return out


def main(argv: Sequence[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, required=True, help="a folder: one <mode>.json per mode")
    parser.add_argument("--modes", nargs="+", default=["lexical", "hybrid"])
    parser.add_argument("--tooldata", type=Path, default=ROOT.parent / "shared" / "tooldata")
    args = parser.parse_args(argv)
    sample = Catalog.from_file(sample_catalog_path())
    sample_rows = [json.loads(line) for line in sample_queries_path().read_text(encoding="utf-8").splitlines() if line]
    probe_catalog = Catalog([*sample.tools, *Catalog.from_file(multilingual.ZH_CATALOG).tools])
    probe = [json.loads(line) for line in multilingual.PROBE.read_text(encoding="utf-8").splitlines()]
    no_tool = multilingual.DATA / "no_tool_probe.jsonl"
    no_tool_rows = [json.loads(line) for line in no_tool.read_text(encoding="utf-8").splitlines() if line]
    tuning = load_bfcl(TUNING_CATEGORIES)
    sets = {
        "sample": (sample, [r["query"] for r in sample_rows]),
        "multilingual": (probe_catalog, [r["query"] for r in probe]),
        "no-tool": (sample, [r["query"] for r in no_tool_rows]),
        "BFCL tuning": (tuning.catalog, [q.query for q in tuning.queries]),
        **{
            f"tooldata dev/{source}": (data.catalog, data.queries)
            for source, data in tooldata_dev(args.tooldata).items()
        },
    }
    args.out.mkdir(parents=True, exist_ok=True)
    for mode in args.modes:
        dumped = {}
        for name, (catalog, queries) in sets.items():
            dumped[name] = dump_set(catalog, queries, mode)
            print(mode, name, len(queries), file=sys.stderr, flush=True)
        path = args.out / f"{mode}.json"
        path.write_text(json.dumps(dumped, ensure_ascii=False, indent=0, default=int) + "\n", encoding="utf-8")
        print(f"{sum(map(len, dumped.values()))} requests -> {path}", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
