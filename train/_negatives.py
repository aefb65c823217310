"""Hard negatives: mined with toolscout's lexical engine or a model, with likely false negatives removed.

For each training request a miner ranks the tools of the request's source catalog: ``lexical``,
toolscout's own `ToolIndex` in lexical mode; ``dense``, a sentence-transformers model (the one
training starts from) by cosine similarity; ``mixed``, one of the two per request, drawn with the
run's seed. The best-ranked tool that is not a positive and passes the
false-negative guard becomes the request's hard negative. Here the guard drops a candidate with the
same normalised name or the same normalised description as a positive (tldr's platform pages,
per-instance ``#n`` variants, interchangeable ML models described alike). The second half of the
guard, a candidate the model scores about as high as the positive, needs the model's scores and is
applied in the loss (`_fit`). When fewer candidates survive than asked for (a request the lexical
index cannot match, say), seeded random tools of the same source that pass the guard fill in.
`mine_negatives` keeps one negative per request (the bi-encoder's triples), `mine_groups` several
(the cross-encoder's listwise groups, `_cross`).
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol

import numpy as np
import numpy.typing as npt

from toolscout.catalog import Catalog, ToolSpec
from toolscout.search._internal import build_index

from ._data import Corpus, Pair
from ._examples import MINERS, Group, Triple

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

__all__ = ["Miner", "make_miner", "mine_groups", "mine_negatives", "normalised"]

_CANDIDATES = 30
_NON_WORD = re.compile(r"[\W_]+")


def normalised(text: str) -> str:
    """Lower-case words only, for near-identity checks (``get_weather#2`` == ``GetWeather``)."""
    text = unicodedata.normalize("NFKC", text.split("#", 1)[0]).lower()
    return _NON_WORD.sub(" ", re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", text)).strip()


class Miner(Protocol):
    """Ranks the candidate negatives of one request.

    Contract: `ranked` returns tool ids of `source`'s catalog, best first, at most `_CANDIDATES`; it may
    include the request's positives (the guard removes them); `name` is what `Triple.miner` records.
    """

    def ranked(self, source: str, pair: Pair) -> list[str]:
        """The request's candidates in `source`'s catalog, best first."""
        ...

    def name(self, pair: Pair) -> str:
        """The miner that ranks `pair` (a mixed miner answers for the one it picked)."""
        ...


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


class LexicalMiner:
    """toolscout's lexical `ToolIndex` over each source's catalog, built on first use."""

    def __init__(self, corpus: Corpus) -> None:
        self._corpus = corpus
        self._by_source = _ids_by_source(corpus)
        self._indexes: dict[str, _SourceIndex] = {}

    def ranked(self, source: str, pair: Pair) -> list[str]:
        if source not in self._indexes:
            self._indexes[source] = _SourceIndex(self._corpus, self._by_source[source])
        return self._indexes[source].lexical(pair.query)

    def name(self, pair: Pair) -> str:
        return "lexical"


class DenseMiner:
    """Cosine similarity under a sentence-transformers model; every request is embedded up front, each catalog once."""

    def __init__(self, corpus: Corpus, pairs: Sequence[Pair], model: SentenceTransformer) -> None:
        self._corpus = corpus
        self._model = model
        self._by_source = _ids_by_source(corpus)
        queries = sorted({pair.query for pair in pairs})
        vectors = self._embed(queries)
        self._query_vector = {query: vectors[i] for i, query in enumerate(queries)}
        self._tool_vectors: dict[str, npt.NDArray[np.float32]] = {}

    def _embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        vectors: npt.NDArray[np.float32] = self._model.encode(
            list(texts), batch_size=128, normalize_embeddings=True, convert_to_numpy=True
        )
        return vectors

    def ranked(self, source: str, pair: Pair) -> list[str]:
        ids = self._by_source[source]
        if source not in self._tool_vectors:
            self._tool_vectors[source] = self._embed([self._corpus.tools[tool_id].text for tool_id in ids])
        scores = self._tool_vectors[source] @ self._query_vector[pair.query]
        top = np.argsort(-scores, kind="stable")[:_CANDIDATES]
        return [ids[i] for i in top]

    def name(self, pair: Pair) -> str:
        return "dense"


class MixedMiner:
    """Each request ranked by one of two miners, drawn from the query's text and the seed (stable across runs)."""

    def __init__(self, first: Miner, second: Miner, *, seed: int) -> None:
        self._miners = (first, second)
        self._seed = seed

    def _pick(self, pair: Pair) -> Miner:
        digest = hashlib.blake2b(f"{self._seed}:{pair.query}".encode(), digest_size=4).digest()
        return self._miners[digest[0] % 2]

    def ranked(self, source: str, pair: Pair) -> list[str]:
        return self._pick(pair).ranked(source, pair)

    def name(self, pair: Pair) -> str:
        return self._pick(pair).name(pair)


def make_miner(
    kind: str, corpus: Corpus, pairs: Sequence[Pair], *, seed: int, model: Callable[[], SentenceTransformer]
) -> Miner:
    """The miner `kind` (one of `MINERS`); `model` is called only by the miners that embed.

    Raises:
        ValueError: `kind` is not one of `MINERS`.
    """
    builders: dict[str, Callable[[], Miner]] = {
        "lexical": lambda: LexicalMiner(corpus),
        "dense": lambda: DenseMiner(corpus, pairs, model()),
        "mixed": lambda: MixedMiner(LexicalMiner(corpus), DenseMiner(corpus, pairs, model()), seed=seed),
    }
    if kind not in builders:
        raise ValueError(f"unknown miner {kind!r}; use one of: {', '.join(MINERS)}")
    return builders[kind]()


def _ids_by_source(corpus: Corpus) -> dict[str, list[str]]:
    by_source: dict[str, list[str]] = defaultdict(list)
    for tool in corpus.tools.values():
        by_source[tool.source].append(tool.id)
    return by_source


def mine_negatives(
    corpus: Corpus,
    pairs: Sequence[Pair],
    *,
    seed: int,
    miner: Miner | None = None,
    progress: Callable[[str], None] = print,
) -> list[Triple]:
    """One `Triple` per pair (a pair whose every candidate is guarded away is dropped); `miner` defaults to lexical."""
    return [
        Triple(g.query, g.positive, g.negatives[0], g.source, g.miner, g.positive_key, g.negative_keys[0])
        for g in mine_groups(corpus, pairs, seed=seed, miner=miner, negatives=1, progress=progress)
    ]


def mine_groups(
    corpus: Corpus,
    pairs: Sequence[Pair],
    *,
    seed: int,
    negatives: int,
    miner: Miner | None = None,
    progress: Callable[[str], None] = print,
) -> list[Group]:
    """One `Group` per pair with up to `negatives` guarded negatives, the miner's best first, topped up at random.

    A pair whose every candidate is guarded away is dropped; `miner` defaults to lexical.
    """
    miner = miner or LexicalMiner(corpus)
    by_source = _ids_by_source(corpus)
    name_key = {tool_id: normalised(tool.name) for tool_id, tool in corpus.tools.items()}
    text_key = {tool_id: normalised(tool.description) for tool_id, tool in corpus.tools.items()}
    rng = np.random.default_rng(seed)
    groups: list[Group] = []
    for number, pair in enumerate(pairs):
        source = corpus.catalog_source(pair)
        ids = by_source[source]
        positive = pair.positives[int(rng.integers(len(pair.positives)))]
        served = (*pair.positives, *pair.also)
        names = {name_key[p] for p in served}
        texts = {text_key[p] for p in served if text_key[p]}

        def allowed(
            candidate: str, served: tuple[str, ...] = served, names: set[str] = names, texts: set[str] = texts
        ) -> bool:
            return candidate not in served and name_key[candidate] not in names and text_key[candidate] not in texts

        chosen = _first_allowed(miner.ranked(source, pair), allowed, negatives)
        found_by = miner.name(pair) if chosen else "random"
        if len(chosen) < negatives:
            picks = rng.choice(len(ids), size=min(_CANDIDATES, len(ids)), replace=False)
            chosen += _first_allowed([ids[i] for i in picks if ids[i] not in chosen], allowed, negatives - len(chosen))
        if chosen:
            groups.append(
                Group(
                    pair.query,
                    corpus.tools[positive].text,
                    tuple(corpus.tools[n].text for n in chosen),
                    pair.source,
                    found_by,
                    name_key[positive],
                    tuple(name_key[n] for n in chosen),
                )
            )
        if number % 1000 == 0:
            progress(f"mined {number}/{len(pairs)}")
    return groups


def _first_allowed(candidates: Sequence[str], allowed: Callable[[str], bool], count: int) -> list[str]:
    """The first `count` of `candidates` that pass `allowed`, no tool twice."""
    out: list[str] = []
    for candidate in candidates:
        if len(out) == count:
            break
        if candidate not in out and allowed(candidate):
            out.append(candidate)
    return out
