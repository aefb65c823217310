"""How much of BFCL's R@1 miss is a near-duplicate of the gold tool ranked first (pooled catalog, hybrid defaults).

BFCL pools every category's functions into one catalog, so one task has several tools (``gcd``, ``math.gcd``,
``math_gcd``, ``calculate_gcd``) and a request is labelled with the one it came with. For each request whose top hit
(what ``tool_search`` searches, `build_searcher`: hybrid, default settings, the packaged model) is not a gold tool,
this takes the cosine between that hit's text and the nearest gold tool's text under the packaged model, and reports
R@1 as it would read if a top hit within each cosine of a gold tool counted as right. Nothing is tuned here.

    .venv/bin/python bench/near_duplicates.py   # -> results/near_duplicates.md
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from bfcl import TUNING_CATEGORIES, BfclData, load_bfcl
from tune_hybrid import LIVE_CATEGORIES

from toolscout import ScoutSettings
from toolscout.search import build_searcher
from toolscout.search.embeddings import EmbeddingSettings
from toolscout.search.embeddings._internal import EmbeddingCache, shared_embedder, tool_text

SETTINGS = ScoutSettings(search_mode="hybrid", embeddings=EmbeddingSettings(backend="onnx"))

RESULTS = Path(__file__).resolve().parent / "results"
CUTS = (0.95, 0.9, 0.85)


def main(argv: Sequence[str]) -> None:
    embedder = shared_embedder(SETTINGS.embeddings)  # the one `build_searcher` embeds with
    lines = [
        f"BFCL R@1 on the pooled catalog, hybrid defaults ({embedder.model_id}), counting a top hit within each cosine "
        "of a gold tool's text as right (`bench/near_duplicates.py`).",
        "",
        "| set | requests | R@1 | " + " | ".join(f"within {cut}" for cut in CUTS) + " |",
        "|---|---:|---:|" + "---:|" * len(CUTS),
    ]
    for name, data in (
        ("BFCL tuning", load_bfcl(TUNING_CATEGORIES)),
        ("BFCL live (held out)", load_bfcl(LIVE_CATEGORIES)),
    ):
        lines.append(row(name, data, embedder))
        print(lines[-1], flush=True)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "near_duplicates.md").write_text("\n".join(lines) + "\n", encoding="utf-8")


def row(name: str, data: BfclData, embedder: object) -> str:
    tools = list(data.catalog)
    vectors = EmbeddingCache().embed(embedder, [tool_text(tool) for tool in tools])  # type: ignore[arg-type]
    position = {tool.name: i for i, tool in enumerate(tools)}
    rows_of: dict[str, list[int]] = {}
    for tool in tools:
        rows_of.setdefault(data.original_name.get(tool.name, tool.name), []).append(position[tool.name])
    index = build_searcher(SETTINGS, data.catalog)
    right = 0
    nearest: list[float] = []
    for query in data.queries:
        hits = index.search(query.query, limit=1, mode="hybrid").hits
        if not hits:
            nearest.append(-1.0)
            continue
        if data.original_name.get(hits[0].name, hits[0].name) in query.gold:
            right += 1
            continue
        top = vectors[position[hits[0].name]]
        gold_rows = [i for gold in query.gold for i in rows_of.get(gold, [])]
        nearest.append(float(np.max(vectors[gold_rows] @ top)) if gold_rows else -1.0)
    n = len(data.queries)
    cells = [f"{(right + sum(c >= cut for c in nearest)) / n:.3f}" for cut in CUTS]
    return f"| {name} | {n} | {right / n:.3f} | " + " | ".join(cells) + " |"


if __name__ == "__main__":
    main(sys.argv[1:])
