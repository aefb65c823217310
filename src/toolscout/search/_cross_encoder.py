"""The ``cross-encoder`` reranker: `CrossEncoderReranker` over the ONNX file ``search_rerank.model`` names.

One loaded model per file, shared by every `ToolScout` that names it.
"""

from __future__ import annotations

import functools
from pathlib import Path

from .._errors import ConfigError
from .._search_settings import RerankSettings
from ._rerank import register_reranker
from .embeddings._internal import CrossEncoderReranker

__all__: list[str] = []


@functools.cache
def _shared(model: str) -> CrossEncoderReranker:
    return CrossEncoderReranker(model)


def _cross_encoder(settings: RerankSettings) -> CrossEncoderReranker:
    if settings.model is None:
        raise ConfigError(
            "the cross-encoder reranker needs a model file: set search_rerank.model to a model.onnx that "
            "'python -m train cross' exported",
            key="search_rerank.model",
        )
    return _shared(str(Path(settings.model).expanduser().resolve()))


register_reranker("cross-encoder", _cross_encoder)
