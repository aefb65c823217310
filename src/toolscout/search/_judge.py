"""`Judge`: a ranked search's calibrated confidences, and whether the search answers at all (abstention)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ._confidence import Calibrator, HitEvidence

__all__ = ["Judge"]


class Judge:
    """Gives a ranked search's candidates their confidences (a `Calibrator`) and decides whether it answers."""

    def __init__(self, calibrator: Calibrator, min_confidence: float | None) -> None:
        """Judge with `calibrator`; abstain under `min_confidence` (``search_min_confidence``; None: its threshold)."""
        self._calibrator = calibrator
        self._configured = min_confidence

    def confidences(self, ranked: Sequence[int], evidence: Mapping[int, HitEvidence]) -> dict[int, float]:
        """The confidence of each of `ranked` (positions, best first).

        A candidate with `evidence` gets the calibrator's confidence; one without (a tool the request names) gets
        the confidence of the candidate ranked above it, or 1.0 when first.
        """
        confidence: dict[int, float] = {}
        above, calibrated = 1.0, self._calibrator.confidence
        for i in ranked:
            above = above if i not in evidence else round(calibrated(evidence[i]), 3)
            confidence[i] = above
        return confidence

    def answers(
        self,
        ranked: Sequence[int],
        confidence: Mapping[int, float | None],
        evidence: Mapping[int, HitEvidence],
        keywords: Mapping[int, HitEvidence],
    ) -> bool:
        """Whether a search's best hit is confident enough to answer with.

        Keyword evidence alone cannot tell a weak right answer from noise (measured: lexical search would empty
        5 % of BFCL's held-out live requests at its fitted threshold), so lexical search abstains only under a
        configured ``min_confidence``. With embeddings, a hit's keyword evidence may also vouch for it (its lexical
        confidence at the lexical threshold): a request the embedder reads poorly (another language, a paraphrase far
        from the tool's words) is not emptied while its keywords fit (measured offline: without this, the fitted
        threshold empties 10 % of the packaged sample requests' right answers and 24 % of the multilingual probe's).
        """
        best = max(confidence[i] or 0.0 for i in ranked)
        dense = any(evidence[i].cosine is not None for i in ranked if i in evidence)
        if not dense:
            return self._configured is None or best >= self._configured
        if best >= self._min_confidence(dense):
            return True
        vouching = (keywords[i] for i in ranked if i in keywords)
        return any(self._calibrator.confidence(ev) >= self._min_confidence(False) for ev in vouching)

    def _min_confidence(self, dense: bool) -> float:
        return self._calibrator.threshold(dense=dense) if self._configured is None else self._configured
