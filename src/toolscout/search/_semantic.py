"""`build_hybrid_index`: a `ToolIndex` whose ``hybrid`` mode fuses lexical search with embeddings."""

from __future__ import annotations

import functools
import logging
from pathlib import Path

from ..catalog import Catalog
from ._hybrid import HybridFusion
from ._index import IndexConfig, ToolIndex, build_index
from .embeddings._base import Embedder
from .embeddings._cache import EmbeddingCache
from .embeddings._dense import DenseRanker

__all__ = ["build_hybrid_index"]

logger = logging.getLogger("toolscout.search")


def build_hybrid_index(
    catalog: Catalog,
    *,
    embedder: Embedder | None = None,
    cache_dir: str | Path | None = None,
    fusion: HybridFusion | None = None,
    config: IndexConfig | None = None,
) -> ToolIndex:
    """Build the search index of `catalog` with embeddings for ``mode="hybrid"``.

    Tool embeddings are read from, and new ones written to, an on-disk cache keyed by content,
    so only new or changed tools are embedded. Embedding never breaks search: when the semantic
    extra is missing or the embedder fails, a warning is logged on the ``toolscout.search``
    logger and the index answers hybrid queries lexically (``SearchResult.mode == "lexical"``).

    Args:
        catalog: The tools to index (build once per catalog fingerprint).
        embedder: The embedding backend; None loads the packaged all-MiniLM-L6-v2 (one model per
            process, shared by every index) from the ``toolscout[semantic]`` extra.
        cache_dir: Where tool embeddings are kept; None means ``$TOOLSCOUT_CACHE_DIR`` or the
            platform's user cache directory.
        fusion: How the lexical and dense rankings are fused (default: the measured `HybridFusion`).
        config: Settings of the lexical index.
    """
    fuse = fusion or HybridFusion()
    try:
        dense = DenseRanker(catalog, embedder or _default_embedder(), cache=EmbeddingCache(cache_dir))
    except ImportError as exc:
        logger.warning("semantic search unavailable (%s); hybrid queries run lexically", exc)
        return build_index(catalog, fuse=fuse, config=config)
    except Exception:  # an optional embedder must never break search: degrade to lexical
        logger.warning("embedding the catalog failed; hybrid queries run lexically", exc_info=True)
        return build_index(catalog, fuse=fuse, config=config)
    return build_index(catalog, dense=dense, fuse=fuse, config=config)


@functools.cache
def _default_embedder() -> Embedder:
    # Looked up on first use: importing the model stack takes seconds, and the core must import
    # without the semantic extra (the backend raises ImportError then).
    from ._engines import embedder_names, get_embedder

    installed = embedder_names(installed=True)
    return get_embedder(installed[0] if installed else "sentence-transformers")
