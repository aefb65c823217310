"""Tool search: the `SearchIndex` interface and toolscout's lexical / regex / hybrid index."""

from .base import IndexBuilder, SearchHit, SearchIndex, SearchMode, SearchResult
from .cache import IndexCache
from .fields import ToolFields, tool_fields
from .fuzzy import FuzzyMatch, FuzzyVocabulary
from .index import DenseRanker, Fusion, IndexConfig, ToolIndex, build_index, reciprocal_rank_fusion
from .lexical import LexicalConfig, LexicalIndex, QueryTerms
from .regex import MAX_PATTERN_LENGTH, RegexIndex, compile_pattern
from .tokenize import STOPWORDS, stem, tokenize, tokenize_many, words

__all__ = [
    "MAX_PATTERN_LENGTH",
    "STOPWORDS",
    "DenseRanker",
    "Fusion",
    "FuzzyMatch",
    "FuzzyVocabulary",
    "IndexBuilder",
    "IndexCache",
    "IndexConfig",
    "LexicalConfig",
    "LexicalIndex",
    "QueryTerms",
    "RegexIndex",
    "SearchHit",
    "SearchIndex",
    "SearchMode",
    "SearchResult",
    "ToolFields",
    "ToolIndex",
    "build_index",
    "compile_pattern",
    "reciprocal_rank_fusion",
    "stem",
    "tokenize",
    "tokenize_many",
    "tool_fields",
    "words",
]
