"""Tool search as a pipeline around an engine: exact names, the cut, a reranker, sentence parts, confidence, the engine.

Each plug-in point has its contract in its Protocol: `SearchStage` (a stage of the pipeline, `build_searcher`
assembles them), `QueryExpander`, `SearchIndex` (an engine's index, made by an `EngineFactory`), `Reranker`, and
the `Calibrator` by which the ``confidence`` stage gives hits their confidence; each is registered by name
(`register_stage`, `register_expander`, `register_engine`, `register_reranker`, `register_calibrator`) and chosen by
settings.
"""

from .._search_settings import RerankSettings
from . import _cross_encoder  # noqa: F401  # registers the cross-encoder reranker
from ._background import SearchStatus
from ._base import IndexBuilder, SearchHit, SearchIndex, SearchMode, SearchResult
from ._confidence import Calibrator, CalibratorFactory, HitEvidence, register_calibrator
from ._engines import EngineFactory, EngineOptions, register_engine
from ._expand import ExpandedQuery, ExpanderFactory, ExpansionContext, QueryExpander
from ._expanders import register_expander
from ._index import IndexConfig
from ._pipeline import SearchPipeline, SearchStage, build_searcher, register_stage
from ._rerank import Reranker, RerankerFactory, register_reranker
from .languages import load_language, register_language

__all__ = [
    "build_searcher",
    "Calibrator",
    "CalibratorFactory",
    "EngineFactory",
    "EngineOptions",
    "ExpandedQuery",
    "ExpanderFactory",
    "ExpansionContext",
    "HitEvidence",
    "IndexBuilder",
    "IndexConfig",
    "load_language",
    "QueryExpander",
    "register_calibrator",
    "register_engine",
    "register_expander",
    "register_language",
    "register_reranker",
    "register_stage",
    "Reranker",
    "RerankerFactory",
    "RerankSettings",
    "SearchHit",
    "SearchIndex",
    "SearchMode",
    "SearchPipeline",
    "SearchResult",
    "SearchStage",
    "SearchStatus",
]
