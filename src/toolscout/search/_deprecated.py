"""The ``deprecated`` stage: a tool that declares itself deprecated ranks below the tool to use instead."""

from __future__ import annotations

from collections.abc import Set
from dataclasses import replace
from functools import lru_cache

from ..catalog import Catalog
from ..catalog._internal import Deprecation
from ._base import SearchHit, SearchIndex, SearchMode, SearchResult

__all__ = ["DeprecatedStage", "demote_deprecated"]


class DeprecatedStage:
    """`demote_deprecated` over the hits below (the pipeline then hands the confidences out by position)."""

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
        """`inner`'s result with every deprecated hit moved down (`demote_deprecated`)."""
        result = inner.search(query, limit=limit, mode=mode, allowed=allowed)
        hits = demote_deprecated(result.hits, catalog)
        return result if hits == result.hits else replace(result, hits=hits)


def demote_deprecated(hits: tuple[SearchHit, ...], catalog: Catalog) -> tuple[SearchHit, ...]:
    """`hits` with each deprecated one (`Deprecation`) moved right below the tool it names instead.

    When it names none among the hits, it goes right below the first hit after it that is not deprecated and
    whose confidence (score, uncalibrated) is at least its own: a deprecated tool never outranks an equally
    likely live one, and never drops below a less likely one. Hits without a deprecated tool come back as given.
    """
    declared = _declared(catalog)
    if not declared:
        return hits
    deprecations = {hit.name: declared.get(hit.name) for hit in hits}
    if all(deprecation is None for deprecation in deprecations.values()):
        return hits
    order = list(hits)
    for hit in reversed(hits):  # the lowest first, so that two moved below one hit keep their order
        deprecation = deprecations[hit.name]
        if deprecation is None:
            continue
        at = order.index(hit)
        below = order[at + 1 :]
        target = next((other for other in below if other.name == deprecation.replacement), None)
        if target is None:
            target = next((o for o in below if deprecations[o.name] is None and _level(o) >= _level(hit)), None)
        if target is not None:
            order.remove(hit)
            order.insert(order.index(target) + 1, hit)
    return tuple(order)


@lru_cache(maxsize=32)
def _declared(catalog: Catalog) -> dict[str, Deprecation]:
    """The tools of `catalog` that declare themselves deprecated, by name (all read at once, on its first search)."""
    return {tool.name: found for tool in catalog.tools if (found := Deprecation.of(tool, catalog)) is not None}


def _level(hit: SearchHit) -> float:
    return hit.score if hit.confidence is None else hit.confidence
