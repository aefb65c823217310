from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import pytest


class WordEmbedder:
    """A deterministic bag-of-words embedder (feature hashing) that records every call."""

    def __init__(self, *, dim: int = 256, model_id: str = "test/word-hash") -> None:
        self.dim = dim
        self.model_id = model_id
        self.document_calls: list[list[str]] = []
        self.query_calls: list[str] = []

    def embed_documents(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        self.document_calls.append(list(texts))
        return np.stack([self._vector(text) for text in texts]) if texts else np.zeros((0, self.dim), np.float32)

    def embed_query(self, text: str) -> npt.NDArray[np.float32]:
        self.query_calls.append(text)
        return self._vector(text)

    def _vector(self, text: str) -> npt.NDArray[np.float32]:
        vector = np.zeros(self.dim, dtype=np.float32)
        for word in re.findall(r"[a-z]+", text.lower()):
            vector[int(hashlib.sha256(word.encode()).hexdigest(), 16) % self.dim] += 1.0
        if not vector.any():
            vector[0] = 1.0
        return vector / np.linalg.norm(vector)


@pytest.fixture
def make_embedder() -> type[WordEmbedder]:
    """The `WordEmbedder` class: call it for a fresh embedder (``make_embedder(dim=8)``)."""
    return WordEmbedder
