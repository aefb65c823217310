"""The tools of a catalog a ``tool_search`` pattern matches, for filtering a keyword search by it.

Matching is the regex search's (`RegexIndex` of `search/_regex.py`: RE2, case-insensitive, over each
tool's name, description and parameter texts); the texts are gathered once per catalog.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..catalog import Catalog
from ..search._internal import RegexIndex, tool_fields

__all__ = ["pattern_matches"]


def pattern_matches(pattern: str, catalog: Catalog) -> frozenset[str]:
    """Names of the tools of `catalog` that `pattern` matches anywhere in their texts.

    Raises:
        SearchError: The pattern is empty or too long.
        PatternError: The pattern does not compile.
    """
    scores = _texts(catalog).scores(pattern, np.arange(len(catalog), dtype=np.int64))
    return frozenset(catalog.tools[i].name for i in np.flatnonzero(scores > 0).tolist())


@lru_cache(maxsize=32)
def _texts(catalog: Catalog) -> RegexIndex:
    return RegexIndex([tool_fields(tool) for tool in catalog])
