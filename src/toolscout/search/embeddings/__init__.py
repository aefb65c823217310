"""Embeddings for hybrid search: the `Embedder` protocol, the on-disk cache and the dense ranker.

The two backends live in modules of their own because they need the ``toolscout[semantic]``
extra: `toolscout.search.embeddings.local.SentenceTransformerEmbedder` (a local model, never
downloaded) and `toolscout.search.embeddings.openai_compat.OpenAICompatibleEmbedder` (any
OpenAI-compatible ``/v1/embeddings`` endpoint).
"""

from .base import Embedder, EmbeddingError, Vectors, normalize_rows
from .cache import EmbeddingCache, default_cache_dir
from .dense import DenseRanker, tool_text

__all__ = [
    "DenseRanker",
    "EmbeddingCache",
    "EmbeddingError",
    "Embedder",
    "Vectors",
    "default_cache_dir",
    "normalize_rows",
    "tool_text",
]
