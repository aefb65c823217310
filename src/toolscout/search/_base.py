"""The searcher interface the core uses: `SearchIndex`, `SearchHit`, `SearchResult`."""

from __future__ import annotations

from collections.abc import Callable, Container, Mapping, Set
from dataclasses import dataclass, field
from typing import Literal, Protocol, TypeAlias

from .._slots import slot_setters
from ..catalog import Catalog
from ._confidence import HitEvidence

__all__ = ["JUDGED_HITS", "Candidates", "IndexBuilder", "SearchHit", "SearchIndex", "SearchMode", "SearchResult"]

JUDGED_HITS = 5
"""How many of a search's top candidates decide whether it answers, whatever its limit: the default limit, at which the
calibration's thresholds were measured (``bench/calibrate.py``). An engine's `Candidates` go at least this deep."""

SearchMode: TypeAlias = Literal["lexical", "regex", "hybrid"]
"""`lexical`: ranked keywords; `regex`: a pattern over names and text; `hybrid`: lexical fused with embeddings."""


@dataclass(frozen=True, slots=True, kw_only=True)
class SearchHit:
    """One ranked match."""

    name: str
    """The tool's name."""
    score: float
    """Relevance score; higher is better. Comparable only within one result."""
    namespace: str | None = None
    """The tool's namespace."""
    confidence: float | None = None
    """How likely the tool serves the request, in [0, 1] (the ``confidence`` stage's `Calibrator`); 1.0 for a tool the
    request names; None where nothing was judged (regex, browsing, an engine that gives no `Candidates`)."""
    learned: bool = False
    """True when learning from use changed this hit (the ``learned`` stage added it, moved it up, or raised its
    confidence): an answer with such a hit is a learned answer."""


_HIT_NAME, _HIT_SCORE, _HIT_NAMESPACE, _HIT_CONFIDENCE, _HIT_LEARNED = slot_setters(
    SearchHit, "name", "score", "namespace", "confidence", "learned"
)


def ranked_hit(name: str, score: float, namespace: str | None, confidence: float | None) -> SearchHit:
    """``SearchHit(name=name, score=score, namespace=namespace, confidence=confidence)``, its slots set directly.

    An engine's answer makes one per hit (`slot_setters`: half the cost of the generated `__init__`).
    """
    hit: SearchHit = object.__new__(SearchHit)
    _HIT_NAME(hit, name)
    _HIT_SCORE(hit, score)
    _HIT_NAMESPACE(hit, namespace)
    _HIT_CONFIDENCE(hit, confidence)
    _HIT_LEARNED(hit, False)
    return hit


@dataclass(frozen=True, slots=True, kw_only=True)
class Candidates:
    """A ranked search's candidates as its engine weighed them, for the ``confidence`` stage to judge (`Judge`)."""

    names: tuple[str, ...]
    """The candidates, best first, before the limit: at least `JUDGED_HITS` deep (when there are that many) and as
    deep as the limit."""
    evidence: Mapping[str, HitEvidence]
    """Each candidate's evidence, by name; a tool the request names has none (it gets the confidence above it)."""
    keywords: Mapping[str, HitEvidence] = field(default_factory=dict)
    """A hybrid search's lexical evidence, by name, by which a candidate's keywords may vouch for it."""
    nearest: tuple[str, ...] = ()
    """The names to suggest should the search abstain, best first."""


@dataclass(frozen=True, slots=True, kw_only=True)
class SearchResult:
    """The answer to one query."""

    query: str
    """The query as given."""
    mode: SearchMode
    """The mode that actually ran (hybrid falls back to lexical when embeddings are unavailable)."""
    hits: tuple[SearchHit, ...]
    """Matches above the relevance floor, best first, at most `limit`."""
    total: int
    """How many tools passed the relevance floor before the limit was applied."""
    suggestions: tuple[str, ...] = ()
    """When there are no hits: the nearest tool names, to guide a better query. Never padding."""
    abstained: bool = False
    """The search found candidates but judged that none serves the request (its best confidence was under the
    calibrated threshold): `hits` is empty and `suggestions` names those candidates, best first."""
    candidates: Candidates | None = field(default=None, repr=False, compare=False)
    """The engine's candidates and their evidence, which the pipeline's ``confidence`` stage judges and then drops
    (None: an engine that gives none; its hits pass as they are)."""
    listed: Container[str] | None = field(default=None, repr=False, compare=False)
    """Internal: every tool the engine would list for this request at any limit, so a stage can tell that a deeper
    search would list no tool it cares about past these hits (the ``learned`` stage); a stage that changes which tools
    a deeper search lists drops it (None: unknown, search deeper to know)."""


_QUERY, _MODE, _HITS, _TOTAL, _SUGGESTIONS, _ABSTAINED, _CANDIDATES, _LISTED = slot_setters(
    SearchResult, "query", "mode", "hits", "total", "suggestions", "abstained", "candidates", "listed"
)


def search_result_of(
    query: str,
    mode: SearchMode,
    hits: tuple[SearchHit, ...],
    total: int,
    suggestions: tuple[str, ...],
    abstained: bool,
    candidates: Candidates | None,
    listed: Container[str] | None,
) -> SearchResult:
    """``SearchResult(query=query, ..., listed=listed)``, every field given in order, its slots set directly.

    An engine's answer makes one per search (`slot_setters`: half the cost of the generated `__init__`).
    """
    result: SearchResult = object.__new__(SearchResult)
    _QUERY(result, query)
    _MODE(result, mode)
    _HITS(result, hits)
    _TOTAL(result, total)
    _SUGGESTIONS(result, suggestions)
    _ABSTAINED(result, abstained)
    _CANDIDATES(result, candidates)
    _LISTED(result, listed)
    return result


class SearchIndex(Protocol):
    """A search structure built once for one catalog.

    Contract: `search` never mutates the index, is safe to call from several threads, and
    only ever returns (or suggests) tools whose names are in `allowed` when `allowed` is given.
    """

    @property
    def fingerprint(self) -> str:
        """The fingerprint of the catalog this index was built from."""
        ...

    def search(
        self,
        query: str,
        *,
        limit: int = 5,
        mode: SearchMode = "lexical",
        allowed: Set[str] | None = None,
    ) -> SearchResult:
        """Rank the catalog's tools for `query`.

        Raises:
            SearchError: The query cannot be run (invalid or over-long regex).
        """
        ...


IndexBuilder: TypeAlias = Callable[[Catalog], SearchIndex]
"""Builds a `SearchIndex` for a catalog (called once per catalog fingerprint)."""
