"""The search pipeline: the stages every engine's index is searched through, assembled once from the settings.

A ranked search (a request, mode ``lexical`` or ``hybrid``) runs through the registered stages, outermost
first, then the engine:

1. ``exact-name``: a request that is exactly a tool's name answers with that tool alone (`ToolNames`);
2. ``deprecated``: a tool that declares itself deprecated ranks below its replacement (`DeprecatedStage`);
3. ``cut``: the hits are cut to the caller's limit;
4. ``learned``: past requests near this one vote for the tools they led to (``learning``, on by default;
   registered by `toolscout.learning`, which tells it the scope and session of each search);
5. ``rerank``: a `Reranker` reorders the top hits (``search_rerank``; none by default);
6. ``parts``: a compound request is also searched sentence by sentence (``search_split_requests``);
7. ``confidence``: each hit's calibrated confidence, or abstention when none is confident (`ConfidenceStage`,
   on the `Candidates` an engine's answer carries; an answer without them passes as it is);
8. the engine (``search_mode``, `register_engine`): its query expanders, relevance floor and top band.

Whatever the stages did, the confidences of a ranked search's answer fall down its list
(`_confidences_by_position`). Patterns (mode ``regex``) and browsing (an empty query) go to the engine alone.
`build_searcher` is the one place a searcher is made from settings: `ToolScout` (``tool_search``), ``toolscout
search`` and ``eval``, the gateway's page and the benchmarks all search what it builds.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence, Set
from dataclasses import replace
from typing import Protocol, TypeAlias

from .._errors import SearchError
from .._settings import ScoutSettings
from ..catalog import Catalog
from ..catalog._internal import ToolNames
from ._base import IndexBuilder, SearchHit, SearchIndex, SearchMode, SearchResult
from ._deprecated import DeprecatedStage
from ._judge import ConfidenceStage
from ._parts import merge_parts, request_parts
from ._rerank import RerankStage
from ._select import engine_options, search_engine

__all__ = ["SearchPipeline", "SearchStage", "StageFactory", "build_searcher", "register_stage"]

MAX_HITS = 50
"""The most hits a compound request's merged result holds (the engine's own cap, `IndexConfig.max_limit`)."""


class SearchStage(Protocol):
    """One stage of the search pipeline around an engine's index.

    Contract:

    - `search` answers a ranked search (a non-empty request, mode ``lexical`` or ``hybrid``; patterns and
      browsing never reach a stage) by calling `inner.search` (the stages below it, then the engine) zero
      or more times, and returns a `SearchResult`.
    - It returns only tools of `catalog` inside `allowed` (None: any), each at most once; it may return more
      hits than `limit` (the ``cut`` stage cuts).
    - Deterministic and thread-safe: one stage serves every search of a `ToolScout`, from several threads.
    - It sees judged hits: ``confidence``, which gives them their confidences from the engine's
      `SearchResult.candidates`, is always the innermost stage.
    """

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
        """The result of `query`, computed with `inner`."""
        ...


StageFactory: TypeAlias = Callable[[ScoutSettings], SearchStage | None]
"""Builds a stage from the settings, once per `ToolScout` or command; None leaves the stage out."""

_STAGES: dict[str, StageFactory] = {}
_JUDGING = "confidence"
"""The stage that judges the engine's answer (`ConfidenceStage`): always the innermost."""


def register_stage(name: str, factory: StageFactory, *, before: str | None = None) -> None:
    """Add stage `name` to every pipeline: just outside the stage `before` names, else innermost.

    Innermost is just outside ``confidence``, which stays next to the engine, so such a stage sees judged hits as it
    would a built-in engine's answer; ``before="confidence"`` is not allowed (`SearchStage`).

    Raises:
        ValueError: `before` names no registered stage, or ``confidence``.
    """
    if before is not None and before not in _STAGES:
        raise ValueError(f"no stage {before!r} to go before; the stages are: {', '.join(_STAGES)}")
    if before == _JUDGING and name != _JUDGING:
        raise ValueError(f"no stage goes inside {_JUDGING!r}: it judges the engine's answer and stays next to it")
    entries = [(key, value) for key, value in _STAGES.items() if key != name]
    keys = [key for key, _ in entries]
    innermost = keys.index(_JUDGING) if _JUDGING in keys and name != _JUDGING else len(entries)
    at = innermost if before is None else keys.index(before)
    entries.insert(at, (name, factory))
    _STAGES.clear()
    _STAGES.update(entries)


