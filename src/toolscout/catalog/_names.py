"""Tool names as the model writes them: any case, quoted or backticked, with or without the namespace.

A name resolves by its *key*: case folded, surrounding quotes, backticks and a trailing ``()``
dropped, and the namespace separators ``__``, ``.``, ``:`` and ``/`` read alike. Each tool answers
to its full name and to ``namespace<sep>name``; a tool whose name carries its namespace as a
prefix (``time__get_current_time`` in namespace ``time``, as the gateway names them) also answers
to the bare name (``get_current_time``). A full spelling wins over a bare one; a bare name that
several namespaces share resolves to all of them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence, Set
from dataclasses import dataclass
from functools import lru_cache

from ._catalog import Catalog

__all__ = ["NameMatch", "ToolNames", "bare_name"]

_SEPARATORS = re.compile(r"__|[.:/]")
_PREFIX_SEPARATORS = "_.:/-"
_EDGE = "`'\"“”‘’ \t\r\n"
_SPACE = re.compile(r"\s")  # `str.isspace`'s characters
_IDENTIFIER = re.compile(r"[_.:/\-0-9]|[a-z][A-Z]")
# Inside a longer request, digits and hyphens alone do not make a part a name ("7z", "e-mail" are prose there):
# ``[_.:/]|[a-z][A-Z]``, written to start with one character class, so the regex engine skips to its characters.
_MENTION = re.compile(r"[_.:/A-Z](?:(?<=[_.:/])|(?<=[a-z][A-Z]))")
_QUOTED = re.compile(r"`([^`\n]{1,256})`|\"([^\"\n]{1,256})\"|'([^'\n]{1,256})'")
# Whether a query may hold an identifier-like part, without splitting it: a dot counts only when a
# character a tool name may hold follows it (not a sentence's full stop). ``[_:/]|[a-z][A-Z]|\.[^\s.,;!?'"`“”‘’]``,
# starting with one character class as `_MENTION` does.
_QUERY_HINT = re.compile(r"[_:/.A-Z](?:(?<=[_:/])|(?<=[a-z][A-Z])|(?<=\.)(?=[^\s.,;!?'\"`“”‘’]))")


@dataclass(frozen=True, slots=True)
class NameMatch:
    """The tools one written name stands for."""

    names: tuple[str, ...]
    """The tools' full names, in catalog order."""
    bare: bool
    """True when only the bare (namespace-less) spelling matched."""


class ToolNames:
    """Every accepted spelling of a catalog's tool names. Read-only; build with `ToolNames.of`."""

    def __init__(self, catalog: Catalog) -> None:
        """Index the names of `catalog` (prefer the cached `ToolNames.of`)."""
        self._full: dict[str, list[str]] = {}
        self._bare: dict[str, list[str]] = {}
        for tool in catalog:
            bare = bare_name(tool.name, tool.namespace)
            spellings = {tool.name}
            if tool.namespace:
                spellings.add(f"{tool.namespace}.{bare or tool.name}")
            for key in {_key(spelling) for spelling in spellings}:
                self._full.setdefault(key, []).append(tool.name)
            if bare:
                self._bare.setdefault(_key(bare), []).append(tool.name)

    @staticmethod
    def of(catalog: Catalog) -> ToolNames:
        """The (cached) name index of `catalog`."""
        return _cached(catalog)

    def match(self, written: str, allowed: Set[str] | None = None) -> NameMatch | None:
        """The tools `written` names (only those in `allowed`, when given), or None."""
        key = _key(_strip(written))
        if not key:
            return None
        found = _within(self._full.get(key, ()), allowed)
        if found:
            return NameMatch(found, bare=False)
        found = _within(self._bare.get(key, ()), allowed)
        return NameMatch(found, bare=True) if found else None

    def query_match(self, query: str, allowed: Set[str] | None = None) -> NameMatch | None:
        """The tools a whole search query names exactly (only those in `allowed`, when given), or None.

        A bare name counts only when it looks like an identifier (``get_current_time``, not
        ``add``): a plain word is a keyword, even if some server has a tool called that.
        """
        text = _strip(query)
        if not text or _SPACE.search(text):
            return None
        found = self.match(text, allowed)
        if found is None or (found.bare and not _IDENTIFIER.search(text)):
            return None
        return found

    def mentions(self, query: str, allowed: Set[str] | None = None) -> tuple[str, ...]:
        """The tools named by identifier-like parts of a longer `query` (in `allowed`, when given), in order of mention.

        Only identifier-like parts count (``snake_case``, ``camelCase``, dotted or namespaced, quoted or not): a
        plain quoted word such as ``'temperature'`` is usually an argument value, not a tool, and "7z" or "e-mail"
        in prose are words.
        """
        if " " not in query.strip() or not _QUERY_HINT.search(query):
            return ()
        parts = [next(group for group in found.groups() if group) for found in _QUOTED.finditer(query)]
        found: dict[str, None] = {}
        # Stripping only shortens a part: one without a mark before cannot have one after.
        for part in filter(_MENTION.search, (*parts, *query.split())):
            text = _strip(part)
            if text and _MENTION.search(text):
                named = self.match(text, allowed)
                found.update(dict.fromkeys(named.names if named is not None else ()))
        return tuple(found)


def bare_name(name: str, namespace: str | None) -> str | None:
    """`name` without its ``namespace<sep>`` prefix (``time__get_time`` -> ``get_time``), when it has one."""
    if not namespace or len(name) <= len(namespace) + 1:
        return None
    if not name.casefold().startswith(namespace.casefold()) or name[len(namespace)] not in _PREFIX_SEPARATORS:
        return None
    return name[len(namespace) :].lstrip(_PREFIX_SEPARATORS) or None


@lru_cache(maxsize=32)
def _cached(catalog: Catalog) -> ToolNames:
    return ToolNames(catalog)


def _within(names: Sequence[str], allowed: Set[str] | None) -> tuple[str, ...]:
    return tuple(names if allowed is None else (name for name in names if name in allowed))


def _strip(text: str) -> str:
    """Drop surrounding quotes, backticks and sentence punctuation, and a trailing ``()``."""
    text = text.strip(_EDGE).rstrip(",;!?.")
    text = text[:-2] if text.endswith("()") else text
    return text.strip(_EDGE)


def _key(text: str) -> str:
    return _SEPARATORS.sub(".", text.casefold())
