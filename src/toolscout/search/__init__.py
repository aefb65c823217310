"""Tool search: the `SearchIndex` interface and toolscout's lexical / regex / hybrid index."""

from .base import IndexBuilder, SearchHit, SearchIndex, SearchMode, SearchResult
from .cache import IndexCache
from .fields import ToolFields, tool_fields
from .fuzzy import FuzzyMatch, FuzzyVocabulary
from .hybrid import FusionMethod, HybridFusion
from .index import DenseRanking, Fusion, IndexConfig, ToolIndex, build_index
from .lexical import LexicalConfig, LexicalIndex, QueryTerms
from .regex import MAX_PATTERN_LENGTH, RegexIndex, compile_pattern
from .semantic import build_hybrid_index
from .synonyms import ACTION_GROUPS, ActionSynonyms
from .tokenize import STOPWORDS, encode_many, stem, tokenize, words

__all__ = [
    "ACTION_GROUPS",
    "MAX_PATTERN_LENGTH",
    "STOPWORDS",
    "ActionSynonyms",
    "DenseRanking",
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
    "QueryTerms",
    "RegexIndex",
    "SearchHit",
    "SearchIndex",
    "SearchMode",
    "SearchResult",
    "ToolFields",
    "ToolIndex",
    "build_hybrid_index",
    "build_index",
    "compile_pattern",
    "encode_many",
    "stem",
    "tokenize",
    "tool_fields",
    "words",
]
