"""The catalog every framework-adapter test uses: one real function among 60 deferrable CRM tools."""

from __future__ import annotations

from typing import Any, Literal

from toolscout import ScoutSettings, ToolScout

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


def weather_scout(*, style: Literal["bridge", "reveal"], reveal_call_tool: bool = False) -> ToolScout:
    """A scout over `get_weather` and the CRM tools, deferral on, in `style`."""
    settings = ScoutSettings(mode="on", style=style, reveal_call_tool=reveal_call_tool)
    return ToolScout([get_weather, *CRM_TOOLS], settings=settings)
