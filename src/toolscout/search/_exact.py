"""Recognise a tool named exactly in a query, however it is written.

Accepted forms: the bare name (any case), quoted or backticked, with a trailing ``()``, and
qualified by its namespace as ``namespace__name``, ``namespace.name``, ``namespace:name`` or
``namespace/name``; a tool whose name carries its namespace as a prefix (``github__create_issue``
in namespace ``github``, as the gateway names them) also answers to its bare name when that looks
like an identifier (``create_issue``, not ``post``). A query that is one such name
(`ExactNames.whole`) is told apart from a name mentioned inside a longer request
(`ExactNames.mentions`), where only identifier-like parts count (``snake_case``, ``camelCase``,
dotted or namespaced): a plain quoted word such as ``'temperature'`` is usually an argument value,
not a tool.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from ..catalog import ToolSpec, bare_name

__all__ = ["ExactNames"]

_SEPARATORS = re.compile(r"__|[.:/]")
_QUOTED = re.compile(r"`([^`\n]{1,256})`|\"([^\"\n]{1,256})\"|'([^'\n]{1,256})'")
_IDENTIFIER_HINT = re.compile(r"[_.:/]|[a-z][A-Z]")
# Whether a query may hold an identifier-like part, without splitting it: a dot counts only when a
# character a tool name may hold follows it (not a sentence's full stop).
_QUERY_HINT = re.compile(r"[_:/]|[a-z][A-Z]|\.[^\s.,;!?'\"`“”‘’]")
_EDGE = "`'\"“”‘’ \t\r\n"


class ExactNames:
    """Every accepted spelling of every tool name, mapped to the tools' positions. Read-only."""

    def __init__(self, tools: Sequence[ToolSpec]) -> None:
        """Index the names (and namespace-qualified names) of `tools`."""
        self._keys: dict[str, list[int]] = {}
        for i, tool in enumerate(tools):
            spellings = {tool.name}
            if tool.namespace:
                spellings.update(f"{tool.namespace}{sep}{tool.name}" for sep in ("__", ".", ":", "/"))
            bare = bare_name(tool.name, tool.namespace)
            if bare and _IDENTIFIER_HINT.search(bare):  # a plain word ("post") stays a keyword
                spellings.add(bare)
            for key in {_key(spelling) for spelling in spellings}:
                self._keys.setdefault(key, []).append(i)

    def find(self, query: str, mask: npt.NDArray[np.bool_] | None = None) -> list[int]:
        """Positions of the tools `query` names: the whole query first, then its parts in order.

        Args:
            query: The search query.
            mask: Only positions where the mask is true are returned.
        """
        found = self.whole(query, mask)
        return found + [i for i in self.mentions(query, mask) if i not in found]

    def whole(self, query: str, mask: npt.NDArray[np.bool_] | None = None) -> list[int]:
        """Positions of the tools the whole of `query` names (one name, quoted or not)."""
        return self._lookup([query], mask)

    def mentions(self, query: str, mask: npt.NDArray[np.bool_] | None = None) -> list[int]:
        """Positions of the tools named by identifier-like parts of a longer `query`, in order of mention."""
        if " " not in query.strip() or not _QUERY_HINT.search(query):
            return []
        parts = [next(g for g in m.groups() if g) for m in _QUOTED.finditer(query)] + query.split()
        return self._lookup([part for part in parts if _looks_like_identifier(part)], mask)

    def _lookup(self, candidates: list[str], mask: npt.NDArray[np.bool_] | None) -> list[int]:
        found: list[int] = []
        for candidate in candidates:
            for i in self._keys.get(_key(candidate), ()):
                if i not in found and (mask is None or mask[i]):
                    found.append(i)
        return found


def _strip(text: str) -> str:
    """Drop surrounding quotes, backticks and sentence punctuation, and a trailing ``()``."""
    text = text.strip(_EDGE).rstrip(",;!?.")
    return text[:-2] if text.endswith("()") else text


def _looks_like_identifier(part: str) -> bool:
    return _IDENTIFIER_HINT.search(_strip(part)) is not None


def _key(text: str) -> str:
    return _SEPARATORS.sub(".", _strip(text).casefold())
