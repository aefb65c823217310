"""The catalog every framework-adapter test uses: one real function among 60 deferrable CRM tools."""

from __future__ import annotations

from collections.abc import Set
from typing import Any, Literal

from toolscout import Catalog, PresearchSettings, ScoutSettings, ToolScout
from toolscout.search import SearchIndex, SearchMode, SearchResult
from toolscout.search._internal import build_index

calls: list[dict[str, Any]] = []
"""Arguments `get_weather` ran with, in order (proof that a call reached the real function)."""

CRM_TOOLS = [
    {
        "name": f"crm__op_{i}",
        "description": f"CRM operation {i}",
        "parameters": {"type": "object", "properties": {"id": {"type": "string"}}},
    }
    for i in range(60)
]


def get_weather(city: str) -> str:
    """Current weather for a city."""
    calls.append({"city": city})
    return f"{city}: 21°C, clear"


WEATHER = "What is the weather in Rome?"
"""A request whose search is confident in `get_weather` (lexical: 0.773, over ``presearch``'s 0.7)."""
UNRELATED = "Tell me a joke about cats"
"""A request whose search finds nothing."""


class CountedIndex:
    """The lexical index of a catalog, writing down each request it searches (in `searched`)."""

    def __init__(self, catalog: Catalog, searched: list[str]) -> None:
        self._index = build_index(catalog)
        self._searched = searched

    @property
    def fingerprint(self) -> str:
        return self._index.fingerprint

    def search(
        self, query: str, *, limit: int = 5, mode: SearchMode = "lexical", allowed: Set[str] | None = None
    ) -> SearchResult:
        self._searched.append(query)
        return self._index.search(query, limit=limit, mode=mode, allowed=allowed)


def weather_scout(
    *,
    style: Literal["bridge", "reveal"],
    reveal_call_tool: bool = False,
    presearch: bool = False,
    searched: list[str] | None = None,
) -> ToolScout:
    """A scout over `get_weather` and the CRM tools, deferral on, in `style` (`presearch`: on, lexical search).

    `searched`: every request the engine searches is appended to it.
    """
    if presearch:
        settings = ScoutSettings(
            mode="on",
            style=style,
            reveal_call_tool=reveal_call_tool,
            search_mode="lexical",
            presearch=PresearchSettings(enabled=True, min_confidence=0.7),
        )
    else:
        settings = ScoutSettings(mode="on", style=style, reveal_call_tool=reveal_call_tool)
    if searched is None:
        return ToolScout([get_weather, *CRM_TOOLS], settings=settings)
    counted: list[str] = searched

    def build(catalog: Catalog) -> SearchIndex:
        return CountedIndex(catalog, counted)

    return ToolScout([get_weather, *CRM_TOOLS], settings=settings, index_builder=build)
