"""Confidence of a search hit, and when a search abstains: the `Calibrator` seam.

A ranked search (lexical or hybrid) describes each candidate by its `HitEvidence`: the share of
the request's best possible lexical score the tool reached, its embedding similarity (hybrid
only), the score it is ranked by, its gap to the best other candidate, how near any tool comes to the
request and how many of its words the catalog knows. A `Calibrator` turns that
evidence into a confidence in [0, 1] (the estimated probability that the tool serves the request)
and says the least confidence the best candidate needs for the search to answer; below it the
search abstains: zero hits, with the candidates named as suggestions.

The built-in ``logistic`` calibrator is one logistic regression over the ranking score and the gap,
both of which fall down the ranked list, with non-negative weights, plus the search's top embedding
similarity and word coverage, which are the same for every hit: its confidences fall as the order
does, so the order and the confidences never disagree, while a search nothing in the catalog is near
reads unconfident. It reads its weights and thresholds from ``calibration.json`` beside this module,
written by ``bench/calibrate.py`` (fitted on every top hit of the tooldata dev split and BFCL's tuning
categories for the shipped embedding model; rerun it for a new model). Calibrators are registered by
name (`register_calibrator`) and chosen by ``search_calibrator``.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Protocol

from .._errors import ConfigError
from .._plugins import provide_names

__all__ = [
    "CALIBRATION_FILE",
    "Calibrator",
    "CalibratorFactory",
    "HitEvidence",
    "LexicalEvidence",
    "LogisticCalibrator",
    "calibrator_names",
    "check_calibrator",
    "get_calibrator",
    "register_calibrator",
]

CALIBRATION_FILE = "calibration.json"
"""The fitted weights and thresholds of the ``logistic`` calibrator (package data of `toolscout.search`)."""


@dataclass(frozen=True, slots=True)
class HitEvidence:
    """What a ranked search knows about one candidate, on scales that do not depend on the catalog's size."""

    lexical: float
    """The tool's lexical score as a share of the best score the whole request allows (0: no keyword matched)."""
    cosine: float | None
    """The embedding similarity of request and tool (None: lexical search, no embedder ran)."""
    score: float
    """The score the search ranks by: the lexical share (lexical search) or the fused score (hybrid)."""
    gap: float
    """How far `score` leads the best other candidate's, as a share of its own, in [-1, 1]: positive only for the
    best candidate (1: no other), 0 for a tie, negative for every candidate ranked below another."""
    top_cosine: float | None = None
    """The highest embedding similarity of any tool to the request, the same for every candidate of a search (None:
    lexical search): how near the catalog comes to the request at all."""
    coverage: float = 1.0
    """The share of the request's words (after translations and corrections) that some tool's text contains, the
    same for every candidate of a search: 0 for a request no tool has a word of."""


class LexicalEvidence(Mapping[str, HitEvidence]):
    """Lexical candidates' evidence by name (no embedding similarity), held as columns.

    Each `HitEvidence` is built when read; the ``logistic`` calibrator reads the columns at once
    (`LogisticCalibrator.lexical_confidences`), where building one object per candidate cost more than judging it.
    """

    __slots__ = ("_at", "coverage", "gaps", "shares")

    def __init__(self, names: Sequence[str], shares: Sequence[float], gaps: Sequence[float], coverage: float) -> None:
        """The evidence of candidates `names` (best first): each one's share (its lexical share and score) and gap."""
        self._at = dict(zip(names, range(len(names)), strict=True))
        self.shares = shares
        self.gaps = gaps
        self.coverage = coverage

    def __getitem__(self, name: str) -> HitEvidence:
        at = self._at[name]
        share = self.shares[at]
        return HitEvidence(share, None, share, self.gaps[at], None, self.coverage)

    def __contains__(self, name: object) -> bool:
        return name in self._at

    def __iter__(self) -> Iterator[str]:
        return iter(self._at)

    def __len__(self) -> int:
        return len(self._at)


class Calibrator(Protocol):
    """Turns a candidate's evidence into a confidence, and sets the least confidence a search answers with.

    Contract: `confidence` is deterministic, thread-safe and returns a number in [0, 1] that grows
    with the chance the tool serves the request, and never rises when `HitEvidence.score` and
    `HitEvidence.gap` both fall (so confidences fall down a ranked list); `threshold` is the least
    confidence of a search's best candidate for the search to answer (0 never abstains), for lexical evidence (``dense``
    False) or evidence with an embedding similarity (``dense`` True).
    """

    def confidence(self, evidence: HitEvidence) -> float:
        """The confidence that the candidate serves the request, in [0, 1]."""
        ...

    def threshold(self, *, dense: bool) -> float:
        """The least confidence of the best candidate for a search to answer.

        ``dense`` False: the least lexical confidence that vouches for a hit inside hybrid search (lexical search
        alone does not abstain).
        """
        ...


