"""The private face of `toolscout.search`: what the rest of toolscout uses of it and users do not.

Users import from `toolscout.search` (its `__all__`, pinned by `tests/public_api.json`). Other toolscout
packages, the tests and the benchmarks import these names from here: the one private module of a
package that code outside it may import (docs/ARCHITECTURE.md, "Rules"). `tests/internal_api.json`
pins this list, which may only shrink.
"""

from .._search_settings import DEFAULT_EXPANDERS
from ._background import HybridIndex
from ._cache import IndexCache
from ._confidence import LogisticCalibrator, get_calibrator
from ._engines import engine_names, engine_query_mode, get_engine
from ._evaluation import EvalReport, LabelledQuery, QueryFileError, evaluate, load_labelled_queries, load_queries
from ._fields import FIELD_NAMES, tool_fields
from ._hybrid import HybridFusion
from ._index import build_index
from ._regex import MAX_PATTERN_LENGTH, PatternError, RegexIndex
from ._select import request_mode, resolve_search_mode
from ._synonyms import ActionSynonyms
from ._tokenize import tokenize, words

__all__ = [
    "ActionSynonyms",
    "build_index",
    "DEFAULT_EXPANDERS",
    "engine_names",
    "engine_query_mode",
    "EvalReport",
    "evaluate",
    "FIELD_NAMES",
    "get_calibrator",
    "get_engine",
    "HybridFusion",
    "HybridIndex",
    "IndexCache",
    "LabelledQuery",
    "load_labelled_queries",
    "load_queries",
    "LogisticCalibrator",
    "MAX_PATTERN_LENGTH",
    "PatternError",
    "QueryFileError",
    "RegexIndex",
    "request_mode",
    "resolve_search_mode",
    "tokenize",
    "tool_fields",
    "words",
]
