"""`EmbeddingCache`: tool embeddings on disk, keyed by a hash of model id and text."""

from __future__ import annotations

import hashlib
import logging
import os
import threading
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import BinaryIO

import numpy as np
import numpy.typing as npt
import platformdirs

from ..._files import write_atomically
from ._base import Embedder, EmbeddingError, Vectors

__all__ = ["EmbeddingCache", "default_cache_dir"]

logger = logging.getLogger("toolscout.search")

_KEY_BYTES = 16


def default_cache_dir() -> Path:
    """Return ``$TOOLSCOUT_CACHE_DIR``, else the platform's per-user cache directory for toolscout."""
    configured = os.environ.get("TOOLSCOUT_CACHE_DIR")
    if configured:
        return Path(configured).expanduser()
    return Path(platformdirs.user_cache_dir("toolscout", appauthor=False))


class EmbeddingCache:
    """Stores document embeddings on disk so an unchanged tool is embedded only once per model.

    Each model gets one ``.npz`` file under ``<directory>/embeddings/`` holding the vectors and,
    per row, the hash of (model id, text). Writes are atomic (temporary file, then rename); an
    unreadable or corrupt file is ignored and rewritten. A directory that cannot be written only
    costs re-embedding next time, never an error.
    """

    def __init__(self, directory: str | Path | None = None, *, max_entries: int = 200_000) -> None:
        """Use `directory` (default: `default_cache_dir()`), keeping at most `max_entries` vectors per model."""
        self.directory = (Path(directory) if directory is not None else default_cache_dir()) / "embeddings"
        self._max_entries = max_entries
        self._lock = threading.Lock()

    def path_for(self, model_id: str) -> Path:
        """The file holding `model_id`'s vectors."""
        return self.directory / f"{hashlib.sha256(model_id.encode('utf-8')).hexdigest()[:24]}.npz"

    def embed(self, embedder: Embedder, texts: Sequence[str]) -> Vectors:
        """Return one unit row per text, embedding only the texts not cached for this model.

        Raises:
            EmbeddingError: The embedder failed on the texts that were not cached.
        """
        model_id = embedder.model_id
        keys = [_key(model_id, text) for text in texts]
        text_of = dict(zip(keys, texts, strict=True))
        with self._lock:
            cached = self._load(model_id)
            missing = [key for key in text_of if key not in cached]
            if missing:
                fresh = _checked(embedder, [text_of[key] for key in missing])
                if cached and next(iter(cached.values())).shape != fresh.shape[1:]:
                    logger.warning("embedding cache for %s changed dimension; re-embedding every tool", model_id)
                    cached, missing = {}, list(text_of)
                    fresh = _checked(embedder, list(text_of.values()))
                cached.update(zip(missing, fresh, strict=True))
                self._store(model_id, cached, keep=set(keys))
        if not keys:
            return np.zeros((0, 0), dtype=np.float32)
        return np.stack([cached[key] for key in keys]).astype(np.float32, copy=False)

    def _load(self, model_id: str) -> dict[bytes, Vectors]:
        path = self.path_for(model_id)
        try:
            with np.load(path, allow_pickle=False) as archive:
                keys: npt.NDArray[np.uint8] = archive["keys"]
                vectors: Vectors = archive["vectors"]
        except FileNotFoundError:
            return {}
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
            logger.warning("ignoring unreadable embedding cache %s; it will be rebuilt", path)
            return {}
        if vectors.ndim != 2 or keys.shape != (vectors.shape[0], _KEY_BYTES) or vectors.dtype != np.float32:
            logger.warning("ignoring malformed embedding cache %s; it will be rebuilt", path)
            return {}
        return {key.tobytes(): row for key, row in zip(keys, vectors, strict=True)}

    def _store(self, model_id: str, entries: dict[bytes, Vectors], *, keep: set[bytes]) -> None:
        # Entries of the current catalog always stay; older ones fill the file up to the cap.
        others = [key for key in entries if key not in keep][: max(0, self._max_entries - len(keep))]
        ordered = [key for key in entries if key in keep] + others
        path = self.path_for(model_id)

        def write(file: BinaryIO) -> None:
            np.savez(
                file,
                keys=np.frombuffer(b"".join(ordered), dtype=np.uint8).reshape(-1, _KEY_BYTES),
                vectors=np.stack([entries[key] for key in ordered]).astype(np.float32),
            )

        try:
            write_atomically(path, write)
        except OSError:
            logger.warning("cannot write embedding cache %s; embeddings will be recomputed next time", path)


def _checked(embedder: Embedder, texts: list[str]) -> Vectors:
    vectors = embedder.embed_documents(texts)
    if vectors.ndim != 2 or vectors.shape[0] != len(texts):
        raise EmbeddingError(f"{embedder.model_id} returned {vectors.shape[0]} vectors for {len(texts)} texts")
    return vectors


def _key(model_id: str, text: str) -> bytes:
    return hashlib.sha256(f"{model_id}\0{text}".encode()).digest()[:_KEY_BYTES]
