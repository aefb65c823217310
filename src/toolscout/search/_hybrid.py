"""Hybrid search: fuse the lexical ranking with the embedding (dense) ranking.

`HybridFusion` is the `Fusion` that `ToolIndex` calls in ``mode="hybrid"``. It receives the
lexical ranking with each score as a share of the best score the whole request allows (its
English words that no tool has included, `IndexConfig.unknown_word_weight`; only tools above the
lexical relevance floor), and the dense ranking with cosine similarities. Two
fusion functions are available, both measured on the BFCL tuning categories
(``bench/tune_hybrid.py``, numbers in ``bench/results/tune_hybrid.md``):

- ``"blend"`` (default, measured best): the convex combination
  ``w * lexical + (1 - w) * cosine`` (Bruch, Gai & Ingber, "An Analysis of Fusion Functions for
  Hybrid Retrieval", ACM TOIS 42(1), 2023). Because the lexical score is a share of the query's
  best possible score, not of the best hit's, a weak keyword match stays weak.
- ``"rrf"``: reciprocal-rank fusion, ``w / (k + rank_lexical) + (1 - w) / (k + rank_dense)``
  (Cormack, Clarke & Büttcher, SIGIR 2009), which ignores the score scales.

No padding. When lexical search finds nothing, a tool only the dense ranking found must reach
`similarity_floor` (0.2); whether the best of them serves the
request is the calibrator's call (`toolscout.search.Calibrator`), which sees how similar it is and how
far it leads the rest, so a query with no relevant tool still gets zero hits while a terse catalog's
one fitting tool is kept. When lexical search found something, dense-only tools compete on the fused
score. The top band (``search_top_band``) is `ToolIndex`'s one cut, applied to the fused ranking.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal, TypeAlias, assert_never

from ._language import known_share

__all__ = ["FusionMethod", "HybridFusion"]

FusionMethod: TypeAlias = Literal["blend", "rrf"]
"""``blend``: convex combination of scores; ``rrf``: reciprocal-rank fusion."""

_Ranking: TypeAlias = Sequence[tuple[str, float]]
_ENGLISH = frozenset({"en"})


@dataclass(frozen=True, slots=True, kw_only=True)
class HybridFusion:
    """Fuses a lexical and a dense ranking into one ranking (a `Fusion`, `_index.py`).

    The lexical weight is chosen for the packaged tool-retrieval model on BFCL tuning and the tooldata dev split
    (``bench/tune_fusion.py``); the rest was tuned for all-MiniLM-L6-v2 on BFCL tuning. Another embedding
    model has another cosine scale: refit the calibration for it with ``bench/calibrate.py``.
    """

    method: FusionMethod = "blend"
    """How the two rankings are combined."""
    lexical_weight: float = 0.5
    """Share of the lexical side in the fused score of an English request (0: dense only, 1: lexical only). 0.5
    scored best of 0.3-0.8 with the packaged model (mean R@1 and R@5 of BFCL tuning and the tooldata dev split:
    0.7958 at 0.7, 0.8128 at 0.5); 0.7 was best for the plain all-MiniLM-L6-v2."""
    other_language_weight: float = 0.7
    """The lexical share for a request with no English word; a mixed request gets the weights mixed by its share of
    English words (`for_request`). The packaged model reads English best (translated requests alone: hit@5 0.233,
    where the lexicon's translations reach 0.721), so other languages keep the weight of before (0.7): at 0.5 the
    multilingual probe's translated requests fell from hit@5 0.747 to 0.738."""
    rrf_k: float = 60.0
    """Rank offset of reciprocal-rank fusion (larger flattens the head of each ranking)."""
    similarity_floor: float = 0.2
    """Least cosine similarity for a dense-only tool when lexical search found nothing; whether the best such tool
    fits is then the calibrator's call. 0.35, the cut before calibration, emptied right answers of terse catalogs
    ("will it rain in Oslo tomorrow" -> get_forecast at 0.33 with the previous model, "weather in Oslo" at 0.29 with
    this one); below 0.2 an unrelated request ("bake a chocolate cake" -> send_email at 0.15) still found tools."""

    def for_request(self, query: str) -> HybridFusion:
        """This fusion with the lexical weight for `query`'s languages (see `other_language_weight`)."""
        if self.lexical_weight == self.other_language_weight:
            return self
        english = known_share(query, _ENGLISH)
        weight = english * self.lexical_weight + (1.0 - english) * self.other_language_weight
        return self if weight == self.lexical_weight else replace(self, lexical_weight=weight)

    def __call__(self, lexical: _Ranking, dense: _Ranking) -> list[tuple[str, float]]:
        """Fuse the two rankings.

        Args:
            lexical: (name, share of the query's best possible lexical score) pairs, best first,
                holding only tools above the lexical relevance floor.
            dense: (name, cosine similarity) pairs, best first.

        Returns:
            (name, fused score) pairs, best first, ties broken by name.
        """
        lexical_scores = dict(lexical)
        cosines = dict(dense)
        floor = self.similarity_floor if not lexical_scores else float("-inf")
        relevant = [
            *lexical_scores,
            *(n for n, cosine in cosines.items() if n not in lexical_scores and cosine >= floor),
        ]
        w = self.lexical_weight
        match self.method:
            case "blend":
                # A lexical hit beyond the dense list's depth is at most as similar as its last entry.
                unlisted = min(cosines.values(), default=0.0)
                fused = {n: w * lexical_scores.get(n, 0.0) + (1.0 - w) * cosines.get(n, unlisted) for n in relevant}
            case "rrf":
                lexical_rank = {name: rank for rank, (name, _) in enumerate(lexical, start=1)}
                dense_rank = {name: rank for rank, (name, _) in enumerate(dense, start=1)}
                fused = {
                    n: _reciprocal(lexical_rank.get(n), self.rrf_k, w)
                    + _reciprocal(dense_rank.get(n), self.rrf_k, 1.0 - w)
                    for n in relevant
                }
            case _:
                assert_never(self.method)
        return sorted(fused.items(), key=lambda item: (-item[1], item[0]))


def _reciprocal(rank: int | None, k: float, weight: float) -> float:
    return 0.0 if rank is None else weight / (k + rank)
