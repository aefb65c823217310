"""Checkpoint selection: dense retrieval on the tooldata dev split and BFCL's tuning categories.

Each checkpoint (and the base model, as the reference) embeds the tools and requests with
sentence-transformers (fp32); the dev split is scored per source against that source's tools (at
most `_DEV_TOOLS` of them: the dev positives plus a seeded sample of the rest) and macro-averaged
over sources; BFCL's tuning categories are scored on the pooled BFCL catalog as ``bench/`` does.
The checkpoint with the best mean of dev R@1, dev R@5, BFCL R@1 and BFCL R@5 is selected. BFCL's
live and multi-turn categories are never read here.
"""

from __future__ import annotations

import dataclasses
import json
import random
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

from toolscout.search._evaluation import summarize
from toolscout.search.embeddings._internal import tool_text

from ._bfcl import load_tuning, request_half
from ._data import Corpus, Pair, load_corpus
from ._fit import load_model

__all__ = ["DevSet", "dev_set", "evaluate", "select"]

_DEV_TOOLS = 300

Embed = Callable[[Sequence[str]], npt.NDArray[np.float32]]
DevSet = dict[str, tuple[list[Pair], list[str]]]


def dev_set(corpus: Corpus, *, per_source: int, seed: int = 0) -> DevSet:
    """Per source: up to `per_source` dev pairs and the tool ids they are ranked against."""
    rng = random.Random(seed)
    pairs_by_source: dict[str, list[Pair]] = defaultdict(list)
    for pair in corpus.dev:
        pairs_by_source[pair.source].append(pair)
    tools_by_source: dict[str, list[str]] = defaultdict(list)
    for tool in corpus.tools.values():
        tools_by_source[tool.source].append(tool.id)
    out: DevSet = {}
    for source in sorted(pairs_by_source):
        pairs = pairs_by_source[source]
        picked = rng.sample(pairs, min(per_source, len(pairs)))
        pool = tools_by_source[corpus.catalog_source(picked[0])]
        needed = {tool_id for pair in picked for tool_id in pair.positives}
        rest = [tool_id for tool_id in pool if tool_id not in needed]
        extra = rng.sample(rest, max(0, min(len(rest), _DEV_TOOLS - len(needed))))
        out[source] = (picked, sorted(needed) + extra)
    return out


def _rank(embed: Embed, queries: Sequence[str], texts: Sequence[str], names: Sequence[str]) -> list[list[str]]:
    scores = embed(queries) @ embed(texts).T
    top = np.argsort(-scores, axis=1)[:, :10]
    return [[names[i] for i in row] for row in top]


def evaluate(embed: Embed, corpus: Corpus, dev: DevSet, bfcl: object | None) -> dict[str, float]:
    """Dense R@1/R@5 per dev source, macro-averaged, and on BFCL tuning (when `bfcl` is loaded)."""
    row: dict[str, float] = {}
    r1: list[float] = []
    r5: list[float] = []
    for source, (pairs, tool_ids) in dev.items():
        texts = [corpus.tools[tool_id].text for tool_id in tool_ids]
        ranked = _rank(embed, [pair.query for pair in pairs], texts, tool_ids)
        report = summarize(ranked, [list(pair.positives) for pair in pairs], ks=(1, 5, 10))
        row[f"dev/{source}/R@1"] = round(report.recall[1], 4)
        row[f"dev/{source}/R@5"] = round(report.recall[5], 4)
        r1.append(report.recall[1])
        r5.append(report.recall[5])
    row["dev R@1"] = round(float(np.mean(r1)), 4)
    row["dev R@5"] = round(float(np.mean(r5)), 4)
    if bfcl is not None:
        tools = list(bfcl.catalog)  # type: ignore[attr-defined]
        ranked = _rank(
            embed,
            [query.query for query in bfcl.queries],  # type: ignore[attr-defined]
            [tool_text(tool) for tool in tools],
            [tool.name for tool in tools],
        )
        report = summarize(
            [bfcl.canonical(r) for r in ranked],  # type: ignore[attr-defined]
            [query.gold for query in bfcl.queries],  # type: ignore[attr-defined]
            ks=(1, 5, 10),
        )
        row["bfcl_tuning R@1"] = round(report.recall[1], 4)
        row["bfcl_tuning R@5"] = round(report.recall[5], 4)
    keys = [key for key in ("dev R@1", "dev R@5", "bfcl_tuning R@1", "bfcl_tuning R@5") if key in row]
    row["score"] = round(float(np.mean([row[key] for key in keys])), 4)
    return row


def load_bfcl_tuning() -> object | None:
    """BFCL's tuning categories (``bench/bfcl.py``), or None when the benchmark data cannot be had."""
    try:
        data: object = load_tuning()
        return data
    except Exception as exc:  # no network, no wheel: select on the dev split alone
        print(f"BFCL tuning unavailable ({exc}); selecting on the dev split alone", flush=True)
        return None


def select(
    data: Path,
    out: Path,
    *,
    per_source: int,
    last: int,
    base: bool,
    bfcl: bool = True,
    bfcl_held_only: bool = False,
    log: Callable[[str], None] = print,
) -> Path:
    """Score the `last` checkpoints under `out` (and the base model when `base`); writes ``selection.json``.

    With `bfcl_held_only` (a run that trained on BFCL's tuning requests), BFCL is scored on the held half.

    A warm-started run's starting model (``out/init``) is scored too, as a reference that is never selected.

    Returns the best checkpoint's directory.
    """
    corpus = load_corpus(data)
    dev = dev_set(corpus, per_source=per_source)
    tuning = load_bfcl_tuning() if bfcl else None
    if tuning is not None and bfcl_held_only:
        held = [query for query in tuning.queries if request_half(query.gold) == "held"]  # type: ignore[attr-defined]
        tuning = dataclasses.replace(tuning, queries=held)  # type: ignore[type-var]
    results_file = out / "selection.json"
    results: dict[str, dict[str, float]] = {}
    if results_file.is_file():
        results = json.loads(results_file.read_text())["rows"]
    checkpoints = sorted(p.name for p in (out / "checkpoints").glob("step-*") if p.is_dir())
    references = (["base"] if base else []) + (["init"] if (out / "init").is_dir() else [])
    for name in references + checkpoints[-last:]:
        if name in results:
            continue
        path = {"base": None, "init": out / "init"}.get(name, out / "checkpoints" / name)
        model = load_model(path, max_seq_length=256)

        def embed(texts: Sequence[str]) -> npt.NDArray[np.float32]:
            return model.encode(list(texts), batch_size=64, normalize_embeddings=True, convert_to_numpy=True)  # noqa: B023

        results[name] = evaluate(embed, corpus, dev, tuning)
        log(f"{name}: {json.dumps({k: v for k, v in results[name].items() if '/' not in k})}")
        results_file.write_text(json.dumps({"rows": results}, indent=1) + "\n")
    trained = [name for name in results if name not in ("base", "init")]
    best = max(trained, key=lambda name: results[name]["score"])
    results_file.write_text(json.dumps({"rows": results, "selected": best}, indent=1) + "\n")
    reference = "".join(f"; {name} {results[name]['score']}" for name in ("base", "init") if name in results)
    log(f"selected {best} (score {results[best]['score']}{reference})")
    return out / "checkpoints" / best
