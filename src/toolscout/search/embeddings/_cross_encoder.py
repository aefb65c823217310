"""An ONNX cross-encoder reading the request and each candidate tool's text together (the ``cross-encoder`` reranker).

The model file is one ``python -m train cross`` exports (inputs ``input_ids``, ``attention_mask``,
``token_type_ids``; output ``logits``, one per pair) over the all-MiniLM-L6-v2 vocabulary; it is
named by ``search_rerank.model``. Each request is paired with every candidate's `tool_text` (the text
hybrid search embeds), truncated together to `MAX_TOKENS` tokens (the longer side first), and all
pairs run in one padded batch; the logits are the scores. The model runs as stored (int8 weights,
fp32 arithmetic), so a score does not depend on the other candidates beyond float rounding.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ...catalog import ToolSpec
from ._base import EmbeddingError
from ._dense import tool_text

__all__ = ["MAX_TOKENS", "CrossEncoderReranker"]

MAX_TOKENS = 96
"""A request and a tool's text together, in tokens (the length the model was trained at)."""


class CrossEncoderReranker:
    """Scores candidates with an ONNX cross-encoder; thread-safe, loads nothing from the network."""

    def __init__(self, model_path: str | Path, *, threads: int | None = None) -> None:
        """Load the model and the all-MiniLM-L6-v2 tokenizer.

        Raises:
            EmbeddingError: The model file is missing or not a cross-encoder onnxruntime can run, or the
                tokenizer is not installed.
        """
        from tokenizers import Tokenizer

        from ._onnx import default_threads, find_tokenizer
        from ._ort import onnxruntime

        path = Path(model_path)
        if not path.is_file():
            raise EmbeddingError(f"cross-encoder model file not found: {path}")
        self._tokenizer = Tokenizer.from_file(str(find_tokenizer()))
        self._tokenizer.enable_truncation(max_length=MAX_TOKENS, strategy="longest_first")
        self._tokenizer.enable_padding()
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads or default_threads()
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        try:
            self._session = onnxruntime.InferenceSession(
                str(path), sess_options=options, providers=["CPUExecutionProvider"]
            )
        except Exception as exc:  # onnxruntime raises its own exception types for bad files
            raise EmbeddingError(f"onnxruntime cannot load {path}: {exc}") from exc
        outputs = [item.name for item in self._session.get_outputs()]
        if outputs != ["logits"]:
            raise EmbeddingError(f"{path} is not a cross-encoder: its outputs are {outputs}, expected ['logits']")
        self._inputs = {item.name for item in self._session.get_inputs()}
        self._lock = threading.Lock()  # the tokenizer's truncation and padding settings are shared state

    def rerank(self, query: str, candidates: Sequence[ToolSpec]) -> list[float]:
        """One logit per candidate: how well it serves `query`, higher is better."""
        if not candidates:
            return []
        with self._lock:
            encodings = self._tokenizer.encode_batch([(query, tool_text(tool)) for tool in candidates])
        feeds = {
            "input_ids": np.array([e.ids for e in encodings], dtype=np.int64),
            "attention_mask": np.array([e.attention_mask for e in encodings], dtype=np.int64),
            "token_type_ids": np.array([e.type_ids for e in encodings], dtype=np.int64),
        }
        logits = self._session.run(["logits"], {name: feeds[name] for name in self._inputs})[0]
        return [float(value) for value in np.asarray(logits).reshape(-1)]
