"""The answers of the bridge reads as frozen records, and their one JSON form.

`SearchAnswer` answers a ``tool_search`` query, pattern or browse; `LoadAnswer` answers
``tool_describe`` and a ``tool_search`` with ``names`` (both load tools by name, with one shape).
Dispatch builds them, providers, the gateway and the activity log read their fields, and their
``to_json`` is the only place that writes what the model reads (key order included: the model's
prompt cache and the pinned answers depend on it).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeAlias

from .._slots import slot_setters
from .._types import JsonObject

__all__ = ["BridgeRead", "FoundTool", "LoadAnswer", "NamespaceCount", "SearchAnswer", "ServerNotReady"]


@dataclass(frozen=True, slots=True, kw_only=True)
class FoundTool:
    """One tool an answer lists."""

    name: str
    """The tool's name."""
    namespace: str | None = None
    """Its server or group, if it has one."""
    description: str | None = None
    """Its description as the answer shows it (cut or whole); None in a browse page, which lists names only."""
    listed: bool = False
    """True when the tool is already in this turn's tools array (call it directly)."""
    parameters: JsonObject | None = None
    """Its full JSON Schema, when the answer loads or reveals it."""
    confidence: float | None = None
    """How likely it serves the request, 0 to 1 (a search hit's calibrated confidence); None outside a search."""
    learned: bool = False
    """A search hit that learning from use changed (`SearchHit.learned`); for the activity log, never sent."""

    def to_json(self) -> JsonObject:
        """The entry the model reads."""
        entry: JsonObject = {"name": self.name}
        if self.namespace is not None:
            entry["namespace"] = self.namespace
        if self.description is not None:
            entry["description"] = self.description
        if self.confidence is not None:
            entry["confidence"] = self.confidence
        if self.listed:
            entry["listed"] = True
        if self.parameters is not None:
            entry["parameters"] = self.parameters
        return entry


_NAME, _NAMESPACE, _DESCRIPTION, _LISTED, _PARAMETERS, _CONFIDENCE, _LEARNED = slot_setters(
    FoundTool, "name", "namespace", "description", "listed", "parameters", "confidence", "learned"
)


def search_entry(
    name: str,
    namespace: str | None,
    description: str | None,
    listed: bool,
    parameters: JsonObject | None,
    confidence: float | None,
    learned: bool,
) -> FoundTool:
    """``FoundTool(name=name, ..., learned=learned)``, every field given in order, its slots set directly.

    A search answer makes one per hit (`slot_setters`: half the cost of the generated `__init__`).
    """
    entry: FoundTool = object.__new__(FoundTool)
    _NAME(entry, name)
    _NAMESPACE(entry, namespace)
    _DESCRIPTION(entry, description)
    _LISTED(entry, listed)
    _PARAMETERS(entry, parameters)
    _CONFIDENCE(entry, confidence)
    _LEARNED(entry, learned)
    return entry


@dataclass(frozen=True, slots=True, kw_only=True)
class NamespaceCount:
    """How many tools one namespace holds (listed when a search finds nothing)."""

    name: str
    """The namespace (``general`` for tools without one)."""
    tools: int
    """How many of the session's tools it holds."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ServerNotReady:
    """An upstream whose tools are missing from an answer: still starting, or failed (gateway only)."""

    server: str
    """The upstream's name."""
    state: str
    """Its state (``starting``, ``failed``, ...)."""
    error: str | None = None
    """Why it failed, when it did."""


@dataclass(frozen=True, slots=True, kw_only=True)
class _BridgeReadBase:
    """What every bridge read carries: its tools, its hint, and the gateway's note on upstreams not ready."""

    tools: tuple[FoundTool, ...]
    """The tools the answer lists, in its order."""
    hint: str
    """What the model should do next."""
    servers_not_ready: tuple[ServerNotReady, ...] = ()
    """The caller's upstreams whose tools are missing from this answer (the gateway fills this in)."""
    servers_note: str = ""
    """The gateway's sentence on `servers_not_ready`."""

    @property
    def names(self) -> tuple[str, ...]:
        """The names of `tools`, in order."""
        return tuple(tool.name for tool in self.tools)

    def _servers_json(self, content: JsonObject) -> JsonObject:
        if self.servers_not_ready:
            content["servers_not_ready"] = [_server_json(server) for server in self.servers_not_ready]
            content["servers_note"] = self.servers_note
        return content


