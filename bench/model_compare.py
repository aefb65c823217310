"""The packaged embedding model before and after fine-tuning for tool retrieval, side by side in one run.

Models: the plain all-MiniLM-L6-v2 (``embeddings.backend: onnx-minilm``, the default until now) and
toolscout's tool-retrieval model (``onnx``, the default now), both the int8 files toolscout ships,
run by toolscout's ONNX embedder. For each, two engines: the model alone (cosine ranking of the
catalog, `DenseRanker`) and ``tool_search`` of a `ToolScout` with default settings (hybrid, queried
once the embeddings are in). Sets:

- ``tooldata dev``: the tooldata dev split, at most 40 requests per source against at most 300 tools
  of that source (the positives plus a seeded sample; the same set `python -m train select` scores),
  R@k macro-averaged over sources; needs ``--tooldata`` (default ``../shared/tooldata``);
- ``BFCL tuning`` and ``BFCL live`` (held out: never trained or tuned on), the pooled BFCL catalog;
  ``BFCL tuning, held half``: the half of the tuning requests a model trained with ``--bfcl-train``
  never saw (``train/_bfcl.py``), the fair tuning figure for such a model;
- ``sample``: the packaged sample requests against the sample catalog (``toolscout eval sample sample``);
- ``multilingual``: ``bench/multilingual.py``'s probe, hit@5 over its eight non-English languages.

Quality rows are deterministic, so each model's row may come from its own run (``--models``; rows
are merged into the results file). Speed (``--speed``) always runs both models in one process,
interleaved: catalog embedding of the pooled BFCL catalog (~3k tools, no cache) and the p50 of one
query's embedding over the first 300 BFCL tuning requests.

    .venv/bin/python bench/model_compare.py            # both models -> results/model_compare.{json,md}
    .venv/bin/python bench/model_compare.py --speed    # speed only, both models, same run
    .venv/bin/python bench/model_compare.py --models --reranker build/model/cross/model.onnx  # + a cross-encoder

With ``--reranker``, the row is ``tool_search`` with the packaged model and that cross-encoder ordering the top
``--top-n`` hits (no latency budget, so every search is reranked); its "model alone" figures are the packaged
model's.
"""

from __future__ import annotations

import os
import tempfile

# A cold, private embedding cache: catalog embedding is timed, and no earlier run's vectors are reused.
os.environ["TOOLSCOUT_CACHE_DIR"] = tempfile.mkdtemp(prefix="toolscout-model-compare-")

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import multilingual
from bfcl import TUNING_CATEGORIES, load_bfcl
from tune_hybrid import LIVE_CATEGORIES

from toolscout import Catalog, ScoutSettings, ToolScout, ToolSpec
from toolscout.data import sample_catalog_path, sample_queries_path
from toolscout.search._evaluation import summarize
from toolscout.search.embeddings import EmbeddingSettings
from toolscout.search.embeddings._internal import DenseRanker, EmbeddingCache, shared_embedder

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from train._bfcl import request_half  # noqa: E402
from train._data import load_corpus  # noqa: E402
from train._select import dev_set  # noqa: E402

RESULTS = ROOT / "bench" / "results"
MODELS: dict[str, dict[str, str]] = {
    "all-MiniLM-L6-v2 int8 (before)": {"backend": "onnx-minilm"},
    "toolscout-minilm-tools int8 (after)": {"backend": "onnx"},
}
"""Each model's ``embeddings`` settings."""
KS = (1, 5, 10)
SETS = ("BFCL tuning", "BFCL tuning, held half", "BFCL live (held out)", "sample", "multilingual", "tooldata dev")


class Labelled:
    """One catalog with its requests and gold names (`canonical` maps catalog names to scored names)."""

    def __init__(
        self,
        catalog: Catalog,
        queries: Sequence[str],
        golds: Sequence[Sequence[str]],
        canonical: Callable[[list[str]], list[str]] = list,
    ) -> None:
        self.catalog, self.queries, self.golds, self.canonical = catalog, list(queries), list(golds), canonical


