"""Tool search: the `SearchIndex` interface and toolscout's lexical / regex / hybrid index."""

from ._base import IndexBuilder, SearchHit, SearchIndex, SearchMode, SearchResult
from ._cache import IndexCache
from ._engines import (
    EmbedderFactory,
    default_engine,
    embedder_names,
    engine_names,
    get_embedder,
    get_engine,
    register_embedder,
    register_engine,
)
from ._fields import ToolFields, tool_fields
from ._fuzzy import FuzzyMatch, FuzzyVocabulary
from ._hybrid import FusionMethod, HybridFusion
from ._index import DenseRanking, Fusion, IndexConfig, ToolIndex, build_index
from ._lexical import LexicalConfig, LexicalIndex, QueryTerms
from ._regex import MAX_PATTERN_LENGTH, RegexIndex, compile_pattern
from ._semantic import build_hybrid_index
from ._synonyms import ACTION_GROUPS, ActionSynonyms
from ._tokenize import STOPWORDS, encode_many, stem, tokenize, words

__all__ = [
    "ACTION_GROUPS",
    "ActionSynonyms",
    "build_hybrid_index",
    "build_index",
    "compile_pattern",
    "default_engine",
    "DenseRanking",
    "embedder_names",
    "EmbedderFactory",
    "encode_many",
    "engine_names",
    "Fusion",
    "FusionMethod",
    "FuzzyMatch",
    "FuzzyVocabulary",
    "get_embedder",
    "get_engine",
    "HybridFusion",
    "IndexBuilder",
    "IndexCache",
    "IndexConfig",
    "LexicalConfig",
    "LexicalIndex",
    "MAX_PATTERN_LENGTH",
    "QueryTerms",
    "RegexIndex",
    "register_embedder",
    "register_engine",
    "SearchHit",
    "SearchIndex",
    "SearchMode",
    "SearchResult",
    "stem",
    "STOPWORDS",
    "tokenize",
    "tool_fields",
    "ToolFields",
    "ToolIndex",
    "words",
]