@dataclass(frozen=True, slots=True, kw_only=True)
class SearchAnswer(_BridgeReadBase):
    """The answer to a ``tool_search`` query or pattern, or a page of the catalog (no query, no pattern)."""

    query: str
    """The query as given ("" for a pattern alone or a browse page)."""
    pattern: str = ""
    """The regex pattern as given ("" for none)."""
    total: int
    """How many tools match in all (a browse: how many the session has)."""
    offset: int | None = None
    """A browse page: where it starts; None for a search."""
    next_offset: int | None = None
    """The offset of the next page, when there is one."""
    not_revealed: tuple[str, ...] = ()
    """Reveal style: deferred tools found beyond ``search_max_reveal``, not revealed this time."""
    suggestions: tuple[str, ...] | None = None
    """Set when the search found nothing: close words to try (maybe none)."""
    namespaces: tuple[NamespaceCount, ...] | None = None
    """Set when the search found nothing: the session's namespaces and their tool counts."""

    def to_json(self) -> JsonObject:
        """The answer the model reads."""
        content: JsonObject = {"query": self.query}
        if self.pattern:
            content["pattern"] = self.pattern
        content["total"] = self.total
        if self.offset is not None:
            content["offset"] = self.offset
        content["tools"] = [tool.to_json() for tool in self.tools]
        if self.next_offset is not None:
            content["next_offset"] = self.next_offset
        if self.not_revealed:
            content["not_revealed"] = list(self.not_revealed)
        content["hint"] = self.hint
        if self.suggestions is not None:
            content["suggestions"] = list(self.suggestions)
        if self.namespaces is not None:
            content["namespaces"] = [{"name": space.name, "tools": space.tools} for space in self.namespaces]
        return self._servers_json(content)

    def renamed(self, rename: Callable[[str], str]) -> SearchAnswer:
        """The answer with every tool name passed through `rename` (a provider's name map)."""
        return dataclasses.replace(self, tools=_renamed(self.tools, rename))


@dataclass(frozen=True, slots=True, kw_only=True)
class LoadAnswer(_BridgeReadBase):
    """The answer to ``tool_describe``, or ``tool_search`` with ``names``: the named tools with their schemas."""

    already_listed: tuple[str, ...] = ()
    """Named tools already in this turn's tools array (not loaded again)."""
    not_found: tuple[str, ...] = ()
    """Names that are no tool of this session, as written."""
    candidates: tuple[str, ...] = ()
    """Tool names close to `not_found`."""

    def to_json(self) -> JsonObject:
        """The answer the model reads."""
        content: JsonObject = {"tools": [tool.to_json() for tool in self.tools]}
        if self.already_listed:
            content["already_listed"] = list(self.already_listed)
        if self.not_found:
            content["not_found"] = list(self.not_found)
        if self.candidates:
            content["candidates"] = list(self.candidates)
        content["hint"] = self.hint
        return self._servers_json(content)

    def renamed(self, rename: Callable[[str], str]) -> LoadAnswer:
        """The answer with every tool name passed through `rename` (a provider's name map)."""
        return dataclasses.replace(
            self,
            tools=_renamed(self.tools, rename),
            already_listed=tuple(rename(name) for name in self.already_listed),
            candidates=tuple(rename(name) for name in self.candidates),
        )


BridgeRead: TypeAlias = SearchAnswer | LoadAnswer
"""What a bridge read answers with."""


def _renamed(tools: tuple[FoundTool, ...], rename: Callable[[str], str]) -> tuple[FoundTool, ...]:
    return tuple(dataclasses.replace(tool, name=rename(tool.name)) for tool in tools)


def _server_json(server: ServerNotReady) -> JsonObject:
    entry: JsonObject = {"server": server.server, "state": server.state}
    if server.error is not None:
        entry["error"] = server.error
    return entry
