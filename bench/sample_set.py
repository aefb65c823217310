"""The packaged sample catalog and its paraphrased requests (``toolscout/data``), never tuned on alone."""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from toolscout import Catalog

__all__ = ["SampleRequest", "load_sample"]


@dataclass(frozen=True, slots=True, kw_only=True)
class SampleRequest:
    """One request of the sample set; `gold` is empty for a request no tool serves."""

    id: str
    query: str
    gold: tuple[str, ...]


def load_sample() -> tuple[Catalog, list[SampleRequest]]:
    """The sample catalog and every sample request, labelled and off-topic, in file order."""
    data = resources.files("toolscout") / "data"
    catalog = Catalog.from_file(Path(str(data / "sample_catalog.json")))
    lines = (data / "sample_queries.jsonl").read_text(encoding="utf-8").splitlines()
    requests = [json.loads(line) for line in lines if line.strip()]
    return catalog, [SampleRequest(id=r["id"], query=r["query"], gold=tuple(r["gold"])) for r in requests]