class SearchPipeline:
    """The stages the settings ask for, built once; `around` puts them around an engine's index."""

    def __init__(self, stages: Sequence[SearchStage]) -> None:
        """Run `stages`, outermost first."""
        self._stages = tuple(stages)

    @classmethod
    def from_settings(cls, settings: ScoutSettings) -> SearchPipeline:
        """Every registered stage that `settings` turn on, in order.

        Raises:
            ConfigError: A stage's settings name something unregistered (a reranker).
        """
        built = (factory(settings) for factory in _STAGES.values())
        return cls([stage for stage in built if stage is not None])

    @staticmethod
    def engine(settings: ScoutSettings, *, mode: str | None = None, background: bool = False) -> IndexBuilder:
        """The index builder of the engine `settings` choose (``search_mode``, ``auto`` resolved; `mode` instead).

        Args:
            settings: The settings: ``search_mode``, ``embeddings`` and the ``search_*`` keys the engine reads.
            mode: The engine, instead of ``search_mode``.
            background: A long-running host (`EngineOptions.background`).

        Raises:
            ConfigError: No engine is registered under the mode; the registered modes are listed.
        """
        return search_engine(mode or settings.search_mode, engine_options(settings, background=background))

    @staticmethod
    def same_engine(one: ScoutSettings, other: ScoutSettings) -> bool:
        """Whether `one` and `other` build the same engine (so its indexes can be shared)."""
        return one.search_mode == other.search_mode and engine_options(one) == engine_options(other)

    def around(self, index: SearchIndex, catalog: Catalog) -> SearchIndex:
        """`index` (an engine's index of `catalog`) searched through the stages."""
        return _Staged(index, self._stages, catalog)


def build_searcher(settings: ScoutSettings, catalog: Catalog, *, mode: str | None = None) -> SearchIndex:
    """What ``tool_search`` searches for `catalog` under `settings`, built now (embeddings computed first).

    Args:
        settings: The settings; ``search_*`` choose the engine and the stages.
        catalog: The tools to index.
        mode: The engine, instead of ``search_mode``.

    Raises:
        ConfigError: An engine, expander, calibrator or reranker the settings name is not registered.
    """
    engine = SearchPipeline.engine(settings, mode=mode)
    return SearchPipeline.from_settings(settings).around(engine(catalog), catalog)


class _Staged:
    """An engine's index searched through the pipeline's stages; implements `SearchIndex`."""

    def __init__(self, index: SearchIndex, stages: tuple[SearchStage, ...], catalog: Catalog) -> None:
        self._index = index
        self._stages = stages
        self._layers = _Layer.chain(index, stages, catalog)

    @property
    def fingerprint(self) -> str:
        """The fingerprint of the indexed catalog."""
        return self._index.fingerprint

    def search(
        self, query: str, *, limit: int = 5, mode: SearchMode = "lexical", allowed: Set[str] | None = None
    ) -> SearchResult:
        """The result of `query` (see the module docstring for the stages).

        Raises:
            SearchError: `limit` is below 1, or the engine refuses the query.
        """
        if limit < 1:
            raise SearchError(f"limit must be at least 1, got {limit}")
        if mode == "regex" or not query.strip() or not self._stages:
            return self._index.search(query, limit=limit, mode=mode, allowed=allowed)
        return _confidences_by_position(self._layers.search(query, limit=limit, mode=mode, allowed=allowed))


def _confidences_by_position(result: SearchResult) -> SearchResult:
    """`result` with its confidences falling down the list: the order and the confidences never disagree.

    The engine's confidences already fall as its order does (`Calibrator`); a stage that reorders hits (a deprecated
    tool moved below its replacement, a reranker, a sentence's tool placed after the best hit) hands each position's
    confidence to the hit it put there: the confidences, highest first, in the final order. A result with a hit
    that has no confidence comes back as given.
    """
    confidences = [hit.confidence for hit in result.hits]
    ranked = sorted((c for c in confidences if c is not None), reverse=True)
    if len(ranked) < len(confidences) or ranked == confidences:
        return result
    hits = tuple(replace(hit, confidence=c) for hit, c in zip(result.hits, ranked, strict=True))
    return replace(result, hits=hits)


