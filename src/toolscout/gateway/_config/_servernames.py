"""Server names in a gateway config: what users write, and the namespaces their tools get.

A server may be named anything MCP clients accept ("Ant Design Components", "Café", "日本語").
Its tools are named ``namespace<separator>tool``, and tool names must stay within what model
providers accept (letters, digits, ``_`` and ``-``), so each server gets a namespace:

- a name of 1-64 letters, digits, ``_`` and ``-`` (starting with a letter or digit) is its own
  namespace;
- any other name is folded to ASCII (accents dropped), every run of other characters (and of
  ``-``) becomes one ``-``, and leading or trailing ``-``/``_`` go: "Ant Design Components" → ``Ant-Design-Components``;
- when characters had no ASCII form, the result was empty, or it is longer than 64, the name gets
  ``-`` and the first 8 hex digits of its SHA-256 (after at most 55 characters): "日本語" →
  ``server-<hash>``.

Two servers with the same namespace are an error naming both. Listings (``/healthz``,
``toolscout status``) show the name as written next to the namespace.

Settings refer to servers by name: ``toolscout.scope.servers``, auth grants' ``servers``, and
``server:tool`` patterns. `ServerNames` resolves each reference to the server's namespace, by
its name as written, by its namespace, or loosely the way mcpagent matches them (ignoring case,
``-`` and ``_`` alike). An unknown server is an error naming the closest one.

In the gateway a tool's catalog name is ``namespace<separator>tool``, so ``server:tool`` (the
tool by its own name on that server, as mcpagent writes it) becomes
``namespace:namespace<separator>tool`` in scope patterns (``server:*`` stays a whole namespace)
and ``namespace<separator>tool`` in ``never_defer`` and ``pre_discovered``.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterable, Mapping

from ..._close import did_you_mean
from ..._errors import ConfigError
from ..._settings import ScopeSettings

__all__ = ["ServerNames", "namespace_for"]

_GLOB_CHARS = frozenset("*?[")
_NAMESPACE_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")
_OTHER_RE = re.compile(r"[^A-Za-z0-9_-]+")
_DASHES_RE = re.compile(r"-{2,}")
_MAX_CHARS = 64
_HASH_DIGITS = 8


def namespace_for(name: str) -> str:
    """The namespace of a server named `name` (see the module docs for the rule)."""
    if _NAMESPACE_RE.fullmatch(name):
        return name
    folded: list[str] = []
    lost = False
    for char in unicodedata.normalize("NFKD", name):
        if char.isascii():
            folded.append(char)
        elif not unicodedata.combining(char):
            lost = True
    slug = _DASHES_RE.sub("-", _OTHER_RE.sub("-", "".join(folded))).strip("-_")
    if slug and not lost and len(slug) <= _MAX_CHARS:
        return slug
    digest = hashlib.sha256(name.encode("utf-8")).hexdigest()[:_HASH_DIGITS]
    return f"{(slug or 'server')[: _MAX_CHARS - _HASH_DIGITS - 1].rstrip('-_')}-{digest}"


def _loose(name: str) -> str:
    return name.casefold().replace("-", "_")


class ServerNames:
    """Resolves server references of one config to namespaces."""

    def __init__(self, namespaces: Mapping[str, str], *, separator: str) -> None:
        """Index `namespaces` (server name as written → namespace)."""
        self.separator = separator
        self._exact: dict[str, str] = {**{ns: ns for ns in namespaces.values()}, **namespaces}
        loose: dict[str, set[str]] = {}
        for written, namespace in self._exact.items():
            loose.setdefault(_loose(written), set()).add(namespace)
        self._loose = {key: next(iter(found)) for key, found in loose.items() if len(found) == 1}
        self._written = list(namespaces)

    def namespace(self, reference: str, *, key: str) -> str:
        """The namespace of the server `reference` names.

        Raises:
            ConfigError: No server has that name (the closest one is suggested).
        """
        found = self._exact.get(reference) or self._loose.get(_loose(reference))
        if found is not None:
            return found
        close = did_you_mean(reference, self._written)
        hint = f"did you mean {close!r}?" if close is not None else f"use one of: {', '.join(self._written)}"
        raise ConfigError(f"unknown server {reference!r}; {hint}", key=key)

    def pattern(self, pattern: str, *, key: str) -> str:
        """`pattern` with a ``server:tool`` form rewritten to the catalog's names (others unchanged).

        Raises:
            ConfigError: The part before ``:`` names no server (and is no glob).
        """
        server, colon, tool = pattern.partition(":")
        if not colon or not server or not tool or _GLOB_CHARS.intersection(server):
            return pattern
        namespace = self.namespace(server, key=key)
        prefix = namespace + self.separator
        if tool == "*" or tool.startswith(prefix):
            return f"{namespace}:{tool}"
        return f"{namespace}:{prefix}{tool}"

    def tool_name(self, reference: str, *, key: str) -> str:
        """The catalog name (or name glob) of a tool written ``server:tool``; other names unchanged.

        Raises:
            ConfigError: The part before ``:`` names no server (and is no glob).
        """
        server, colon, tool = reference.partition(":")
        if not colon or not server or not tool or _GLOB_CHARS.intersection(server):
            return reference
        return f"{self.namespace(server, key=key)}{self.separator}{tool}"

    def tool_names(self, references: Iterable[str], *, key: str) -> tuple[str, ...]:
        """Every reference through `tool_name`."""
        return tuple(self.tool_name(item, key=f"{key}[{index}]") for index, item in enumerate(references))

    def scope(self, settings: ScopeSettings, *, key: str) -> ScopeSettings:
        """`settings` with every server reference resolved (see `namespace` and `pattern`)."""
        return ScopeSettings(
            servers=self.namespaces(settings.servers, key=f"{key}.servers"),
            tools=self.patterns(settings.tools, key=f"{key}.tools"),
            deny=self.patterns(settings.deny, key=f"{key}.deny") or (),
        )

    def namespaces(self, references: Iterable[str] | None, *, key: str) -> tuple[str, ...] | None:
        """Every reference resolved (None stays None)."""
        if references is None:
            return None
        return tuple(self.namespace(item, key=f"{key}[{index}]") for index, item in enumerate(references))

    def patterns(self, patterns: Iterable[str] | None, *, key: str) -> tuple[str, ...] | None:
        """Every pattern rewritten (None stays None)."""
        if patterns is None:
            return None
        return tuple(self.pattern(item, key=f"{key}[{index}]") for index, item in enumerate(patterns))
