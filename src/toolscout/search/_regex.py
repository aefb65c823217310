"""Regex search over tool names and texts, compatible with Anthropic's regex tool search.

Patterns use Python `re` syntax, at most 200 characters (Anthropic's limit), and are matched
case-insensitively (a superset of a case-sensitive match) against each tool's name,
description, parameter names and parameter descriptions. Matching runs on RE2
(`google-re2`), whose linear-time engine cannot backtrack catastrophically, so a pattern
like ``(a+)+$`` is as cheap as any other. RE2 does not support backreferences or
look-around; such patterns are rejected with a clear `SearchError`.

A tool scores 3 for a name match, 2 for a description match and 1 for a parameter match
(summed), so name matches come first.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Protocol

import numpy as np
import numpy.typing as npt
import re2

from .._errors import SearchError
from ._fields import ToolFields

__all__ = ["MAX_PATTERN_LENGTH", "PatternError", "RegexIndex", "compile_pattern"]

MAX_PATTERN_LENGTH = 200
"""Longest accepted pattern, in characters (as Anthropic's regex tool search)."""

_NAME_SCORE, _DESCRIPTION_SCORE, _PARAMETER_SCORE = 3.0, 2.0, 1.0
_MAX_MEMORY = 8 << 20


class PatternError(SearchError):
    """A regex pattern RE2 cannot compile.

    Attributes:
        detail: RE2's description of the problem (e.g. ``missing ): a(``).
    """

    def __init__(self, message: str, *, detail: str) -> None:
        self.detail = detail
        super().__init__(message)


class _Pattern(Protocol):
    def search(self, text: str) -> object | None: ...


@lru_cache(maxsize=256)
def compile_pattern(pattern: str) -> _Pattern:
    """Compile a regex tool-search pattern with RE2.

    Args:
        pattern: A Python-syntax regular expression of at most `MAX_PATTERN_LENGTH` characters.

    Returns:
        The compiled, case-insensitive pattern.

    Raises:
        SearchError: The pattern is empty or too long.
        PatternError: The pattern is invalid or uses a feature RE2 lacks.
    """
    if not pattern:
        raise SearchError("empty regex pattern: give a pattern such as 'weather|forecast'")
    if len(pattern) > MAX_PATTERN_LENGTH:
        raise SearchError(
            f"regex pattern is {len(pattern)} characters long; the limit is {MAX_PATTERN_LENGTH}. "
            "Use a shorter pattern, e.g. a few alternatives joined with '|'"
        )
    options = re2.Options()
    options.case_sensitive = False
    options.log_errors = False
    options.max_mem = _MAX_MEMORY
    try:
        return re2.compile(pattern, options)  # type: ignore[no-any-return]
    except re2.error as exc:
        raw = exc.args[0] if exc.args else b""
        detail = (raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)) or "invalid pattern"
        raise PatternError(
            f"invalid regex pattern {pattern!r}: {detail}. Use Python regex syntax without "
            "backreferences or look-around (e.g. 'get_.*weather')",
            detail=detail,
        ) from None


class RegexIndex:
    """The texts a regex is matched against, one row per tool. Read-only once built."""

    def __init__(self, fields: Sequence[ToolFields]) -> None:
        """Keep the name, description and parameter texts of each tool."""
        self._names = [f.name for f in fields]
        self._descriptions = [f.description for f in fields]
        self._parameters = [f"{f.param_names}\n{f.param_descriptions}" for f in fields]

    def scores(self, pattern: str, candidates: npt.NDArray[np.int64]) -> npt.NDArray[np.float64]:
        """Score the tools at positions `candidates` (0 = no match), in the order given.

        Raises:
            SearchError: The pattern is invalid or too long.
        """
        compiled = compile_pattern(pattern)
        out = np.zeros(len(candidates), dtype=np.float64)
        for row, doc in enumerate(candidates.tolist()):
            score = 0.0
            if compiled.search(self._names[doc]) is not None:
                score += _NAME_SCORE
            if compiled.search(self._descriptions[doc]) is not None:
                score += _DESCRIPTION_SCORE
            if compiled.search(self._parameters[doc]) is not None:
                score += _PARAMETER_SCORE
            out[row] = score
        return out
