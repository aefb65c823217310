"""The catalog every framework-adapter test uses: one real function among 60 deferrable CRM tools."""

from __future__ import annotations

from typing import Any, Literal

from toolscout import PresearchSettings, ScoutSettings, ToolScout

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


def weather_scout(
    *, style: Literal["bridge", "reveal"], reveal_call_tool: bool = False, presearch: bool = False
) -> ToolScout:
    """A scout over `get_weather` and the CRM tools, deferral on, in `style` (`presearch`: on, lexical search)."""
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
    return ToolScout([get_weather, *CRM_TOOLS], settings=settings)
