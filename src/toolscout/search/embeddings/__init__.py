"""Embeddings for hybrid search: the `Embedder` protocol, the backends by name, the on-disk cache and the dense ranker.

The backends are registered by name (`register_embedder`) and live in modules of their own, imported only
when selected: ``_onnx`` (the default:
toolscout's int8 tool-retrieval model, or the plain all-MiniLM-L6-v2, on onnxruntime, the
``toolscout[semantic]`` extra), ``_local``
(sentence-transformers, the ``toolscout[sentence-transformers]`` extra) and ``_openai_compat``
(any OpenAI-compatible ``/v1/embeddings`` endpoint). None downloads anything at run time.
"""

from ..._search_settings import EmbeddingSettings
from ._backends import EmbedderFactory, register_embedder
from ._base import Embedder, EmbeddingError, Vectors

__all__ = [
    "Embedder",
    "EmbedderFactory",
    "EmbeddingError",
    "EmbeddingSettings",
    "register_embedder",
    "Vectors",
]