def labelled_sets() -> dict[str, Labelled]:
    """BFCL tuning (all, and its held half), BFCL live (held out; pooled catalog), the sample requests with a tool."""
    tuning, live = load_bfcl(TUNING_CATEGORIES), load_bfcl(LIVE_CATEGORIES)
    held = [q for q in tuning.queries if request_half(q.gold) == "held"]
    rows = [json.loads(line) for line in sample_queries_path().read_text(encoding="utf-8").splitlines() if line.strip()]
    rows = [row for row in rows if row["gold"]]
    return {
        "BFCL tuning": Labelled(
            tuning.catalog, [q.query for q in tuning.queries], [q.gold for q in tuning.queries], tuning.canonical
        ),
        "BFCL tuning, held half": Labelled(
            tuning.catalog, [q.query for q in held], [q.gold for q in held], tuning.canonical
        ),
        "BFCL live (held out)": Labelled(
            live.catalog, [q.query for q in live.queries], [q.gold for q in live.queries], live.canonical
        ),
        "sample": Labelled(
            Catalog.from_file(sample_catalog_path()), [r["query"] for r in rows], [r["gold"] for r in rows]
        ),
    }


def dense_rankings(ranker: DenseRanker, queries: Sequence[str]) -> tuple[list[list[str]], list[float]]:
    rankings, latencies = [], []
    for query in queries:
        started = time.perf_counter()
        rankings.append([name for name, _ in ranker.rank(query, limit=10)])
        latencies.append((time.perf_counter() - started) * 1000)
    return rankings, latencies


def tool_search_rankings(
    catalog: Catalog, backend: dict[str, str], queries: Sequence[str], rerank: dict[str, object] | None = None
) -> list[list[str]]:
    settings = ScoutSettings.from_mapping({"embeddings": backend, "search_rerank": rerank or {}}, prefix="toolscout")
    scout = ToolScout(catalog, settings=settings)
    if not scout.wait_for_embeddings(3600):
        raise RuntimeError("embedding the catalog did not finish")
    if scout.search_status().mode != "hybrid":
        raise RuntimeError(f"tool_search runs {scout.search_status()} with {backend}")
    session = scout.session("bench")
    out = []
    for query in queries:
        content = session.dispatch_sync("tool_search", {"query": query, "limit": 10}).content
        assert isinstance(content, dict)
        tools = content.get("tools", [])  # a request tool_search refuses (too long, say) finds nothing
        out.append([scout.renamed.get(str(tool["name"]), str(tool["name"])) for tool in tools])
    return out


def recall(data: Labelled, rankings: list[list[str]]) -> dict[str, float]:
    report = summarize([data.canonical(r) for r in rankings], data.golds, ks=KS)
    return {f"R@{k}": round(report.recall[k], 4) for k in KS}


def tooldata_dev(path: Path) -> dict[str, Labelled]:
    corpus = load_corpus(path)
    out = {}
    for source, (pairs, tool_ids) in dev_set(corpus, per_source=40).items():
        names: dict[str, str] = {}
        specs = []
        for tool_id in tool_ids:
            tool = corpus.tools[tool_id]
            name = tool.name if tool.name not in names.values() else tool_id
            names[tool_id] = name
            specs.append(ToolSpec(name=name, description=tool.description))
        # tool_text of these specs equals the training text except for the parameter names: keep them
        specs = [
            ToolSpec(name=spec.name, description=spec.description, parameters=_parameters(path, tool_id))
            for spec, tool_id in zip(specs, tool_ids, strict=True)
        ]
        golds = [[names[p] for p in pair.positives] for pair in pairs]
        out[source] = Labelled(Catalog(specs), [pair.query for pair in pairs], golds)
    return out


_PARAMETERS: dict[str, dict[str, object]] = {}


def _parameters(path: Path, tool_id: str) -> dict[str, object]:
    if not _PARAMETERS:
        with (path / "tools.jsonl").open(encoding="utf-8") as lines:
            for line in lines:
                row = json.loads(line)
                schema = row.get("parameters")
                _PARAMETERS[row["id"]] = schema if isinstance(schema, dict) and schema else {"type": "object"}
    return _PARAMETERS[tool_id]


