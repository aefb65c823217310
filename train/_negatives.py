"""Hard negatives: mined with toolscout's lexical engine, with likely false negatives removed.

For each training request, toolscout's own `ToolIndex` (lexical mode, over the catalog of the
request's source) ranks the tools; the best-ranked tool that is not a positive and passes the
false-negative guard becomes the request's hard negative. Here the guard drops a candidate with the
same normalised name or the same normalised description as a positive (tldr's platform pages,
per-instance ``#n`` variants, interchangeable ML models described alike). The second half of the
guard, a candidate the model scores about as high as the positive, needs the model's scores and is
applied in the loss (`_fit`). When no lexical candidate survives (a request the lexical index cannot
match), a seeded random tool of the same source that passes the guard is used.
"""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from toolscout.catalog import Catalog, ToolSpec
from toolscout.search import build_index

from ._data import Corpus, Pair

__all__ = ["Triple", "mine_negatives", "normalised"]

_CANDIDATES = 30
_NON_WORD = re.compile(r"[\W_]+")


@dataclass(frozen=True)
class Triple:
    """One training example: a request, one of its tools, and a tool that does not serve it."""

    query: str
    positive: str
    negative: str
    source: str
    lexical: bool
    """Whether the negative came from the lexical engine (else a random tool of the source)."""
    positive_key: str
    negative_key: str
    """The tools' normalised names: two tools with one key never meet as negatives of each other in a batch."""


def normalised(text: str) -> str:
    """Lower-case words only, for near-identity checks (``get_weather#2`` == ``GetWeather``)."""
    text = unicodedata.normalize("NFKC", text.split("#", 1)[0]).lower()
    return _NON_WORD.sub(" ", re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", text)).strip()


class _SourceIndex:
    """The lexical index of one source's tools."""

    def __init__(self, corpus: Corpus, ids: list[str]) -> None:
        self.ids = ids
        seen: set[str] = set()
        specs = []
        self._id_by_name: dict[str, str] = {}
        for tool_id in ids:
            tool = corpus.tools[tool_id]
            name = tool.name if tool.name not in seen else tool_id
            seen.add(name)
            self._id_by_name[name] = tool_id
            specs.append(ToolSpec(name=name, description=tool.description))
        self.index = build_index(Catalog(specs))

    def lexical(self, query: str) -> list[str]:
        result = self.index.search(query, limit=_CANDIDATES, mode="lexical")
        return [self._id_by_name[hit.name] for hit in result.hits]


def mine_negatives(
    corpus: Corpus, pairs: Sequence[Pair], *, seed: int, progress: Callable[[str], None] = print
) -> list[Triple]:
    """One `Triple` per pair (a pair whose every candidate is guarded away is dropped)."""
    by_source: dict[str, list[str]] = defaultdict(list)
    for tool in corpus.tools.values():
        by_source[tool.source].append(tool.id)
    indexes: dict[str, _SourceIndex] = {}
    name_key = {tool_id: normalised(tool.name) for tool_id, tool in corpus.tools.items()}
    text_key = {tool_id: normalised(tool.description) for tool_id, tool in corpus.tools.items()}
    rng = np.random.default_rng(seed)
    triples: list[Triple] = []
    for number, pair in enumerate(pairs):
        source = corpus.catalog_source(pair)
        if source not in indexes:
            indexes[source] = _SourceIndex(corpus, by_source[source])
        index = indexes[source]
        positive = pair.positives[int(rng.integers(len(pair.positives)))]
        names = {name_key[p] for p in pair.positives}
        texts = {text_key[p] for p in pair.positives if text_key[p]}

        def allowed(candidate: str, pair: Pair = pair, names: set[str] = names, texts: set[str] = texts) -> bool:
            return (
                candidate not in pair.positives
                and name_key[candidate] not in names
                and text_key[candidate] not in texts
            )

        negative = next((c for c in index.lexical(pair.query) if allowed(c)), None)
        lexical = negative is not None
        if negative is None:
            picks = rng.choice(len(index.ids), size=min(_CANDIDATES, len(index.ids)), replace=False)
            negative = next((index.ids[i] for i in picks if allowed(index.ids[i])), None)
        if negative is not None:
            triples.append(
                Triple(
                    pair.query,
                    corpus.tools[positive].text,
                    corpus.tools[negative].text,
                    pair.source,
                    lexical,
                    name_key[positive],
                    name_key[negative],
                )
            )
        if number % 1000 == 0:
            progress(f"mined {number}/{len(pairs)}")
    return triples
