"""`OpenAICompatibleEmbedder`: any server that speaks OpenAI's `/v1/embeddings` API."""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from types import TracebackType

import httpx2
import numpy as np

from ._base import EmbeddingError, Vectors, normalize_rows

__all__ = ["KNOWN_PREFIXES", "OpenAICompatibleEmbedder", "known_prefixes"]

_RETRIEVAL_INSTRUCTION = "Represent this sentence for searching relevant passages: "

KNOWN_PREFIXES: tuple[tuple[str, str, str], ...] = (
    (r"nomic-embed-text", "search_query: ", "search_document: "),
    (r"(multilingual-e5|(^|[/_:.-])e5-(small|base|large))", "query: ", "passage: "),
    (r"bge-(small|base|large)-en", _RETRIEVAL_INSTRUCTION, ""),
    (r"bge-(small|base|large)-zh", "为这个句子生成表示以用于检索相关文章：", ""),
    (r"mxbai-embed-large", _RETRIEVAL_INSTRUCTION, ""),
    (r"snowflake-arctic-embed.*v2", "query: ", ""),
    (r"snowflake-arctic-embed", _RETRIEVAL_INSTRUCTION, ""),
    (r"qwen3-embedding", "Instruct: Given a user request, retrieve the tool that can fulfil it\nQuery:", ""),
)
"""(model-name pattern, query prefix, document prefix) for models trained with prefixes; first match wins.

Patterns are searched case-insensitively in the model name, so ``nomic-embed-text:v1.5`` and
``nomic-ai/nomic-embed-text-v1.5`` both match.
"""


def known_prefixes(model: str) -> tuple[str, str]:
    """Return the (query prefix, document prefix) a model was trained with, or two empty strings."""
    for pattern, query_prefix, document_prefix in KNOWN_PREFIXES:
        if re.search(pattern, model, flags=re.IGNORECASE):
            return query_prefix, document_prefix
    return "", ""


class OpenAICompatibleEmbedder:
    """Embeds text through an OpenAI-compatible ``/v1/embeddings`` endpoint.

    Works with OpenAI, Ollama, llama.cpp, vLLM, LM Studio, text-embeddings-inference and any other
    server implementing that API. Models trained with query/document prefixes (nomic-embed-text,
    E5, BGE, ...) get them automatically from `KNOWN_PREFIXES` unless prefixes are given.
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        query_prefix: str | None = None,
        document_prefix: str | None = None,
        timeout: float = 30.0,
        batch_size: int = 64,
    ) -> None:
        """Configure the client; nothing is sent until the first embedding call.

        Args:
            base_url: The API root as given to OpenAI SDKs (``http://localhost:11434/v1``), a bare
                server address (``/v1/embeddings`` is appended), or the full embeddings URL.
            model: The model name the server knows.
            api_key: Sent as a bearer token when given.
            query_prefix: Text put before every query; None picks the model's known prefix.
            document_prefix: Text put before every tool text; None picks the model's known prefix.
            timeout: Seconds to wait for each request.
            batch_size: How many texts to send per request.
        """
        known_query, known_document = known_prefixes(model)
        self.url = _embeddings_url(base_url)
        self.model = model
        self.query_prefix = known_query if query_prefix is None else query_prefix
        self.document_prefix = known_document if document_prefix is None else document_prefix
        self._batch_size = max(1, batch_size)
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx2.Client(timeout=timeout, headers=headers)
        self._dim: int | None = None
        self._lock = threading.Lock()

    @property
    def model_id(self) -> str:
        """The model, the endpoint and the document prefix (all three change document vectors)."""
        return f"{self.model} @ {self.url} doc-prefix={self.document_prefix!r}"

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        """Embed tool texts with the document prefix, `batch_size` texts per request.

        Raises:
            EmbeddingError: A request failed or a reply was malformed.
        """
        batches = [
            self._request([self.document_prefix + text for text in texts[start : start + self._batch_size]])
            for start in range(0, len(texts), self._batch_size)
        ]
        if not batches:
            return np.zeros((0, self._dim or 0), dtype=np.float32)
        vectors: Vectors = np.concatenate(batches)
        return vectors

    def embed_query(self, text: str) -> Vectors:
        """Embed one query with the query prefix.

        Raises:
            EmbeddingError: The request failed or the reply was malformed.
        """
        vector: Vectors = self._request([self.query_prefix + text])[0]
        return vector

    def close(self) -> None:
        """Close the HTTP connection pool."""
        self._client.close()

    def __enter__(self) -> OpenAICompatibleEmbedder:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"OpenAICompatibleEmbedder({self.url!r}, {self.model!r})"

    def _request(self, inputs: list[str]) -> Vectors:
        source = f"embedding endpoint {self.url}"
        try:
            response = self._client.post(self.url, json={"model": self.model, "input": inputs})
        except httpx2.HTTPError as exc:
            raise EmbeddingError(f"{source} is unreachable: {exc.__class__.__name__}: {exc}") from exc
        if response.status_code >= 400:
            raise EmbeddingError(f"{source} answered HTTP {response.status_code}: {response.text[:200]}")
        try:
            payload: object = response.json()
        except ValueError:
            raise EmbeddingError(f"{source} answered with invalid JSON: {response.text[:200]!r}") from None
        vectors = normalize_rows(_embeddings_of(payload, source=source), expected_rows=len(inputs), source=source)
        with self._lock:
            if self._dim is None:
                self._dim = vectors.shape[1]
        if vectors.shape[1] != self._dim:
            raise EmbeddingError(f"{source} changed dimension from {self._dim} to {vectors.shape[1]}")
        return vectors


def _embeddings_of(payload: object, *, source: str) -> list[object]:
    """Extract the embeddings from a reply, ordered by their ``index`` field."""
    data = payload.get("data") if isinstance(payload, dict) else None
    if not isinstance(data, list) or not all(isinstance(item, dict) and "embedding" in item for item in data):
        raise EmbeddingError(f"{source} answered without a data list of embeddings")
    ordered = sorted(data, key=lambda item: item.get("index", 0)) if all("index" in item for item in data) else data
    return [item["embedding"] for item in ordered]


def _embeddings_url(base_url: str) -> str:
    url = httpx2.URL(base_url)
    path = url.path.rstrip("/")
    if path.endswith("/embeddings"):
        return str(url)
    return str(url.copy_with(path=(path or "/v1") + "/embeddings"))
