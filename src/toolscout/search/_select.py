"""Which engine serves ``tool_search``: the configured mode resolved against what is installed."""

from __future__ import annotations

from typing import Literal, TypeAlias

from ._background import BackgroundHybrid
from ._base import IndexBuilder
from ._engines import resolve_backend
from ._index import build_index
from .embeddings._settings import EmbeddingSettings

__all__ = ["ConfiguredMode", "resolve_search_mode", "search_engine"]

ConfiguredMode: TypeAlias = Literal["auto", "lexical", "hybrid"]
"""``auto``: hybrid when an embedding backend is installed, else lexical."""


def resolve_search_mode(mode: ConfiguredMode, embeddings: EmbeddingSettings) -> Literal["lexical", "hybrid"]:
    """The engine `mode` means here: ``auto`` is hybrid only when the configured backend is installed."""
    if mode == "auto":
        return "lexical" if resolve_backend(embeddings) is None else "hybrid"
    return mode


def search_engine(mode: ConfiguredMode, embeddings: EmbeddingSettings) -> IndexBuilder:
    """The index builder for `mode`: lexical, or lexical now and hybrid once embeddings are computed."""
    if resolve_search_mode(mode, embeddings) == "hybrid":
        return BackgroundHybrid(embeddings)
    return build_index
