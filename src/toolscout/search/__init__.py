"""Tool search: the `SearchIndex` interface and toolscout's lexical / regex / hybrid index."""

from ._base import IndexBuilder, SearchHit, SearchIndex, SearchMode, SearchResult
from ._cache import IndexCache
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
    "DenseRanking",
    "encode_many",
    "Fusion",
    "FusionMethod",
    "FuzzyMatch",
    "FuzzyVocabulary",
    "HybridFusion",
    "IndexBuilder",
    "IndexCache",
    "IndexConfig",
    "LexicalConfig",
    "LexicalIndex",
    "MAX_PATTERN_LENGTH",
    "QueryTerms",
    "RegexIndex",
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
