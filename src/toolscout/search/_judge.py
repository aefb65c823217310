"""`Judge`: a ranked search's calibrated confidences, and whether the search answers at all (abstention).

`ConfidenceStage` is the pipeline's ``confidence`` stage: it judges any engine's answer that carries its
`Candidates` (the built-in engines' do), and passes an answer without them as it is.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Set

from .._search_settings import RankingSettings
from ..catalog import Catalog
from ._base import JUDGED_HITS, Candidates, SearchHit, SearchIndex, SearchMode, SearchResult
from ._confidence import Calibrator, HitEvidence, LexicalEvidence, LogisticCalibrator, get_calibrator
from ._index import EngineAnswer, ToolIndex

__all__ = ["ConfidenceStage", "Judge"]


class Judge:
    """Gives a ranked search's candidates their confidences (a `Calibrator`) and decides whether it answers."""

    def __init__(self, calibrator: Calibrator, min_confidence: float | None) -> None:
        """Judge with `calibrator`; abstain under `min_confidence` (``search_min_confidence``; None: its threshold)."""
        self._calibrator = calibrator
        self._configured = min_confidence
        self._columns = calibrator.lexical_confidences if isinstance(calibrator, LogisticCalibrator) else None
        """The calibrator's confidences of `LexicalEvidence` at once, where it reads them so (the ``logistic`` one)."""

    def judge(self, result: SearchResult) -> SearchResult:
        """`result` judged on its `Candidates`, which it then drops (as it is without them).

        Each hit gets its confidence (`confidences`), and a search whose top `JUDGED_HITS` candidates are not
        confident enough (`answers`) abstains: no hits, the candidates' `Candidates.nearest` as suggestions. It is
        judged on those candidates whatever the limit, so asking for one hit or ten never changes whether it answers.
        """
        candidates = result.candidates
        if candidates is None:
            return result
        confidence = self._judged(candidates, [hit.name for hit in result.hits])
        if confidence is None:
            return _abstained(result.query, result.mode, candidates)
        hits = tuple(
            SearchHit(
                name=hit.name,
                score=hit.score,
                namespace=hit.namespace,
                confidence=confidence[hit.name],
                learned=hit.learned,
            )
            for hit in result.hits
        )
        # Not `dataclasses.replace`, which costs more than the judging on every search.
        return SearchResult(
            query=result.query,
            mode=result.mode,
            hits=hits,
            total=result.total,
            suggestions=result.suggestions,
            abstained=result.abstained,
            listed=result.listed,
        )

    def judge_answer(self, answer: EngineAnswer) -> SearchResult:
        """`answer` (a `ToolIndex`'s) judged as `judge` judges its `EngineAnswer.result`, each hit built once."""
        candidates = answer.candidates
        if candidates is None:
            return answer.result()
        confidence = self._judged(candidates, [name for name, _, _ in answer.rows])
        if confidence is None:
            return _abstained(answer.query, answer.mode, candidates)
        return answer.result(confidence)

    def _judged(self, candidates: Candidates, shown: list[str]) -> dict[str, float] | None:
        """The confidence of each judged candidate and each of `shown` (the hits' names); None: the search abstains."""
        judged = candidates.names[:JUDGED_HITS]
        seen = set(judged)
        ranked = [*judged, *(name for name in shown if name not in seen)]
        confidence = self.confidences(ranked, candidates.evidence)
        if judged and not self.answers(judged, confidence, candidates.evidence, candidates.keywords):
            return None
        return confidence

    def confidences(self, ranked: Sequence[str], evidence: Mapping[str, HitEvidence]) -> dict[str, float]:
        """The confidence of each of `ranked` (names, best first).

        A candidate with `evidence` gets the calibrator's confidence; one without (a tool the request names) gets
        the confidence of the candidate ranked above it, or 1.0 when first.
        """
        confidence: dict[str, float] = {}
        above = 1.0
        if self._columns is not None and isinstance(evidence, LexicalEvidence):
            known = self._columns(evidence)
            for name in ranked:
                above = above if name not in known else round(known[name], 3)
                confidence[name] = above
            return confidence
        calibrated = self._calibrator.confidence
        for name in ranked:
            above = above if name not in evidence else round(calibrated(evidence[name]), 3)
            confidence[name] = above
        return confidence

    def answers(
        self,
        ranked: Sequence[str],
        confidence: Mapping[str, float | None],
        evidence: Mapping[str, HitEvidence],
        keywords: Mapping[str, HitEvidence],
    ) -> bool:
        """Whether a search's best hit is confident enough to answer with.

        Keyword evidence alone cannot tell a weak right answer from noise (measured: lexical search would empty
        5 % of BFCL's held-out live requests at its fitted threshold), so lexical search abstains only under a
        configured ``min_confidence``. With embeddings, a hit's keyword evidence may also vouch for it (its lexical
        confidence at the lexical threshold): a request the embedder reads poorly (another language, a paraphrase far
        from the tool's words) is not emptied while its keywords fit (measured offline: without this, the fitted
        threshold empties 10 % of the packaged sample requests' right answers and 24 % of the multilingual probe's).
        """
        lexical = isinstance(evidence, LexicalEvidence)  # no embedding similarity: not dense, and nothing to build
        dense = not lexical and any(evidence[name].cosine is not None for name in ranked if name in evidence)
        if not dense:  # the best confidence is read only where a configured threshold asks for it
            return self._configured is None or max(confidence[name] or 0.0 for name in ranked) >= self._configured
        best = max(confidence[name] or 0.0 for name in ranked)
        if best >= self._min_confidence(dense):
            return True
        vouching = (keywords[name] for name in ranked if name in keywords)
        return any(self._calibrator.confidence(ev) >= self._min_confidence(False) for ev in vouching)

    def _min_confidence(self, dense: bool) -> float:
        return self._calibrator.threshold(dense=dense) if self._configured is None else self._configured


class ConfidenceStage:
    """The engine's answer judged (`Judge.judge`): each hit's confidence, or abstention when none is confident."""

    def __init__(self, judge: Judge) -> None:
        """Judge every answer with `judge`."""
        self._judge = judge

    @classmethod
    def from_settings(cls, settings: RankingSettings) -> ConfidenceStage:
        """The stage of ``search_calibrator`` and ``search_min_confidence`` (a `ScoutSettings` will do).

        Raises:
            ConfigError: No calibrator is registered under ``search_calibrator``.
        """
        return cls(Judge(get_calibrator(settings.search_calibrator), settings.search_min_confidence))

    def search(
        self,
        inner: SearchIndex,
        query: str,
        *,
        limit: int,
        mode: SearchMode,
        allowed: Set[str] | None,
        catalog: Catalog,
    ) -> SearchResult:
        """`inner`'s answer, judged when it carries its `Candidates`, else as it is.

        A built-in engine's index hands its answer before building its hits (`ToolIndex.answer`), so each hit is
        built once, judged.
        """
        if isinstance(inner, ToolIndex):
            return self._judge.judge_answer(inner.answer(query, limit=limit, mode=mode, allowed=allowed))
        return self._judge.judge(inner.search(query, limit=limit, mode=mode, allowed=allowed))


def _abstained(query: str, mode: SearchMode, candidates: Candidates) -> SearchResult:
    """A search that abstains: no hits, its candidates' `Candidates.nearest` as suggestions."""
    return SearchResult(query=query, mode=mode, hits=(), total=0, suggestions=candidates.nearest, abstained=True)
