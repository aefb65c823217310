"""`BackgroundHybrid`: an index builder whose indexes answer at once and turn hybrid when embeddings are ready.

The lexical index of a catalog is built on the caller's thread (milliseconds to a second); the
catalog's embeddings are computed afterwards on one daemon worker thread, in the order catalogs
arrive, through the on-disk `EmbeddingCache` (so an unchanged tool is never embedded twice, across
catalogs and processes). Until they are ready, ``mode="hybrid"`` queries run lexically and say so
(``SearchResult.mode``). A job whose catalog has been superseded by a newer one before it starts is
skipped. An embedder that is missing or fails leaves the index lexical, with one warning per builder.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable, Set
from dataclasses import dataclass
from typing import Literal, TypeAlias

from .._redact import redact
from .._search_settings import EmbeddingSettings, RankingSettings
from ..catalog import Catalog
from ._base import SearchMode, SearchResult
from ._hybrid import HybridFusion
from ._index import IndexConfig, ToolIndex, build_index
from ._language import known_share_in
from .embeddings import Embedder
from .embeddings._internal import NATIVE_WORK, DenseRanker, EmbeddingCache, InterpreterExiting, shared_embedder

__all__ = ["BackgroundHybrid", "EmbeddingState", "HybridIndex", "SearchStatus"]

logger = logging.getLogger("toolscout.search")

EmbeddingState: TypeAlias = Literal["off", "pending", "ready", "failed", "skipped"]
"""``off``: lexical search only; ``pending``: queued or embedding; ``ready``: hybrid; ``failed``: the embedder
failed; ``skipped``: superseded by a newer catalog before its turn."""


@dataclass(frozen=True, slots=True)
class SearchStatus:
    """What a catalog's searches run on now."""

    mode: SearchMode
    """The mode ``hybrid`` queries actually run in at this moment (``lexical`` until embeddings are ready)."""
    state: EmbeddingState
    """Where the catalog's embeddings are."""
    embedder: str | None
    """The embedding model's id once loaded."""
    error: str | None = None
    """Why embedding failed, when it did."""


class HybridIndex:
    """A `SearchIndex` that serves lexically at once and hybrid once its catalog's embeddings are in."""

    def __init__(self, lexical: ToolIndex) -> None:
        """Wrap the catalog's lexical index; `attach` later adds the dense ranker."""
        self._lexical = lexical
        self._hybrid: ToolIndex | None = None
        self._dense: DenseRanker | None = None
        self._state: EmbeddingState = "pending"
        self._embedder: str | None = None
        self._error: str | None = None
        self._done = threading.Event()

    @property
    def fingerprint(self) -> str:
        """The fingerprint of the indexed catalog."""
        return self._lexical.fingerprint

    @property
    def catalog(self) -> Catalog:
        """The indexed catalog."""
        return self._lexical.catalog

    @property
    def dense(self) -> DenseRanker | None:
        """The catalog's dense ranker once its embeddings are in (None before, or without an embedder)."""
        return self._dense

    @property
    def status(self) -> SearchStatus:
        """What hybrid queries run on now."""
        mode: SearchMode = "hybrid" if self._hybrid is not None else "lexical"
        return SearchStatus(mode=mode, state=self._state, embedder=self._embedder, error=self._error)

    def search(
        self, query: str, *, limit: int = 5, mode: SearchMode = "lexical", allowed: Set[str] | None = None
    ) -> SearchResult:
        """Rank the catalog's tools (see `ToolIndex.search`); hybrid runs lexically until embeddings are ready."""
        index = self._hybrid if mode == "hybrid" and self._hybrid is not None else self._lexical
        return index.search(query, limit=limit, mode=mode, allowed=allowed)

    def wait(self, timeout: float | None = None) -> bool:
        """Block until embedding finished one way or the other; False when `timeout` ran out first."""
        return self._done.wait(timeout)

    def attach(self, dense: DenseRanker) -> None:
        """Switch hybrid queries to the fused ranking."""
        self._hybrid = self._lexical.with_dense(dense)
        self._dense = dense
        self._embedder = redact(dense.embedder.model_id)
        self.settle("ready")

    def settle(self, state: EmbeddingState, error: str | None = None) -> None:
        """Record how embedding ended (``ready`` is set by `attach`); the error is redacted (`redact`)."""
        self._state, self._error = state, None if error is None else redact(error)
        self._done.set()