def main(argv: Sequence[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tooldata", type=Path, default=ROOT.parent / "shared" / "tooldata")
    parser.add_argument("--models", nargs="*", default=list(MODELS), choices=list(MODELS))
    parser.add_argument(
        "--candidate",
        type=Path,
        help="also score this exported ONNX file (python -m train export), run as given: no dynamic int8 step",
    )
    parser.add_argument(
        "--reranker",
        type=Path,
        help="also score tool_search with this cross-encoder (python -m train cross) reranking the packaged model's "
        "top --top-n hits",
    )
    parser.add_argument("--top-n", type=int, default=10, help="how many top hits the --reranker orders")
    parser.add_argument("--sets", nargs="*", default=list(SETS), choices=list(SETS), help="which sets to run")
    parser.add_argument("--speed", action="store_true", help="measure speed only (both models, one run)")
    args = parser.parse_args(argv)
    models = {label: MODELS[label] for label in args.models}
    if args.candidate is not None:
        models[f"candidate {args.candidate}"] = {"backend": "onnx", "model": str(args.candidate)}
    reranks: dict[str, dict[str, object]] = {}
    if args.reranker is not None:
        label = f"packaged model + cross-encoder {args.reranker} (top {args.top_n})"
        models[label] = MODELS["toolscout-minilm-tools int8 (after)"]
        reranks[label] = {"reranker": "cross-encoder", "model": str(args.reranker), "top_n": args.top_n}
        reranks[label]["budget_ms"] = None
    results = RESULTS / "model_compare.json"
    saved: dict[str, dict[str, object]] = json.loads(results.read_text()) if results.is_file() else {}
    if args.speed:
        saved["speed"] = speed()
        save(saved)
        return

    sets = labelled_sets()
    bfcl_catalog = sets["BFCL tuning"].catalog  # BFCL live is searched in the same pooled catalog
    sets = {name: data for name, data in sets.items() if name in args.sets}
    dev = tooldata_dev(args.tooldata) if "tooldata dev" in args.sets else {}
    probe_catalog = Catalog(
        [*Catalog.from_file(multilingual.SAMPLE_CATALOG).tools, *Catalog.from_file(multilingual.ZH_CATALOG).tools]
    )
    probe = [json.loads(line) for line in multilingual.PROBE.read_text(encoding="utf-8").splitlines()]

    for label, backend in models.items():
        embedder = shared_embedder(EmbeddingSettings(**backend))
        rerank = reranks.get(label)
        row: dict[str, object] = {"backend": backend, "model_id": embedder.model_id} | (
            {"rerank": rerank} if rerank else {}
        )
        saved.setdefault("quality", {})[label] = row  # type: ignore[index]  # saved after each set
        bfcl_ranker = DenseRanker(bfcl_catalog, embedder, cache=EmbeddingCache()) if "BFCL" in str(args.sets) else None
        for name, data in sets.items():
            ranker = (
                bfcl_ranker
                if data.catalog.fingerprint == bfcl_catalog.fingerprint
                else DenseRanker(data.catalog, embedder, cache=EmbeddingCache())
            )
            assert ranker is not None
            rankings, _ = dense_rankings(ranker, data.queries)
            row[f"dense/{name}"] = recall(data, rankings)
            row[f"tool_search/{name}"] = recall(data, tool_search_rankings(data.catalog, backend, data.queries, rerank))
            print(label, name, row[f"dense/{name}"], row[f"tool_search/{name}"], flush=True)
            save(saved)
        if "multilingual" not in args.sets:
            probe = []
        probe_ranker = DenseRanker(probe_catalog, embedder, cache=EmbeddingCache())
        dense_found = {r["id"]: [n for n, _ in probe_ranker.rank(r["query"], limit=10)] for r in probe}
        search_found = dict(
            zip(
                (r["id"] for r in probe),
                tool_search_rankings(probe_catalog, backend, [r["query"] for r in probe], rerank),
                strict=True,
            )
        )
        for engine, found in (("dense", dense_found), ("tool_search", search_found)) if probe else ():
            scores = multilingual.scores(found, probe)
            row[f"{engine}/multilingual"] = {
                group: {"n": s["n"], "hit@1": round(s["hit@1"], 4), "hit@5": round(s["hit@5"], 4)}
                for group, s in scores.items()
                if group.endswith("8 languages")
            }
            print(label, engine, "multilingual", row[f"{engine}/multilingual"], flush=True)
        save(saved)
        for engine in ("dense", "tool_search"):
            per_source = {}
            for source, data in dev.items():
                if engine == "dense":
                    rankings, _ = dense_rankings(
                        DenseRanker(data.catalog, embedder, cache=EmbeddingCache()), data.queries
                    )
                else:
                    rankings = tool_search_rankings(data.catalog, backend, data.queries, rerank)
                per_source[source] = recall(data, rankings)
            if per_source:
                row[f"{engine}/tooldata dev (per source)"] = per_source
                row[f"{engine}/tooldata dev"] = {
                    key: round(statistics.fmean(r[key] for r in per_source.values()), 4)
                    for key in ("R@1", "R@5", "R@10")
                }
                print(label, engine, "dev", row[f"{engine}/tooldata dev"], flush=True)
        save(saved)


def speed(rounds: int = 3) -> dict[str, object]:
    """Catalog embedding (pooled BFCL catalog, no cache) and query p50 for every model, interleaved, one process."""
    from toolscout.search.embeddings._internal import tool_text

    tuning = load_bfcl(TUNING_CATEGORIES)
    texts = [tool_text(tool) for tool in tuning.catalog]
    queries = [q.query for q in tuning.queries[:300]]
    embedders = {label: shared_embedder(EmbeddingSettings(**backend)) for label, backend in MODELS.items()}
    catalog_s: dict[str, list[float]] = {label: [] for label in embedders}
    query_ms: dict[str, list[float]] = {label: [] for label in embedders}
    for embedder in embedders.values():  # warm-up
        embedder.embed_documents(texts[:20])
    for _ in range(rounds):
        for label, embedder in embedders.items():
            for query in queries[:100]:
                started = time.perf_counter()
                embedder.embed_query(query)
                query_ms[label].append((time.perf_counter() - started) * 1000)
    for label, embedder in embedders.items():
        started = time.perf_counter()
        embedder.embed_documents(texts)
        catalog_s[label].append(time.perf_counter() - started)
    before, after = list(embedders)
    out: dict[str, object] = {
        "catalog_tools": len(texts),
        "catalog_embed_s": {label: round(min(v), 2) for label, v in catalog_s.items()},
        "query_p50_ms": {label: round(statistics.median(v), 2) for label, v in query_ms.items()},
    }
    out["catalog_ratio_after_over_before"] = round(min(catalog_s[after]) / min(catalog_s[before]), 3)
    out["query_ratio_after_over_before"] = round(
        statistics.median(query_ms[after]) / statistics.median(query_ms[before]), 3
    )
    return out


def save(saved: dict[str, object]) -> None:
    """Merge this run's rows into the results file (another run may have written other models' rows)."""
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / "model_compare.json"
    merged: dict[str, object] = json.loads(path.read_text()) if path.is_file() else {}
    quality = merged.setdefault("quality", {})
    for label, row in saved.get("quality", {}).items():  # type: ignore[attr-defined]
        quality.setdefault(label, {}).update(row)  # a row may be filled by several runs (--sets)
    if "speed" in saved:
        merged["speed"] = saved["speed"]
    path.write_text(json.dumps(merged, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    text = markdown(quality, merged.get("speed"))  # type: ignore[arg-type]
    (RESULTS / "model_compare.md").write_text(text, encoding="utf-8")


def markdown(rows: dict[str, dict[str, object]], speed_row: dict[str, object] | None) -> str:
    lines = [
        "The packaged model before and after fine-tuning (`bench/model_compare.py`); R@1 / R@5. Quality rows are "
        "deterministic and may come from separate runs (`--models`, `--sets`); speed is always one run.",
        "",
        "| set | engine | " + " | ".join(rows) + " |",
        "|---|---|" + "---:|" * len(rows),
    ]
    keys = list(dict.fromkeys(key for row in rows.values() for key in row))  # every row's sets, first seen first
    for key in keys:
        if "/" not in key or key.endswith("(per source)"):
            continue
        engine, name = key.split("/", 1)
        cells = []
        for row in rows.values():
            value = row.get(key)
            if name == "multilingual" and isinstance(value, dict):
                cells.append(", ".join(f"{g.split('/')[0]} hit@5 {v['hit@5']:.3f}" for g, v in value.items()))
            elif isinstance(value, dict):
                cells.append(f"{value['R@1']:.3f} / {value['R@5']:.3f}")
            else:
                cells.append("")
        lines.append(f"| {name} | {engine} | " + " | ".join(cells) + " |")
    if speed_row:
        labels = list(speed_row["query_p50_ms"])  # type: ignore[call-overload]
        lines += [
            "",
            "Speed, both models in one run (`--speed`):",
            "",
            "| | " + " | ".join(labels) + " | after / before |",
            "|---|" + "---:|" * (len(labels) + 1),
        ]
        for key, ratio, label in (
            (
                "catalog_embed_s",
                "catalog_ratio_after_over_before",
                f"catalog embedding, {speed_row['catalog_tools']} BFCL tools (s)",
            ),
            ("query_p50_ms", "query_ratio_after_over_before", "one query's embedding, p50 (ms)"),
        ):
            values = speed_row[key]
            lines.append(
                f"| {label} | " + " | ".join(str(values[name]) for name in labels) + f" | {speed_row[ratio]} |"
            )  # type: ignore[index]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main(sys.argv[1:])
