"""The `Embedder` protocol every embedding backend implements, and its error."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, TypeAlias

import numpy as np
import numpy.typing as npt

from ..._errors import ToolscoutError

__all__ = ["Embedder", "EmbeddingError", "Vectors", "normalize_rows"]

Vectors: TypeAlias = npt.NDArray[np.float32]
"""A float32 matrix with one L2-normalised embedding per row (or one such vector)."""


class EmbeddingError(ToolscoutError):
    """An embedding backend failed: unreachable endpoint, bad reply, missing model files."""


class Embedder(Protocol):
    """Turns text into unit vectors whose dot product is their cosine similarity.

    Contract:
        - `embed_documents` returns a float32 array of shape ``(len(texts), dim)``; `embed_query`
          one of shape ``(dim,)``; every row has L2 norm 1 and ``dim`` never changes.
        - Queries and documents may be encoded differently (e.g. with model-specific prefixes);
          only query-to-document similarities are meaningful.
        - `model_id` names the vector space: two embedders with equal ids return the same vectors
          for the same document text, so cached document vectors can be reused across processes.
        - Every failure (model files missing, endpoint down, malformed reply) raises
          `EmbeddingError`; callers fall back to lexical search on it.
        - Both methods are safe to call from several threads.
    """

    @property
    def model_id(self) -> str:
        """A stable identifier of the vector space (model plus anything changing document vectors)."""
        ...

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        """Embed tool texts; one unit row per text, in order.

        Raises:
            EmbeddingError: The backend failed or returned malformed vectors.
        """
        ...

    def embed_query(self, text: str) -> Vectors:
        """Embed one search query as a unit vector.

        Raises:
            EmbeddingError: The backend failed or returned a malformed vector.
        """
        ...


def normalize_rows(matrix: object, *, expected_rows: int, source: str) -> Vectors:
    """Check a backend's raw vectors and scale every row to unit length.

    Args:
        matrix: The raw embeddings, one row per input text.
        expected_rows: How many rows the backend should have returned.
        source: The backend's name, for error messages.

    Raises:
        EmbeddingError: The shape is wrong, a value is not finite, or a row is all zeros.
    """
    try:
        array = np.asarray(matrix, dtype=np.float32)
    except (TypeError, ValueError):
        raise EmbeddingError(f"{source} returned embeddings that are not numeric arrays of equal length") from None
    if array.ndim != 2 or array.shape[0] != expected_rows or array.shape[1] == 0:
        raise EmbeddingError(f"{source} returned embeddings of shape {array.shape}, expected ({expected_rows}, dim)")
    if not np.isfinite(array).all():
        raise EmbeddingError(f"{source} returned an embedding with NaN or infinite values")
    norms = np.linalg.norm(array, axis=1, keepdims=True)
    if (norms == 0).any():
        raise EmbeddingError(f"{source} returned an all-zero embedding, which has no direction to compare")
    normalized: Vectors = (array / norms).astype(np.float32, copy=False)
    return normalized
