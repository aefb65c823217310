"""Scores do not depend on the process: string hashing (PYTHONHASHSEED) changes term ids, never a score."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

WEATHER = ("rainfall", "snowfall", "sunshine", "drizzle", "pollen", "hail", "frost", "fog")
SCRIPT = f"""
import json
from toolscout import Catalog, ToolSpec
from toolscout.search._index import build_index

tools = [
    ToolSpec(
        name=kind + "_prediction",
        description=f"Predict the {{kind}} of a city for the coming days, with {{kind}} history and a {{kind}} map.",
        parameters={{"type": "object", "properties": {{"city": {{"type": "string", "description": "City name."}}}}}},
    )
    for kind in {WEATHER!r}
]
catalog = Catalog.from_file("src/toolscout/data/sample_catalog.json").merge(Catalog(tools))
index = build_index(catalog)
queries = ("predict the weather of a city for the coming days", "history map of a city", "send a message")
print(json.dumps([[(name, score.hex()) for name, score in index.rank(query, depth=20)] for query in queries]))
"""


def test_rankings_and_scores_are_bit_identical_across_hash_seeds() -> None:
    root = Path(__file__).parents[2]
    outputs = set()
    for seed in ("0", "1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        run = [sys.executable, "-c", SCRIPT]
        outputs.add(subprocess.run(run, capture_output=True, text=True, env=env, cwd=root, check=True).stdout)
    assert len(outputs) == 1
    # The weather tools differ only in their subject word: an exact tie, ordered by name.
    first_query = json.loads(outputs.pop())[0]
    tied = [(name, score) for name, score in first_query if name.endswith("_prediction")]
    assert [name for name, _ in tied] == sorted(f"{kind}_prediction" for kind in WEATHER)
    assert len({score for _, score in tied}) == 1
