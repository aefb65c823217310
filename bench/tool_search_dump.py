"""Dump the text the model reads for every ``tool_search`` of the bench sets, to check a change writes the same bytes.

For a change to how dispatch builds or writes ``tool_search``'s answer that must change nothing the model reads:

    .venv/bin/python bench/tool_search_dump.py --out /tmp/after                     # this tree
    /work/main/.venv/bin/python bench/tool_search_dump.py --out /tmp/before         # another checkout's toolscout
    diff -r /tmp/before /tmp/after

Each request goes through `ScoutSession.resolve` (``tool_search``, lexical) and its answer is written as the model
reads it (`tool_search_cost.text`: `ToolOutcome.to_text` of the outcome ``dispatch`` makes), one line per request.
Sets: BFCL's first 600 tuning requests over the pooled catalog, the packaged sample requests, and
``bench/data``'s everyday, no-tool and multilingual probes. Each set is asked under four settings, one session
each, in order: bridge style with the default limit, bridge style with limit 10, bridge style with the first
tenth of the tools core (listed hits), and reveal style with limit 10 (discoveries pile up, so later answers
list earlier reveals, and answers past ``search_max_reveal`` hold tools back).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

import multilingual
from bfcl import load_bfcl
from tool_search_cost import text

from toolscout import Catalog, ScoutSettings, ToolScout
from toolscout.data import sample_catalog_path, sample_queries_path

DATA = Path(__file__).resolve().parent / "data"


def _rows(path: Path) -> list[str]:
    return [json.loads(line)["query"] for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def dump(catalog: Catalog, queries: Sequence[str]) -> dict[str, list[str]]:
    """The answers' texts to `queries` under each setting."""
    core = [tool.name for tool in catalog][:: max(len(catalog) // 10, 1)] if len(catalog) >= 10 else []
    variants: dict[str, tuple[ScoutSettings, list[str], dict[str, object]]] = {
        "bridge": (ScoutSettings(search_mode="lexical"), [], {}),
        "bridge-limit10": (ScoutSettings(search_mode="lexical"), [], {"limit": 10}),
        "bridge-core": (ScoutSettings(search_mode="lexical"), core, {"limit": 10}),
        "reveal-limit10": (ScoutSettings(search_mode="lexical", style="reveal"), [], {"limit": 10}),
    }
    out: dict[str, list[str]] = {}
    for name, (settings, core_names, extra) in variants.items():
        scout = ToolScout(catalog, settings=settings, core=core_names)
        session = scout.session(name)
        out[name] = [text(session.resolve("tool_search", {"query": query, **extra})) for query in queries]
        scout.close()
    return out


def main(argv: Sequence[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, required=True, help="a folder: one <set>-<setting>.txt per set and setting")
    args = parser.parse_args(argv)
    sample = Catalog.from_file(sample_catalog_path())
    bfcl = load_bfcl()
    sets = {
        "bfcl600": (bfcl.catalog, [query.query for query in bfcl.queries[:600]]),
        "sample": (sample, _rows(sample_queries_path())),
        "everyday": (Catalog.from_file(DATA / "everyday_catalog.json"), _rows(DATA / "everyday_probe.jsonl")),
        "no-tool": (sample, _rows(DATA / "no_tool_probe.jsonl")),
        "multilingual": (
            Catalog([*sample.tools, *Catalog.from_file(multilingual.ZH_CATALOG).tools]),
            _rows(multilingual.PROBE),
        ),
    }
    args.out.mkdir(parents=True, exist_ok=True)
    for name, (catalog, queries) in sets.items():
        for setting, texts in dump(catalog, queries).items():
            (args.out / f"{name}-{setting}.txt").write_text("\n".join(texts) + "\n", encoding="utf-8")
        print(name, len(queries), file=sys.stderr, flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
