"""The learned ranking's score: a linear function of a candidate's standing with the engine and its learned evidence.

`features` turns a search's hits (in the engine's order) and each voted tool's `Evidence` into one row per
candidate; `LearnedWeights.score` weighs them with the weights ``bench/learning_fit.py`` fitted (``ranking.json``
beside this module). The engine's confidence and reciprocal rank have non-negative weights, so among hits without
learned evidence the score keeps the engine's order.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import json
import math
from collections.abc import Mapping, Sequence
from importlib import resources
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

__all__ = ["FEATURES", "MODES", "WEIGHTS_FILE", "Evidence", "LearnedWeights", "features"]

WEIGHTS_FILE = "ranking.json"
MODES = ("hybrid", "lexical")
"""The engine modes weighed apart."""

FEATURES = (
    "confidence",
    "reciprocal_rank",
    "lexical",
    "dense",
    "votes",
    "share",
    "first",
    "interaction",
    "disagreement",
    "missed",
)
"""One row per candidate, in this order (see `features`)."""

_SESSION_MAXIMA = {
    "lexical": 1.0,
    "dense": 1.0,
    "votes": math.log(2.0),
    "share": 1.0,
    "first": 1.0,
    "interaction": 1.0,
    "missed": 1.0,
}
"""The most one session's vote can set each learned feature to (a session is one vote of weight at most 1)."""

_AGREEING = 0.05
"""Voted tools whose nearest request is within this of the nearest of all count as disagreeing candidates."""


class Evidence(NamedTuple):
    """What the scope's near past requests say of one tool (every value 0 when nothing).

    A named tuple rather than a frozen dataclass: a search makes one per voted tool, and a frozen dataclass takes
    twice as long to make.
    """

    lexical: float = 0.0
    """The highest term cosine of a near request that voted for it."""
    dense: float = 0.0
    """The highest embedding cosine of a near request that voted for it (hybrid search only)."""
    votes: float = 0.0
    """Its votes: per distinct session, that session's nearest request's similarity times its recency weight."""
    first: float = 0.0
    """The highest similarity of a near request whose search had listed it first."""
    missed: float = 0.0
    """The highest similarity of a near request whose search had not listed it."""

    @property
    def nearest(self) -> float:
        """Its nearest voting request's similarity, by terms or embedding."""
        return max(self.lexical, self.dense)

    @property
    def confidence(self) -> float:
        """The learned confidence: the nearest similarity times ``1 - 0.5^votes`` (one full vote: half of it)."""
        return self.nearest * (1.0 - math.pow(0.5, self.votes))


