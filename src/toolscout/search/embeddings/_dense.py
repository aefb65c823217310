"""`DenseRanker`: cosine ranking of a catalog's tools against a query embedding."""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Set

import numpy as np
import numpy.typing as npt

from ...catalog import Catalog, ToolSpec
from ._base import Embedder, EmbeddingError, Vectors
from ._cache import EmbeddingCache

__all__ = ["DenseRanker", "tool_text"]

RECENT_QUERIES = 64
"""Query vectors a `DenseRanker` remembers (the learned stage reuses the one the engine just computed)."""

_SEPARATORS = re.compile(r"[_\-.:/\\\s]+")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def _words(name: str) -> str:
    return " ".join(part for piece in _SEPARATORS.split(name) for part in _CAMEL.split(piece) if part).lower()


def tool_text(tool: ToolSpec) -> str:
    """The text a tool is embedded as: its name in words, then its description and parameter names.

    The name comes first so it survives the model's length limit; parameter names add the
    nouns a request tends to mention (``city``, ``amount``) when the description is short.
    Adding parameter descriptions too gained under 0.005 hybrid Recall@1 on BFCL for five
    times the embedding time (``bench/tune_hybrid.py``), so they are left out.
    """
    properties = tool.parameters.get("properties")
    parameters = [_words(name) for name in properties] if isinstance(properties, dict) else []
    head = _words(tool.name) if tool.namespace is None else f"{_words(tool.namespace)}: {_words(tool.name)}"
    text = f"{head}. {tool.description.strip()}" if tool.description.strip() else head
    return f"{text} Parameters: {', '.join(parameters)}." if parameters else text


class DenseRanker:
    """Embeds every tool of one catalog once and ranks them by cosine similarity to a query.

    Immutable after construction, so one ranker serves any number of threads. Build it once
    per catalog fingerprint; with an `EmbeddingCache` only new or changed tools are embedded.
    """

    def __init__(
        self,
        catalog: Catalog,
        embedder: Embedder,
        *,
        cache: EmbeddingCache | None = None,
        text: Callable[[ToolSpec], str] = tool_text,
        known_share: Callable[[str], float] | None = None,
    ) -> None:
        """Embed the catalog's tools.

        Args:
            catalog: The tools to rank.
            embedder: The embedding backend; also used for every query.
            cache: Where document vectors are kept between runs; None embeds everything now.
            text: The text each tool is embedded as.
            known_share: The share of a query's words in the languages the embedder knows (None: it knows
                every language); `rank` scales a query's similarities by it.

        Raises:
            EmbeddingError: The embedder failed.
        """
        texts = [text(tool) for tool in catalog]
        matrix = cache.embed(embedder, texts) if cache is not None else embedder.embed_documents(texts)
        if matrix.shape[0] != len(texts):
            raise EmbeddingError(f"{embedder.model_id} returned {matrix.shape[0]} vectors for {len(texts)} tools")
        self.fingerprint = catalog.fingerprint
        self.embedder = embedder
        self.names: tuple[str, ...] = tuple(tool.name for tool in catalog)
        self._rows = {name: row for row, name in enumerate(self.names)}
        self._matrix: Vectors = np.ascontiguousarray(matrix, dtype=np.float32)
        self._matrix.setflags(write=False)
        self.known_share = known_share
        self._recent: OrderedDict[str, Vectors] = OrderedDict()
        self._recent_lock = threading.Lock()

    def query_vector(self, query: str) -> Vectors:
        """`query` embedded, remembered for the `RECENT_QUERIES` latest queries (a later stage reuses it).

        Raises:
            EmbeddingError: The embedder failed on the query.
        """
        with self._recent_lock:
            vector = self._recent.get(query)
            if vector is not None:
                self._recent.move_to_end(query)
                return vector
        vector = self.embedder.embed_query(query)
        with self._recent_lock:
            self._recent[query] = vector
            while len(self._recent) > RECENT_QUERIES:
                self._recent.popitem(last=False)
        return vector

    def similarities(self, query: str) -> npt.NDArray[np.float32]:
        """Cosine similarity of `query` to every tool, in catalog order.

        Raises:
            EmbeddingError: The embedder failed on the query.
        """
        if not self.names:
            return np.zeros(0, dtype=np.float32)
        vector = self.query_vector(query)
        if vector.shape != (self._matrix.shape[1],):
            raise EmbeddingError(
                f"{self.embedder.model_id} returned a query vector of shape {vector.shape}, "
                f"expected ({self._matrix.shape[1]},)"
            )
        scores: npt.NDArray[np.float32] = self._matrix @ vector
        return scores

    def rank(self, query: str, allowed: Set[str] | None = None, *, limit: int = 50) -> list[tuple[str, float]]:
        """Return up to `limit` (name, similarity) pairs, best first, drawn only from `allowed` when given.

        The similarity is the cosine times the share of the query's words in the embedder's languages.

        Raises:
            EmbeddingError: The embedder failed on the query.
        """
        share = self.known_share(query) if self.known_share is not None else 1.0
        if share == 0.0:
            return []
        scores = self.similarities(query) * np.float32(share)
        rows = self.rows(allowed)
        if rows.size == 0 or limit <= 0:
            return []
        candidate = scores[rows]
        if candidate.size > limit:
            top = np.argpartition(-candidate, limit - 1)[:limit]
            rows, candidate = rows[top], candidate[top]
        order = np.lexsort((rows, -candidate))
        names = self.names  # Python numbers, read at once: numpy scalars one by one cost more than the ranking
        return [(names[row], score) for row, score in zip(rows[order].tolist(), candidate[order].tolist(), strict=True)]

    def rows(self, allowed: Set[str] | None) -> npt.NDArray[np.intp]:
        """The catalog rows of the `allowed` tools (every row when None), ascending."""
        if allowed is None:
            return np.arange(len(self.names), dtype=np.intp)
        return np.array(sorted(self._rows[name] for name in allowed if name in self._rows), dtype=np.intp)
