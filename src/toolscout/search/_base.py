"""The searcher interface the core uses: `SearchIndex`, `SearchHit`, `SearchResult`."""

from __future__ import annotations

from collections.abc import Callable, Set
from dataclasses import dataclass
from typing import Literal, Protocol, TypeAlias

from ..catalog import Catalog

__all__ = ["IndexBuilder", "SearchHit", "SearchIndex", "SearchMode", "SearchResult"]

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
    """How likely the tool serves the request, in [0, 1] (the engine's `Calibrator`); 1.0 for a tool the request
    names; None from an engine that does not calibrate (regex, browsing)."""
    learned: bool = False
    """True when learning from use changed this hit (the ``learned`` stage added it, moved it up, or raised its
    confidence): an answer with such a hit is a learned answer."""


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
    """The engine found candidates but judged that none serves the request (its best confidence was under the
    calibrated threshold): `hits` is empty and `suggestions` names those candidates, best first."""


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