@dataclasses.dataclass(frozen=True, slots=True)
class LearnedWeights:
    """The fitted score (``ranking.json``): how near a request must be to vote, how deep to look, the weights.

    One set of weights per engine mode: a hybrid search's candidates carry embedding evidence and calibrated
    hybrid confidences, a lexical one's neither, so each is fitted on its own (`MODES`).
    """

    near: float
    """A past request votes when its term or embedding cosine with this request reaches this."""
    depth: int
    """How many engine hits are candidates (the engine is searched this deep when a request drew votes)."""
    modes: Mapping[str, Mapping[str, float]]
    """Engine mode (`MODES`) -> feature name (`FEATURES`) -> weight."""
    _vectors: Mapping[str, npt.NDArray[np.float64]] = dataclasses.field(init=False, repr=False, compare=False)

    _tuples: Mapping[str, tuple[float, ...]] = dataclasses.field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        """Each mode's weights in `FEATURES` order, as a vector and as numbers, so a search does not build them."""
        tuples = {mode: tuple(self.modes[mode][name] for name in FEATURES) for mode in MODES}
        object.__setattr__(self, "_tuples", tuples)
        object.__setattr__(self, "_vectors", {mode: np.array(tuples[mode], dtype=np.float64) for mode in MODES})

    @classmethod
    def shipped(cls) -> LearnedWeights:
        """The weights fitted for the shipped search (``ranking.json``)."""
        return _shipped()

    @classmethod
    def from_json(cls, value: Mapping[str, object]) -> LearnedWeights:
        """Read the weights file's object; raises `ValueError` naming what is wrong."""
        modes = value.get("modes")
        if not isinstance(modes, Mapping) or set(modes) != set(MODES):
            raise ValueError(f"modes must name exactly {', '.join(MODES)}")
        near, depth = value.get("near"), value.get("depth")
        if isinstance(near, bool) or not isinstance(near, int | float) or not 0 < near <= 1:
            raise ValueError(f"near must be in (0, 1], got {near!r}")
        if isinstance(depth, bool) or not isinstance(depth, int) or depth < 1:
            raise ValueError(f"depth must be a positive integer, got {depth!r}")
        read: dict[str, dict[str, float]] = {}
        for mode, weights in modes.items():
            if not isinstance(weights, Mapping) or set(weights) != set(FEATURES):
                raise ValueError(f"modes.{mode}: weights must name exactly {', '.join(FEATURES)}")
            numbers = {name: float(weight) for name, weight in weights.items()}
            if numbers["confidence"] < 0 or numbers["reciprocal_rank"] < 0:
                raise ValueError(f"modes.{mode}: the confidence and reciprocal_rank weights must not be negative")
            read[mode] = numbers
        return cls(near=float(near), depth=depth, modes=read)

    def weights(self, mode: str) -> Mapping[str, float]:
        """The weights of a search in `mode` (any mode but ``hybrid`` ranks as ``lexical`` does)."""
        return self.modes["hybrid" if mode == "hybrid" else "lexical"]

    def session_cap(self, mode: str) -> float:
        """The most one session's pairs, however many, raise a tool's score in `mode` (the poisoning cap).

        Every voted tool disagrees at least with itself (``disagreement`` is at least ``log 2``).
        """
        weights = self.weights(mode)
        raised = sum(max(0.0, weights[name]) * most for name, most in _SESSION_MAXIMA.items())
        return raised + min(0.0, weights["disagreement"]) * math.log(2.0)

    def score(self, rows: npt.NDArray[np.float64], mode: str) -> npt.NDArray[np.float64]:
        """Each candidate's score in `mode` (`rows` as `features` returns them)."""
        return rows @ self._vectors["hybrid" if mode == "hybrid" else "lexical"]

    def scores(
        self, hits: Sequence[tuple[str, float]], evidence: Mapping[str, Evidence], mode: str
    ) -> tuple[list[str], list[float]]:
        """The candidates `features` gives and their scores in `mode`, without building the rows (one search's).

        Each score adds its row's products feature by feature, so it may differ from `score`'s in the last bits.
        """
        weights = self._tuples["hybrid" if mode == "hybrid" else "lexical"]
        by_confidence, by_rank, lexical, dense, votes, share, first, interaction, disagreement, missed = weights
        names = [name for name, _ in hits]
        count = len(names)
        names += sorted(set(evidence).difference(names))
        scores = [
            confidence * by_confidence + rank * by_rank
            for (_, confidence), rank in zip(hits, _reciprocal(count), strict=True)
        ]
        scores += [0.0] * (len(names) - count)
        if evidence:
            at = dict(zip(names, range(len(names)), strict=True))
            for name, cells in _learned(evidence, dict(hits)):
                row = at[name]
                scores[row] = (  # added in `FEATURES` order, one product at a time
                    scores[row]
                    + cells[0] * lexical
                    + cells[1] * dense
                    + cells[2] * votes
                    + cells[3] * share
                    + cells[4] * first
                    + cells[5] * interaction
                    + cells[6] * disagreement
                    + cells[7] * missed
                )
        return names, scores


@functools.cache
def _shipped() -> LearnedWeights:
    text = (resources.files(__package__) / WEIGHTS_FILE).read_text(encoding="utf-8")
    return LearnedWeights.from_json(json.loads(text))


def features(
    hits: Sequence[tuple[str, float]], evidence: Mapping[str, Evidence]
) -> tuple[list[str], npt.NDArray[np.float64]]:
    """The candidates (the engine's hits in order, then the other voted tools by name) and their rows.

    Args:
        hits: (name, the engine's confidence) of each hit, in the engine's order.
        evidence: The voted tools' evidence.
    """
    names = [name for name, _ in hits]
    count = len(names)
    names += sorted(set(evidence).difference(names))
    table = [(confidence, rank, *_UNVOTED) for (_, confidence), rank in zip(hits, _reciprocal(count), strict=True)]
    table += [(0.0, 0.0, *_UNVOTED)] * (len(names) - count)
    if evidence:
        at = {name: row for row, name in enumerate(names)}
        for name, learned in _learned(evidence, dict(hits)):
            row = at[name]
            table[row] = (*table[row][:2], *learned)
    cells = itertools.chain.from_iterable(table)
    return names, np.fromiter(cells, dtype=np.float64, count=len(names) * len(FEATURES)).reshape(-1, len(FEATURES))


def _learned(evidence: Mapping[str, Evidence], confidences: Mapping[str, float]) -> list[tuple[str, tuple[float, ...]]]:
    """Each voted tool's features past the engine's two (`FEATURES` from ``lexical`` on), in `evidence`'s order.

    `confidences`: the engine's confidence of each hit (a voted tool that is none has 0).
    """
    found = list(evidence.values())
    nearest = [max(one.lexical, one.dense) for one in found]
    total = sum(one.votes for one in found) or 1.0
    top = max(nearest) - _AGREEING
    agreeing = math.log1p(sum(near >= top for near in nearest))
    return [
        (
            name,
            (
                one.lexical,
                one.dense,
                math.log1p(one.votes),
                one.votes / total,
                one.first,
                confidences.get(name, 0.0) * near,
                agreeing,
                one.missed,
            ),
        )
        for name, one, near in zip(evidence, found, nearest, strict=True)
    ]


_UNVOTED = (0.0,) * (len(FEATURES) - 2)
"""A candidate's learned features without evidence."""


@functools.cache
def _reciprocal(count: int) -> tuple[float, ...]:
    """The reciprocal rank of each of `count` hits."""
    return tuple(1.0 / (1 + rank) for rank in range(count))
