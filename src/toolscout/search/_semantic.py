"""`build_hybrid_index`: a `ToolIndex` whose ``hybrid`` mode fuses lexical search with embeddings."""

from __future__ import annotations

import logging
from pathlib import Path

from .._search_settings import EmbeddingSettings, RankingSettings
from ..catalog import Catalog
from ._hybrid import HybridFusion
from ._index import IndexConfig, ToolIndex, build_index
from ._language import known_share_in
from .embeddings import Embedder
from .embeddings._internal import DenseRanker, EmbeddingCache, shared_embedder

__all__ = ["build_hybrid_index"]

logger = logging.getLogger("toolscout.search")


def build_hybrid_index(
    catalog: Catalog,
    *,
    embedder: Embedder | None = None,
    settings: EmbeddingSettings | None = None,
    cache_dir: str | Path | None = None,
    fusion: HybridFusion | None = None,
    config: IndexConfig | None = None,
    ranking: RankingSettings | None = None,
) -> ToolIndex:
    """Build the search index of `catalog` with embeddings for ``mode="hybrid"``, embedding now.

    This waits for the embeddings (right for a one-shot command); a long-running host uses
    `BackgroundHybrid` (`_background.py`), which answers lexically while they are computed. Tool
    embeddings are read from, and new ones written to, an on-disk cache keyed by content, so only
    new or changed tools are embedded. Embedding never breaks search: when no backend is installed
    or the embedder fails, a warning is logged on the ``toolscout.search`` logger and the index
    answers hybrid queries lexically (``SearchResult.mode == "lexical"``).

    Args:
        catalog: The tools to index (build once per catalog fingerprint).
        embedder: The embedding backend; None uses the one `settings` select (one per process).
        settings: The embedding backend and its options (default: ``auto``).
        cache_dir: Where tool embeddings are kept; None means ``settings.cache_dir``, else
            ``$TOOLSCOUT_CACHE_DIR`` or the platform's user cache directory.
        fusion: How the lexical and dense rankings are fused (default: the measured `HybridFusion`).
        config: The lexical index's tuning.
        ranking: The ranking keys of the settings (top band, expanders; default: the defaults).
    """
    settings = settings or EmbeddingSettings()
    lexical = build_index(catalog, fuse=fusion or HybridFusion(), config=config, ranking=ranking)
    try:
        dense = DenseRanker(
            catalog,
            embedder or shared_embedder(settings),
            cache=EmbeddingCache(cache_dir or settings.cache_dir),
            known_share=known_share_in(settings.known_languages()),
        )
    except ImportError as exc:
        logger.warning("semantic search unavailable (%s); hybrid queries run lexically", exc)
        return lexical
    except Exception:  # an optional embedder must never break search: degrade to lexical
        logger.warning("embedding the catalog failed; hybrid queries run lexically", exc_info=True)
        return lexical
    return lexical.with_dense(dense)