class BackgroundHybrid:
    """Builds `HybridIndex`es and embeds their catalogs on one background thread (an `IndexBuilder`).

    The embedder is created on the worker thread on first use (importing a model stack takes
    seconds), once per builder; when it cannot be created every later index stays lexical.
    """

    def __init__(
        self,
        settings: EmbeddingSettings | None = None,
        *,
        embedder: Callable[[], Embedder] | None = None,
        fusion: HybridFusion | None = None,
        config: IndexConfig | None = None,
        ranking: RankingSettings | None = None,
    ) -> None:
        """Configure the builder.

        Args:
            settings: The embedding backend and its options (default: ``auto``).
            embedder: Builds the embedder instead of the registry (for a host's own backend).
            fusion: How lexical and dense rankings are fused.
            config: The lexical index's tuning.
            ranking: The ranking keys of the settings (top band, expanders; default: the defaults).
        """
        self._settings = settings or EmbeddingSettings()
        self._make_embedder = embedder or self._registered_embedder
        self._known_share = known_share_in(self._settings.known_languages())
        self._fusion = fusion or HybridFusion()
        self._config = config
        self._ranking = ranking
        self._cache = EmbeddingCache(self._settings.cache_dir)
        self._jobs: queue.SimpleQueue[HybridIndex] = queue.SimpleQueue()
        self._latest: HybridIndex | None = None
        self._embedder: Embedder | None = None
        self._embedder_error: str | None = None
        self._warned = False
        self._lock = threading.Lock()
        self._worker: threading.Thread | None = None

    def __call__(self, catalog: Catalog) -> HybridIndex:
        """Index `catalog` lexically now and queue its embeddings."""
        index = HybridIndex(build_index(catalog, fuse=self._fusion, config=self._config, ranking=self._ranking))
        with self._lock:
            self._latest = index
            self._jobs.put(index)
            if self._worker is None:
                self._worker = threading.Thread(target=self._run, name="toolscout-embeddings", daemon=True)
                self._worker.start()
        return index

    def _run(self) -> None:
        while True:
            index = self._jobs.get()
            with self._lock:
                superseded = index is not self._latest
            if superseded:
                index.settle("skipped")
                continue
            self._embed(index)

    def _embed(self, index: HybridIndex) -> None:
        try:
            embedder = self._load_embedder()
            dense = DenseRanker(index.catalog, embedder, cache=self._cache, known_share=self._known_share)
        except InterpreterExiting as exc:  # exit refused the model's next native call: nothing to warn about
            index.settle("failed", str(exc))
            return
        except Exception as exc:  # an optional embedder must never break search: stay lexical
            self._warn_once(exc)
            index.settle("failed", f"{type(exc).__name__}: {exc}")
            return
        index.attach(dense)

    def _load_embedder(self) -> Embedder:
        if self._embedder is None:
            if self._embedder_error is not None:
                raise RuntimeError(self._embedder_error)
            try:
                with NATIVE_WORK:  # importing and loading a model stack runs native code: exit waits for it
                    self._embedder = self._make_embedder()
            except InterpreterExiting:
                raise
            except Exception as exc:
                self._embedder_error = f"{type(exc).__name__}: {exc}"
                raise
        return self._embedder

    def _registered_embedder(self) -> Embedder:
        return shared_embedder(self._settings)

    def _warn_once(self, exc: Exception) -> None:
        if not self._warned:
            self._warned = True
            logger.warning("embeddings unavailable (%s: %s); searches run lexically", type(exc).__name__, exc)
