"""`Scope`: which tools one session may see, find, describe and call."""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache

from ._errors import ConfigError
from .catalog import Catalog, ToolSpec

__all__ = ["Scope"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Scope:
    """An allow/deny filter over tools.

    Each pattern is an exact tool name, a glob over the name (``github__*``), or a whole
    namespace written ``namespace:*`` (or ``namespace:glob`` over the names inside it).
    A tool is in scope when `allow` is None or any allow pattern matches, no deny pattern
    matches, and the `base` scope (if any) lets it through too. Out-of-scope tools are never
    listed, found, described or called. The host's core tools are never removed by a scope
    (`ToolScout(core=...)`); pinned tools (``never_defer``) are, since in the gateway they belong
    to upstream servers a token may not reach.
    """

    allow: tuple[str, ...] | None = None
    """Patterns a tool must match (None: everything is allowed)."""
    deny: tuple[str, ...] = ()
    """Patterns that exclude a tool, winning over `allow`."""
    base: Scope | None = None
    """A wider scope this one narrows: a tool must pass both (see `narrowed`)."""
    _allow_re: re.Pattern[str] | None = field(init=False, repr=False, compare=False)
    _deny_re: re.Pattern[str] | None = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for key, patterns in (("allow", self.allow or ()), ("deny", self.deny)):
            if isinstance(patterns, str) or not all(isinstance(p, str) and p for p in patterns):
                raise ConfigError(
                    "must be a list of non-empty name, glob or 'namespace:*' patterns", key=f"scope.{key}"
                )
        object.__setattr__(self, "_allow_re", None if self.allow is None else _compile(tuple(self.allow)))
        object.__setattr__(self, "_deny_re", _compile(tuple(self.deny)) if self.deny else None)

    @classmethod
    def of(cls, allow: Iterable[str] | None = None, deny: Iterable[str] = ()) -> Scope:
        """Build a scope from any iterables of patterns."""
        return cls(allow=None if allow is None else tuple(allow), deny=tuple(deny))

    @classmethod
    def select(
        cls, *, servers: Iterable[str] | None = None, tools: Iterable[str] | None = None, deny: Iterable[str] = ()
    ) -> Scope:
        """The scope of selected servers and tools, by mcpagent's filtering rule.

        Neither given: every tool. Otherwise a tool is in scope when its server (namespace) is
        one of `servers` **or** it matches one of `tools` (names, globs, ``server:tool``,
        ``server:*``): the union of both lists. `deny` removes tools from either.
        """
        if servers is None and tools is None:
            return cls(deny=tuple(deny))
        allow = (*(f"{server}:*" for server in servers or ()), *(tools or ()))
        return cls(allow=allow, deny=tuple(deny))

    @property
    def unrestricted(self) -> bool:
        """True when this scope lets every tool through."""
        return self.allow is None and not self.deny and (self.base is None or self.base.unrestricted)

    def narrowed(self, other: Scope) -> Scope:
        """The scope letting through what both this scope and `other` let through."""
        if other.unrestricted:
            return self
        if self.unrestricted:
            return other
        base = self if other.base is None else other.base.narrowed(self)
        return Scope(allow=other.allow, deny=other.deny, base=base)

    def permits(self, tool: ToolSpec) -> bool:
        """Return True when `tool` is in scope."""
        return self.permits_name(tool.namespace, tool.name)

    def permits_name(self, namespace: str | None, name: str) -> bool:
        """Return True when an entry called `name` in `namespace` (a tool, prompt, resource) is in scope."""
        if self.base is not None and not self.base.permits_name(namespace, name):
            return False
        key = f"{namespace or ''}:{name}"
        if self._deny_re is not None and self._deny_re.match(key):
            return False
        return self._allow_re is None or self._allow_re.match(key) is not None

    def permits_namespace(self, namespace: str) -> bool:
        """Return True when the whole of `namespace` is in scope: what a server offers besides named entries.

        The gateway permits a server's resources so, never by matching patterns against a URI a client
        sends. Only a pattern naming every entry of the namespace (``namespace:*``, what a grant's
        ``servers`` gives, or ``*``) lets it through, and one denies it; a tool name or a narrower glob
        neither grants nor hides it.
        """
        if self.base is not None and not self.base.permits_namespace(namespace):
            return False
        whole = {f"{namespace}:*", "*"}
        if not whole.isdisjoint(self.deny):
            return False
        return self.allow is None or not whole.isdisjoint(self.allow)

    def filter(self, catalog: Catalog, *, keep: frozenset[str] = frozenset()) -> Catalog:
        """Return the in-scope part of `catalog` (the same object when unrestricted).

        Tools named in `keep` (the host's core tools) stay whatever the patterns say.
        """
        if self.unrestricted:
            return catalog
        return Catalog(tool for tool in catalog if tool.name in keep or self.permits(tool))


@lru_cache(maxsize=256)
def _compile(patterns: tuple[str, ...]) -> re.Pattern[str]:
    """Compile patterns into one regex over ``"namespace:name"`` keys."""
    parts: list[str] = []
    for pattern in patterns:
        namespace, sep, name = pattern.partition(":")
        if sep and namespace and name:
            parts.append(re.escape(namespace) + ":" + _glob(name))
        # Every pattern also matches the bare tool name (names may contain ':').
        parts.append("[^:]*:" + _glob(pattern))
    if not parts:
        return re.compile(r"(?!)")
    return re.compile("(?:" + "|".join(parts) + r")\Z", re.DOTALL)


def _glob(pattern: str) -> str:
    translated = fnmatch.translate(pattern)
    # fnmatch.translate wraps the pattern as (?s:...)\Z; keep the inner part only.
    return translated[4:-3] if translated.startswith("(?s:") and translated.endswith(")\\Z") else re.escape(pattern)
