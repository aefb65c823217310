"""Tool search as a pipeline around an engine: exact names, sentence parts, a reranker, the cut, then the engine.

Each plug-in point has its contract in its Protocol: `SearchStage` (a stage of the pipeline, `build_searcher`
assembles them), `QueryExpander`, `SearchIndex` (an engine's index, made by an `EngineFactory`), `Reranker`, and
the `Calibrator` that gives the engine's hits their confidence; each is registered by name (`register_stage`,
`register_expander`, `register_engine`, `register_reranker`, `register_calibrator`) and chosen by settings.
"""

from .._search_settings import DEFAULT_EXPANDERS, TOP_BAND, RerankSettings
from . import _cross_encoder  # noqa: F401  # registers the cross-encoder reranker
from ._background import BackgroundHybrid, EmbeddingState, HybridIndex, SearchStatus
from ._base import IndexBuilder, SearchHit, SearchIndex, SearchMode, SearchResult
from ._cache import IndexCache
from ._confidence import (
    Calibrator,
    CalibratorFactory,
    HitEvidence,
    LogisticCalibrator,
    calibrator_names,
    get_calibrator,
    register_calibrator,
)
from ._engines import EngineFactory, EngineOptions, engine_names, engine_query_mode, get_engine, register_engine
from ._evaluation import EvalReport, LabelledQuery, QueryFileError, evaluate, load_labelled_queries, load_queries
from ._expand import ExpandedQuery, ExpanderFactory, ExpansionContext, QueryExpander
from ._expanders import expander_names, get_expander, register_expander
from ._fields import FIELD_NAMES, ToolFields, tool_fields
from ._fuzzy import FuzzyMatch, FuzzyVocabulary
from ._hybrid import FusionMethod, HybridFusion
from ._index import DenseRanking, Fusion, IndexConfig, RequestFusion, ToolIndex, build_index
from ._language import known_share, word_languages
from ._lexical import LexicalConfig, LexicalIndex, QueryTerms
from ._pipeline import SearchPipeline, SearchStage, build_searcher, register_stage
from ._regex import MAX_PATTERN_LENGTH, PatternError, RegexIndex, compile_pattern
from ._rerank import (
    Reranker,
    RerankerFactory,
    get_reranker,
    register_reranker,
    reranker_names,
)
from ._select import request_mode, resolve_search_mode
from ._semantic import build_hybrid_index
from ._synonyms import ActionSynonyms, Translations, synonym_groups
from ._tokenize import encode_many, stem, stopwords, tokenize, words
from .embeddings import (
    CrossEncoderReranker,
    EmbedderFactory,
    embedder_names,
    get_embedder,
    register_embedder,
    resolve_backend,
    shared_embedder,
)
from .languages import Language, languages, load_language, register_language

__all__ = [
    "ActionSynonyms",
    "BackgroundHybrid",
    "build_hybrid_index",
    "build_index",
    "build_searcher",
    "Calibrator",
    "calibrator_names",
    "CalibratorFactory",
    "compile_pattern",
    "CrossEncoderReranker",
    "DEFAULT_EXPANDERS",
    "DenseRanking",
    "embedder_names",
    "EmbedderFactory",
    "EmbeddingState",
    "encode_many",
    "engine_names",
    "engine_query_mode",
    "EngineFactory",
    "EngineOptions",
    "EvalReport",
    "evaluate",
    "ExpandedQuery",
    "expander_names",
    "ExpanderFactory",
    "ExpansionContext",
    "FIELD_NAMES",
    "Fusion",
    "FusionMethod",
    "FuzzyMatch",
    "FuzzyVocabulary",
    "get_calibrator",
    "get_embedder",
    "get_engine",
    "get_expander",
    "get_reranker",
    "HitEvidence",
    "HybridFusion",
    "HybridIndex",
    "IndexBuilder",
    "IndexCache",
    "IndexConfig",
    "known_share",
    "LabelledQuery",
    "Language",
    "languages",
    "LexicalConfig",
    "LexicalIndex",
    "load_labelled_queries",
    "load_language",
    "load_queries",
    "LogisticCalibrator",
    "MAX_PATTERN_LENGTH",
    "PatternError",
    "QueryExpander",
    "QueryFileError",
    "QueryTerms",
    "RegexIndex",
    "register_calibrator",
    "register_embedder",
    "register_engine",
    "register_expander",
    "register_language",
    "register_reranker",
    "register_stage",
    "request_mode",
    "RequestFusion",
    "Reranker",
    "reranker_names",
    "RerankerFactory",
    "RerankSettings",
    "resolve_backend",
    "resolve_search_mode",
    "SearchHit",
    "SearchIndex",
    "SearchMode",
    "SearchPipeline",
    "SearchResult",
    "SearchStage",
    "SearchStatus",
    "shared_embedder",
    "stem",
    "stopwords",
    "synonym_groups",
    "tokenize",
    "tool_fields",
    "ToolFields",
    "ToolIndex",
    "TOP_BAND",
    "Translations",
    "word_languages",
    "words",
]
