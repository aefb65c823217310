"""Embeddings for hybrid search: the `Embedder` protocol, the on-disk cache and the dense ranker.

The two backends live in modules of their own because they need the ``toolscout[semantic]``
extra: `toolscout.search.embeddings._local.SentenceTransformerEmbedder` (a local model, never
downloaded) and `toolscout.search.embeddings._openai_compat.OpenAICompatibleEmbedder` (any
OpenAI-compatible ``/v1/embeddings`` endpoint).
"""

from ._base import Embedder, EmbeddingError, Vectors, normalize_rows
from ._cache import EmbeddingCache, default_cache_dir
from ._dense import DenseRanker, tool_text

__all__ = [
    "default_cache_dir",
    "DenseRanker",
    "Embedder",
    "EmbeddingCache",
    "EmbeddingError",
    "normalize_rows",
    "tool_text",
    "Vectors",
]
