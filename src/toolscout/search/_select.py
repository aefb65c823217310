"""Which engine serves ``tool_search``: the configured ``search_mode`` resolved against the registry."""

from __future__ import annotations

from .._search_settings import EmbeddingSettings, RankingSettings
from .._settings import ScoutSettings
from ._base import IndexBuilder, SearchMode
from ._engines import EngineOptions, engine_query_mode, get_engine
from .embeddings._internal import resolve_backend

__all__ = ["engine_options", "request_mode", "resolve_search_mode", "search_engine"]


def resolve_search_mode(mode: str, embeddings: EmbeddingSettings) -> str:
    """The engine `mode` means here: ``auto`` is ``hybrid`` only when the configured backend is installed.

    Any other mode is a registered engine's name, returned as it is.
    """
    if mode == "auto":
        return "lexical" if resolve_backend(embeddings) is None else "hybrid"
    return mode


def request_mode(mode: str) -> SearchMode:
    """The ``mode`` a request is searched with under ``search_mode`` `mode`.

    ``auto`` searches ``hybrid``, which a lexical index answers lexically.
    """
    return "hybrid" if mode == "auto" else engine_query_mode(mode)


def engine_options(settings: ScoutSettings, *, background: bool = False) -> EngineOptions:
    """The options `settings` build their engine from: the one mapping from settings to an engine.

    Args:
        settings: The settings: ``embeddings``, ``search_engines`` and the ``search_*`` keys the engine reads.
        background: A long-running host (`EngineOptions.background`).
    """
    return EngineOptions(
        embeddings=settings.embeddings,
        ranking=RankingSettings.of(settings),
        background=background,
        engines=settings.search_engines,
    )


def search_engine(mode: str, options: EngineOptions) -> IndexBuilder:
    """The index builder of ``search_mode`` `mode`, made from `options` (``auto`` resolved first).

    Raises:
        ConfigError: No engine is registered under `mode`; the registered modes are listed.
    """
    return get_engine(resolve_search_mode(mode, options.embeddings), options)