class _Layer:
    """One stage, as the `SearchIndex` the stage above searches: it searches the layers below it (built once)."""

    __slots__ = ("_below", "_catalog", "_stage")

    def __init__(self, stage: SearchStage, below: SearchIndex, catalog: Catalog) -> None:
        self._stage = stage
        self._below = below
        self._catalog = catalog

    @staticmethod
    def chain(index: SearchIndex, stages: tuple[SearchStage, ...], catalog: Catalog) -> SearchIndex:
        """`index` searched through `stages`, outermost first (`index` itself when there are none)."""
        layer = index
        for stage in reversed(stages):
            layer = _Layer(stage, layer, catalog)
        return layer

    @property
    def fingerprint(self) -> str:
        return self._below.fingerprint

    def search(
        self, query: str, *, limit: int = 5, mode: SearchMode = "lexical", allowed: Set[str] | None = None
    ) -> SearchResult:
        return self._stage.search(self._below, query, limit=limit, mode=mode, allowed=allowed, catalog=self._catalog)


class ExactNameStage:
    """A request that is exactly a tool's name (any case, quoted, with or without its namespace): that tool alone."""

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
        """The named tools (each server's, for a bare name they share), else `inner`'s result."""
        named = ToolNames.of(catalog).query_match(query, allowed)
        if named is None:
            return inner.search(query, limit=limit, mode=mode, allowed=allowed)
        alone = tuple(SearchHit(name=name, score=1.0) for name in named.names)
        return SearchResult(query=query, mode="lexical", hits=alone, total=len(alone))


class CutStage:
    """The hits cut to the caller's limit."""

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
        """`inner`'s result, at most `limit` hits."""
        result = inner.search(query, limit=limit, mode=mode, allowed=allowed)
        return result if len(result.hits) <= limit else replace(result, hits=result.hits[:limit])


class PartsStage:
    """A compound request also searched sentence by sentence (`request_parts`, `merge_parts`)."""

    def __init__(self, *, min_confidence: float = 0.3, max_parts: int = 6) -> None:
        """Add a sentence's best tool when its confidence reaches `min_confidence`; search at most `max_parts`.

        0.3 was chosen on BFCL tuning (R@5 0.927, the best of 0.2-0.8) and the tooldata dev split (0.870, 0.0005
        below its best) with the per-hit calibration (``bench/compound.py``); each sentence costs one more search.
        """
        self._min_confidence = min_confidence
        self._max_parts = max_parts

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
        """`inner`'s result, with each sentence's confident best tool right after its best hit."""
        whole = inner.search(query, limit=limit, mode=mode, allowed=allowed)
        parts = request_parts(query, max_parts=self._max_parts)
        if not parts:
            return whole
        heads = []
        for part in parts:
            best = inner.search(part, limit=1, mode=mode, allowed=allowed).hits[:1]
            if best and (best[0].confidence or 0.0) >= self._min_confidence:
                heads.append(best[0])
        return merge_parts(whole, heads, min(limit, MAX_HITS))


class _Rerank:
    """The `RerankStage` as a pipeline stage: the engine's top ``top_n`` hits in the reranker's order."""

    def __init__(self, stage: RerankStage) -> None:
        self._stage = stage

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
        result = inner.search(query, limit=max(limit, self._stage.top_n), mode=mode, allowed=allowed)
        return self._stage.apply(result, catalog)


def _rerank(settings: ScoutSettings) -> SearchStage | None:
    stage = RerankStage.from_settings(settings.search_rerank)
    return None if stage is None else _Rerank(stage)


register_stage("exact-name", lambda settings: ExactNameStage())
register_stage("deprecated", lambda settings: DeprecatedStage())
register_stage("cut", lambda settings: CutStage())
register_stage("rerank", _rerank)
register_stage("parts", lambda settings: PartsStage() if settings.search_split_requests else None)
register_stage("confidence", ConfidenceStage.from_settings)
