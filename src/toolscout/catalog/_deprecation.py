"""Whether a tool declares itself deprecated, and which tool it names instead.

A tool says so in its description or title (``DEPRECATED: Use read_text_file instead.``, ``(Deprecated)``),
in its MCP annotations or in its ``_meta`` (a ``deprecated`` key: true, or a message; a ``replacedBy`` key).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from ._catalog import Catalog
from ._spec import NAMESPACE_SEPARATOR, ToolSpec

__all__ = ["Deprecation"]

_MARKERS = (
    re.compile(r"\bDEPRECATED\b"),
    re.compile(r"(?i)\bdeprecated\s*[:!]"),
    re.compile(r"(?i)[(\[]\s*deprecated\s*[)\]]"),
    re.compile(r"(?i)^\s*deprecated\s*[.,;\-\u2013\u2014]"),
    re.compile(r"(?i)\b(?:this|the) tool is (?:now )?deprecated\b"),
)
"""What marks a description or title as deprecated; a tool that merely handles deprecated things is not."""
_WORD = "deprecated"
_NAME = r"[`'\"]?([A-Za-z0-9][\w.\-]*?)[`'\"]?"
_REPLACEMENTS = (
    re.compile(rf"(?i)\buse\s+(?:the\s+)?{_NAME}(?:\s+tool)?\s+instead\b"),
    re.compile(rf"(?i)\b(?:replaced|superseded)\s+by\s+(?:the\s+)?{_NAME}(?:\s+tool)?\b"),
)
"""Where a deprecation message names the tool to use instead (the first group)."""
_FLAG_KEYS = frozenset({"deprecated", "isdeprecated"})
_REPLACEMENT_KEYS = frozenset({"replacedby", "replaced_by", "replacement", "supersededby", "superseded_by"})
"""The keys of annotations and ``_meta`` that carry the fact (any case; a vendor prefix ``x/`` is ignored)."""


@dataclass(frozen=True, slots=True)
class Deprecation:
    """A tool's own statement that it is deprecated."""

    replacement: str | None = None
    """The catalog name of the tool to use instead, when the tool names one that the catalog holds."""

    @classmethod
    def of(cls, tool: ToolSpec, catalog: Catalog) -> Deprecation | None:
        """What `tool` declares (None: not deprecated), its replacement looked up in `catalog`."""
        declared = [_declared(fields) for fields in (tool.annotations, tool.meta) if fields]
        texts = [text for text in (tool.title, tool.description) if text]
        # Every marker holds the word (in any case, and no other character matches its letters in any case).
        marked = [text for text in texts if _WORD in text.lower()]
        if not any(flag for flag, _ in declared) and not any(m.search(t) for m in _MARKERS for t in marked):
            return None
        named = [name for _, name in declared] + [_named(text) for text in texts]
        return cls(replacement=next((found for name in named if (found := _resolve(name, tool, catalog))), None))


def _declared(fields: Mapping[str, object]) -> tuple[bool, str | None]:
    """Whether `fields` (annotations or ``_meta``) flag deprecation, and the replacement they name."""
    flag, replacement = False, None
    for key, value in fields.items():
        bare = key.rpartition("/")[2].lower()
        if bare in _FLAG_KEYS and (value is True or (isinstance(value, str) and value.strip())):
            flag = True
            if isinstance(value, str) and replacement is None:
                replacement = _named(value)
        elif bare in _REPLACEMENT_KEYS and isinstance(value, str) and value.strip():
            replacement = value.strip()
    return flag, replacement


def _named(text: str) -> str | None:
    for pattern in _REPLACEMENTS:
        found = pattern.search(text)
        if found:
            return found.group(1).rstrip(".")
    return None


def _resolve(name: str | None, tool: ToolSpec, catalog: Catalog) -> str | None:
    """The catalog tool `name` means from `tool`: itself, or the same namespace's tool of that bare name."""
    if not name:
        return None
    candidates = [name]
    if tool.namespace:
        candidates.insert(0, f"{tool.namespace}{NAMESPACE_SEPARATOR}{name}")
    return next((found for found in candidates if found != tool.name and found in catalog), None)
