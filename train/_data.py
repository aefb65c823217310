"""The training corpus: tools and (request -> tool) pairs read from ``tooldata``, weighted by source."""

from __future__ import annotations

import json
import random
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from toolscout.catalog import ToolSpec
from toolscout.search.embeddings._internal import tool_text

__all__ = ["EXCLUDED_SOURCES", "Pair", "Tool", "Corpus", "load_corpus", "sample_by_source"]

EXCLUDED_SOURCES: dict[str, str] = {
    "sgd": "CC BY-SA 4.0 (share-alike): left out so the shipped model carries no share-alike obligation",
}
"""Sources never trained on, with the reason."""


@dataclass(frozen=True)
class Tool:
    """One tool of the corpus and the text toolscout embeds it as."""

    id: str
    source: str
    name: str
    description: str
    text: str


@dataclass(frozen=True)
class Pair:
    """One request and the ids of the tools that serve it."""

    source: str
    query: str
    positives: tuple[str, ...]
    also: tuple[str, ...] = ()
    """Other tools the request calls: not this pair's positives, never its negative."""


@dataclass(frozen=True)
class Corpus:
    """Tools by id, and the train and dev pairs of the sources kept."""

    tools: dict[str, Tool]
    train: tuple[Pair, ...]
    dev: tuple[Pair, ...]

    def catalog_source(self, pair: Pair) -> str:
        """The source whose tools a pair's positives are drawn from (tldr_zh and nl2bash point at tldr)."""
        return self.tools[pair.positives[0]].source


def _read_jsonl(path: Path) -> Iterator[dict[str, object]]:
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            if line.strip():
                yield json.loads(line)


def load_corpus(data: Path, *, exclude: Sequence[str] = tuple(EXCLUDED_SOURCES)) -> Corpus:
    """Read ``tools.jsonl`` and ``pairs.jsonl`` from `data`, leaving out the `exclude` sources.

    Raises:
        FileNotFoundError: `data` lacks one of the two files.
    """
    for name in ("tools.jsonl", "pairs.jsonl"):
        if not (data / name).is_file():
            raise FileNotFoundError(f"{data / name} not found: pass the tooldata directory (see its README)")
    tools: dict[str, Tool] = {}
    for row in _read_jsonl(data / "tools.jsonl"):
        source = str(row["source"])
        if source in exclude:
            continue
        parameters = row.get("parameters")
        spec = ToolSpec(
            name=str(row["name"]),
            description=str(row.get("description") or ""),
            parameters=parameters if isinstance(parameters, dict) and parameters else {"type": "object"},
        )
        tools[str(row["id"])] = Tool(str(row["id"]), source, spec.name, spec.description, tool_text(spec))
    splits: dict[str, list[Pair]] = defaultdict(list)
    for row in _read_jsonl(data / "pairs.jsonl"):
        positives = tuple(str(item) for item in row["positives"] if str(item) in tools)  # type: ignore[attr-defined]
        if str(row["source"]) in exclude or not positives:
            continue
        splits[str(row["split"])].append(Pair(str(row["source"]), str(row["query"]), positives))
    return Corpus(tools, tuple(splits["train"]), tuple(splits["dev"]))


def sample_by_source(pairs: Sequence[Pair], count: int, *, temperature: float, seed: int) -> list[Pair]:
    """Draw `count` pairs, each source with probability proportional to its size ** (1 / temperature).

    Temperature 1 keeps the raw mix; higher flattens it (the raw mix is 56 % command line). Within a
    source, pairs are drawn without replacement, reshuffled each time the source runs out.
    """
    by_source: dict[str, list[Pair]] = defaultdict(list)
    for pair in pairs:
        by_source[pair.source].append(pair)
    sources = sorted(by_source)
    weights = [len(by_source[source]) ** (1.0 / temperature) for source in sources]
    rng = random.Random(seed)
    queues: dict[str, list[Pair]] = {source: [] for source in sources}
    drawn: list[Pair] = []
    for source in rng.choices(sources, weights=weights, k=count):
        if not queues[source]:
            queues[source] = rng.sample(by_source[source], len(by_source[source]))
        drawn.append(queues[source].pop())
    return drawn


def source_shares(pairs: Sequence[Pair]) -> dict[str, float]:
    """Each source's share of `pairs`, largest first."""
    counts: dict[str, int] = defaultdict(int)
    for pair in pairs:
        counts[pair.source] += 1
    return {source: counts[source] / len(pairs) for source in sorted(counts, key=lambda s: -counts[s])}
