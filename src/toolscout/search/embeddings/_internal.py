"""The private face of `toolscout.search.embeddings`: what the rest of toolscout uses of it and users do not.

Users import from `toolscout.search.embeddings` (its `__all__`, pinned by `tests/public_api.json`). Other toolscout
packages, the tests and the benchmarks import these names from here: the one private module of a
package that code outside it may import (docs/ARCHITECTURE.md, "Rules"). `tests/internal_api.json`
pins this list, which may only shrink.
"""

from ._backends import embedder_names, get_embedder, resolve_backend, shared_embedder
from ._cache import EmbeddingCache, default_cache_dir
from ._cross_encoder import CrossEncoderReranker
from ._dense import DenseRanker, tool_text
from ._native import NATIVE_WORK, InterpreterExiting

__all__ = [
    "CrossEncoderReranker",
    "default_cache_dir",
    "DenseRanker",
    "embedder_names",
    "EmbeddingCache",
    "get_embedder",
    "InterpreterExiting",
    "NATIVE_WORK",
    "resolve_backend",
    "shared_embedder",
    "tool_text",
]
