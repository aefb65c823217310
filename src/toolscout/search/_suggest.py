"""Nearest tool names for a query that matched nothing (guidance, never padding)."""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from .._close import close_names
from ..catalog import ToolSpec
from ._tokenize import words

__all__ = ["NameSuggester"]

_NOT_WORD = re.compile(r"[\W_]+")


class NameSuggester:
    """The close names (`close_names`) of a query's words among the tools' name words.

    Any likeness counts (a score of 1), and no name comes first for ending with the query. The name
    texts are prepared on the first call, since most indexes never need them.
    """

    def __init__(self, tools: Sequence[ToolSpec]) -> None:
        """Remember the tools whose names may be suggested."""
        self._tools = tools
        self._texts: dict[str, str] | None = None
        self._lock = threading.Lock()

    def suggest(self, query: str, *, limit: int, mask: npt.NDArray[np.bool_] | None = None) -> tuple[str, ...]:
        """Up to `limit` tool names nearest to `query`, best first; only positions where `mask` is true."""
        text = " ".join(words(_NOT_WORD.sub(" ", query)))
        if not text or not self._tools:
            return ()
        every = self._name_texts()
        if mask is None:
            choices = every
        else:
            texts = list(every.values())
            choices = {self._tools[i].name: texts[i] for i in np.flatnonzero(mask).tolist()}
        return close_names(text, choices, limit=limit, min_score=1, endings_first=False)

    def _name_texts(self) -> dict[str, str]:
        """Each tool's name words by its name, in catalog order (made once: a search that matched nothing reads all)."""
        with self._lock:
            if self._texts is None:
                self._texts = {
                    tool.name: " ".join(words(f"{tool.namespace or ''} {tool.name}")) for tool in self._tools
                }
            return self._texts
