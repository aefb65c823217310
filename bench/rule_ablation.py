"""What each hand-written query rule still adds on top of the packaged model: leave one expander out.

The lexical ranking's five query expanders (``search_expanders``: idioms, foreign function words,
translations through the ten-language lexicon, synonym groups, typo corrections) were written before
toolscout shipped a retrieval model. This bench runs ``tool_search`` (a `ToolScout` session, limit 10)
with every expander, with each one left out, and with none, under two engines: ``lexical`` (no
model: the rules are all there is) and ``hybrid`` (the default, with the packaged tool-retrieval
model, embeddings awaited first). Sets (all tuned on before, none held out): the packaged sample
requests, ``bench/multilingual.py``'s probe (eight languages, hit@5) and BFCL's tuning categories.

    .venv/bin/python bench/bfcl.py && .venv/bin/python bench/rule_ablation.py   # -> results/rule_ablation.{json,md}

A rule "pays" when leaving it out costs recall on some set; the query embeddings are cached across
configurations (same model, same text), so the hybrid rows differ only by the rules.
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
import time
from collections.abc import Sequence

import multilingual
from bfcl import TUNING_CATEGORIES, load_bfcl
from model_compare import RESULTS, Labelled, recall

from toolscout import Catalog, ScoutSettings, ToolScout
from toolscout.data import sample_catalog_path, sample_queries_path
from toolscout.search._internal import DEFAULT_EXPANDERS
from toolscout.search.embeddings import EmbeddingSettings
from toolscout.search.embeddings._internal import shared_embedder

ENGINES = ("lexical", "hybrid")


def configurations() -> dict[str, tuple[str, ...]]:
    """Every expander; each one left out; none."""
    out = {"all rules": DEFAULT_EXPANDERS}
    for name in DEFAULT_EXPANDERS:
        out[f"without {name}"] = tuple(e for e in DEFAULT_EXPANDERS if e != name)
    out["no rules"] = ()
    return out


def rankings(catalog: Catalog, engine: str, expanders: tuple[str, ...], queries: Sequence[str]) -> list[list[str]]:
    settings = ScoutSettings(search_mode=engine, search_expanders=expanders)
    scout = ToolScout(catalog, settings=settings)
    if engine == "hybrid" and (not scout.wait_for_embeddings(3600) or scout.search_status().mode != "hybrid"):
        raise RuntimeError(f"tool_search runs {scout.search_status()}")
    session = scout.session("bench")
    out = []
    for query in queries:
        content = session.dispatch_sync("tool_search", {"query": query, "limit": 10}).content
        assert isinstance(content, dict)
        out.append([scout.renamed.get(str(t["name"]), str(t["name"])) for t in content.get("tools", [])])
    return out


def main(argv: Sequence[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--engines", nargs="*", default=list(ENGINES), choices=ENGINES)
    parser.add_argument("--resume", action="store_true", help="keep the rows already in the results file")
    args = parser.parse_args(argv)
    embedder = shared_embedder(EmbeddingSettings(backend="onnx"))
    embedder.embed_query = functools.lru_cache(maxsize=None)(embedder.embed_query)  # type: ignore[method-assign]

    tuning = load_bfcl(TUNING_CATEGORIES)
    sample_rows = [json.loads(line) for line in sample_queries_path().read_text(encoding="utf-8").splitlines() if line]
    sample_rows = [row for row in sample_rows if row["gold"]]
    sets = {
        "sample": Labelled(
            Catalog.from_file(sample_catalog_path()),
            [r["query"] for r in sample_rows],
            [r["gold"] for r in sample_rows],
        ),
        "BFCL tuning": Labelled(
            tuning.catalog, [q.query for q in tuning.queries], [q.gold for q in tuning.queries], tuning.canonical
        ),
    }
    probe_catalog = Catalog(
        [*Catalog.from_file(multilingual.SAMPLE_CATALOG).tools, *Catalog.from_file(multilingual.ZH_CATALOG).tools]
    )
    probe = [json.loads(line) for line in multilingual.PROBE.read_text(encoding="utf-8").splitlines()]

    saved = RESULTS / "rule_ablation.json"
    results: dict[str, dict[str, object]] = json.loads(saved.read_text()) if saved.is_file() and args.resume else {}
    for engine in args.engines:
        for label, expanders in configurations().items():
            if f"{engine} / {label}" in results:
                continue
            started = time.perf_counter()
            row: dict[str, object] = {}
            for name, data in sets.items():
                row[name] = recall(data, rankings(data.catalog, engine, expanders, data.queries))
            found = dict(
                zip(
                    (r["id"] for r in probe),
                    rankings(probe_catalog, engine, expanders, [r["query"] for r in probe]),
                    strict=True,
                )
            )
            row["multilingual"] = {
                group: {"n": s["n"], "hit@1": round(s["hit@1"], 4), "hit@5": round(s["hit@5"], 4)}
                for group, s in multilingual.scores(found, probe).items()
            }
            results[f"{engine} / {label}"] = row
            print(engine, label, f"{time.perf_counter() - started:.0f}s", json.dumps(row)[:300], flush=True)
            RESULTS.mkdir(exist_ok=True)
            saved.write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n")
            (RESULTS / "rule_ablation.md").write_text(markdown(results))
    print(markdown(results))


def markdown(results: dict[str, dict[str, object]]) -> str:
    lines = [
        "Leave one query rule out (`bench/rule_ablation.py`): `tool_search`, R@1 / R@5, multilingual hit@5.",
        "",
        "| engine / rules | sample | BFCL tuning | multilingual translated (8 languages) | multilingual zh-catalog |",
        "|---|---:|---:|---:|---:|",
    ]
    for label, row in results.items():
        cells = []
        for name in ("sample", "BFCL tuning"):
            r = row[name]
            assert isinstance(r, dict)
            cells.append(f"{r['R@1']:.3f} / {r['R@5']:.3f}")
        groups = row["multilingual"]
        assert isinstance(groups, dict)
        cells.extend(f"{groups[group]['hit@5']:.3f}" for group in ("translated/8 languages", "zh-catalog/8 languages"))
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main(sys.argv[1:])
