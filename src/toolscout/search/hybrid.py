"""Hybrid search: fuse the lexical ranking with the embedding (dense) ranking.

`HybridFusion` is the `Fusion` that `ToolIndex` calls in ``mode="hybrid"``. It receives the
lexical ranking with scores as a share of the best score the query's words allow (only tools
above the lexical relevance floor), and the dense ranking with cosine similarities. Two fusion
functions are available, both measured on the BFCL tuning categories (``bench/tune_hybrid.py``):

- ``"blend"`` (default): a convex combination of the two scores,
  ``w * lexical + (1 - w) * cosine`` (Bruch, Gai & Ingber, "An Analysis of Fusion Functions for
  Hybrid Retrieval", ACM TOIS 42(1), 2023). Normalising the lexical score by the query's best
  possible score, not by the best hit, keeps a weak keyword match weak.
- ``"rrf"``: reciprocal-rank fusion, ``w / (k + rank_lexical) + (1 - w) / (k + rank_dense)``
  (Cormack, Clarke & Büttcher, SIGIR 2009), which ignores score scales altogether.

No padding: a tool only dense ranking found must reach `similarity_floor`, so a query with no
relevant tool still gets zero hits; and fused scores below `band` times the best are dropped.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, TypeAlias, assert_never

__all__ = ["FusionMethod", "HybridFusion"]

FusionMethod: TypeAlias = Literal["blend", "rrf"]
"""``blend``: convex combination of scores; ``rrf``: reciprocal-rank fusion."""

_Ranking: TypeAlias = Sequence[tuple[str, float]]


@dataclass(frozen=True, slots=True, kw_only=True)
class HybridFusion:
    """Fuses a lexical and a dense ranking into one (a `toolscout.search.Fusion`).

    Defaults are tuned for all-MiniLM-L6-v2 on the BFCL tuning categories; another embedding
    model has another cosine scale, so re-tune `similarity_floor` for it (``bench/tune_hybrid.py``).
    """

    method: FusionMethod = "blend"
    """How the two rankings are combined."""
    lexical_weight: float = 0.5
    """Share of the lexical side in the fused score (0: dense only, 1: lexical only)."""
    rrf_k: float = 60.0
    """Rank offset of reciprocal-rank fusion (larger flattens the head of each ranking)."""
    similarity_floor: float = 0.35
    """Least cosine similarity for a tool that only the dense ranking found."""
    band: float = 0.0
    """Fused scores below this share of the best fused score are dropped."""

    def __call__(self, lexical: _Ranking, dense: _Ranking) -> list[tuple[str, float]]:
        """Fuse `lexical` ((name, share of the best possible score), best first) with `dense`.

        `dense` holds (name, cosine similarity) pairs, best first. Returns (name, fused score)
        pairs, best first, ties broken by name; every name passed the lexical floor (it is in
        `lexical`) or the similarity floor.
        """
        lexical_scores = dict(lexical)
        cosines = dict(dense)
        unseen_cosine = min(cosines.values(), default=0.0)
        candidates = [*lexical_scores, *(name for name in cosines if name not in lexical_scores)]
        relevant = [name for name in candidates if name in lexical_scores or cosines[name] >= self.similarity_floor]
        w = self.lexical_weight
        match self.method:
            case "blend":
                fused = {
                    name: w * lexical_scores.get(name, 0.0) + (1.0 - w) * cosines.get(name, unseen_cosine)
                    for name in relevant
                }
            case "rrf":
                lexical_rank = {name: rank for rank, (name, _) in enumerate(lexical, start=1)}
                dense_rank = {name: rank for rank, (name, _) in enumerate(dense, start=1)}
                fused = {
                    name: _reciprocal(lexical_rank.get(name), self.rrf_k, w)
                    + _reciprocal(dense_rank.get(name), self.rrf_k, 1.0 - w)
                    for name in relevant
                }
            case _:
                assert_never(self.method)
        ranked = sorted(fused.items(), key=lambda item: (-item[1], item[0]))
        if not ranked:
            return []
        cutoff = self.band * ranked[0][1]
        return [(name, score) for name, score in ranked if score >= cutoff]


def _reciprocal(rank: int | None, k: float, weight: float) -> float:
    return 0.0 if rank is None else weight / (k + rank)
