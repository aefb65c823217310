"""Catalog load time at 10,000 tools: every schema checked by jsonschema (before) vs by toolscout now.

The definitions are the pooled BFCL catalog grown to 10,000 tools with namespaced copies (as in
speed.py), as plain dicts, like a ``tools/list`` answer. Both rows load them with
`Catalog.from_definitions`; the "before" row swaps toolscout's schema check for jsonschema's
``check_schema`` on every tool, as toolscout did before. One run, one machine, so the ratio
is what counts. A relist (`ToolScout.set_tools` with a fresh copy of the same definitions)
is timed too, with whether it reused the search index.

    .venv/bin/python bench/catalog_load.py   # -> bench/results/catalog_load.{json,md}
"""

from __future__ import annotations

import json
import os
import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from bfcl import load_bfcl
from jsonschema import Draft202012Validator
from jsonschema.validators import validator_for
from speed import grow

from toolscout import Catalog, ToolScout
from toolscout.catalog import _shapes

RESULTS = Path(__file__).resolve().parent / "results"
SIZE = 10_000
REPEATS = 5


def jsonschema_check(schema: dict[str, object]) -> None:
    validator_for(schema, default=Draft202012Validator).check_schema(schema)


@contextmanager
def schema_check(check: Callable[[dict[str, object]], None]) -> Iterator[None]:
    original = _shapes.check_schema
    _shapes.check_schema = check
    try:
        yield
    finally:
        _shapes.check_schema = original


def load_seconds(text: str, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        definitions = json.loads(text)
        started = time.perf_counter()
        Catalog.from_definitions(definitions)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    catalog = grow(load_bfcl().catalog, SIZE)
    text = json.dumps([tool.to_definition() for tool in catalog])
    distinct = len({json.dumps(tool.parameters, sort_keys=True) for tool in catalog})
    print(f"{SIZE:,} tools, {distinct:,} distinct schemas: loading with jsonschema ...", flush=True)
    with schema_check(jsonschema_check):
        before = load_seconds(text, 1)
    now = load_seconds(text, REPEATS)

    scout = ToolScout(json.loads(text))
    index = scout.index()
    fresh = json.loads(text)
    started = time.perf_counter()
    scout.set_tools(fresh)
    relist = time.perf_counter() - started
    reused = scout.index() is index

    rows = {
        "tools": SIZE,
        "distinct_schemas": distinct,
        "before_jsonschema_s": round(before, 3),
        "now_s": round(now, 3),
        "speedup": round(before / now, 1),
        "relist_s": round(relist, 3),
        "relist_reuses_index": reused,
    }
    meta = {"cpus": os.cpu_count(), "load_average_1_5_15": [round(x, 2) for x in os.getloadavg()]}
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "catalog_load.json").write_text(json.dumps({"meta": meta, "result": rows}, indent=1) + "\n", "utf-8")
    table = "\n".join(
        [
            f"Loading {SIZE:,} tool definitions ({distinct:,} distinct schemas) with `Catalog.from_definitions`,",
            f"one run on one machine ({meta['cpus']} CPUs, load average {meta['load_average_1_5_15'][0]}).",
            "",
            "| schema check | load s |",
            "|---|---:|",
            f"| jsonschema `check_schema` per tool (before) | {before:.2f} |",
            f"| toolscout now (jsonschema_rs, jsonschema's errors) | {now:.2f} |",
            "",
            f"- Load at {SIZE:,} tools: **{before / now:.0f}×** faster than before (target ≤ 1 s: {now:.2f} s).",
            f"- Relist of the unchanged catalog (`ToolScout.set_tools`): {relist:.2f} s; "
            f"search index reused: {'yes' if reused else 'NO'}.",
        ]
    )
    (RESULTS / "catalog_load.md").write_text(table + "\n", encoding="utf-8")
    print(table)


if __name__ == "__main__":
    main()