CalibratorFactory = Callable[[], Calibrator]
"""Builds a calibrator (once per process and name)."""

_CALIBRATORS: dict[str, CalibratorFactory] = {}


def register_calibrator(name: str, factory: CalibratorFactory) -> None:
    """Make a calibrator available as ``search_calibrator: name``."""
    _CALIBRATORS[name] = factory
    _built.cache_clear()


def calibrator_names() -> tuple[str, ...]:
    """The registered calibrators."""
    return tuple(_CALIBRATORS)


provide_names("search_calibrator", calibrator_names)


def check_calibrator(name: str) -> str:
    """`name` if a calibrator is registered under it.

    Raises:
        ValueError: No calibrator has that name; the registered ones are listed.
    """
    if name not in _CALIBRATORS:
        raise ValueError(f"unknown calibrator {name!r}; use one of: {', '.join(_CALIBRATORS)}")
    return name


def get_calibrator(name: str) -> Calibrator:
    """The calibrator registered as `name` (built once).

    Raises:
        ConfigError: No calibrator has that name.
    """
    try:
        check_calibrator(name)
    except ValueError as exc:
        raise ConfigError(str(exc), key="search_calibrator") from None
    return _built(name)


@functools.cache
def _built(name: str) -> Calibrator:
    return _CALIBRATORS[name]()


@dataclass(frozen=True, slots=True)
class _Logistic:
    intercept: float
    score: float
    gap: float
    top_cosine: float
    coverage: float
    threshold: float

    def __post_init__(self) -> None:
        if self.score < 0 or self.gap < 0:
            raise ValueError(f"calibration weights must be non-negative (score {self.score}, gap {self.gap})")


class LogisticCalibrator:
    """Logistic regression over the evidence, one fit for lexical search and one for hybrid (``logistic``).

    The weights of the ranking score and the gap are non-negative, so its confidences fall down a ranked list.
    """

    def __init__(self, fitted: dict[str, object]) -> None:
        """Read the fitted weights: ``{"lexical": {...}, "hybrid": {...}}`` as ``bench/calibrate.py`` writes them."""
        self._lexical = _Logistic(**_weights(fitted, "lexical"))
        self._hybrid = _Logistic(**_weights(fitted, "hybrid"))

    @classmethod
    def packaged(cls) -> LogisticCalibrator:
        """The calibrator fitted for the shipped model (``calibration.json``)."""
        text = (resources.files(__package__) / CALIBRATION_FILE).read_text(encoding="utf-8")
        return cls(json.loads(text))

    def confidence(self, evidence: HitEvidence) -> float:
        """The fitted probability that the candidate is a right answer."""
        fit = self._lexical if evidence.cosine is None else self._hybrid  # one call: it runs for every hit
        z = fit.intercept + fit.score * evidence.score + fit.gap * evidence.gap
        z += fit.top_cosine * (evidence.top_cosine or 0.0) + fit.coverage * evidence.coverage
        return 1.0 / (1.0 + math.exp(-max(min(z, 60.0), -60.0)))

    def lexical_confidences(self, evidence: LexicalEvidence) -> dict[str, float]:
        """`confidence` of each candidate of `evidence`, by name, read off its columns (the same arithmetic)."""
        fit, coverage, out = self._lexical, evidence.coverage, {}
        for name, share, gap in zip(evidence, evidence.shares, evidence.gaps, strict=True):
            z = fit.intercept + fit.score * share + fit.gap * gap
            z += fit.top_cosine * 0.0 + fit.coverage * coverage
            out[name] = 1.0 / (1.0 + math.exp(-max(min(z, 60.0), -60.0)))
        return out

    def threshold(self, *, dense: bool) -> float:
        """The fitted threshold: at most 0.5 % of the relevant requests of each fitting set fall under it."""
        return (self._hybrid if dense else self._lexical).threshold


def _weights(fitted: dict[str, object], mode: str) -> dict[str, float]:
    section = fitted.get(mode)
    if not isinstance(section, dict):
        raise ValueError(f"calibration has no {mode!r} section")
    return {key: float(section[key]) for key in ("intercept", "score", "gap", "top_cosine", "coverage", "threshold")}


register_calibrator("logistic", LogisticCalibrator.packaged)
