"""Tool search: the `SearchIndex` interface and toolscout's lexical / regex / hybrid index."""

from ._background import BackgroundHybrid, EmbeddingState, HybridIndex, SearchStatus
from ._base import IndexBuilder, SearchHit, SearchIndex, SearchMode, SearchResult
from ._cache import IndexCache
from ._engines import (
    EmbedderFactory,
    embedder_names,
    engine_names,
    get_embedder,
    get_engine,
    register_embedder,
    register_engine,
    resolve_backend,
    shared_embedder,
)
from ._fields import ToolFields, tool_fields
from ._fuzzy import FuzzyMatch, FuzzyVocabulary
from ._hybrid import FusionMethod, HybridFusion
from ._index import DenseRanking, Fusion, IndexConfig, ToolIndex, build_index
from ._lexical import LexicalConfig, LexicalIndex, QueryTerms
from ._regex import MAX_PATTERN_LENGTH, PatternError, RegexIndex, compile_pattern
from ._select import ConfiguredMode, resolve_search_mode, search_engine
from ._semantic import build_hybrid_index
from ._synonyms import ACTION_GROUPS, OBJECT_GROUPS, ActionSynonyms
from ._tokenize import STOPWORDS, encode_many, stem, tokenize, words

__all__ = [
    "ACTION_GROUPS",
    "ActionSynonyms",
    "BackgroundHybrid",
    "build_hybrid_index",
    "build_index",
    "compile_pattern",
    "ConfiguredMode",
    "DenseRanking",
    "embedder_names",
    "EmbedderFactory",
    "EmbeddingState",
    "encode_many",
    "engine_names",
    "Fusion",
    "FusionMethod",
    "FuzzyMatch",
    "FuzzyVocabulary",
    "get_embedder",
    "get_engine",
    "HybridFusion",
    "HybridIndex",
    "IndexBuilder",
    "IndexCache",
    "IndexConfig",
    "LexicalConfig",
    "LexicalIndex",
    "MAX_PATTERN_LENGTH",
    "OBJECT_GROUPS",
    "PatternError",
    "QueryTerms",
    "RegexIndex",
    "register_embedder",
    "register_engine",
    "resolve_backend",
    "resolve_search_mode",
    "search_engine",
    "SearchHit",
    "SearchIndex",
    "SearchMode",
    "SearchResult",
    "SearchStatus",
    "shared_embedder",
    "stem",
    "STOPWORDS",
    "tokenize",
    "tool_fields",
    "ToolFields",
    "ToolIndex",
    "words",
]
