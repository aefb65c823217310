"""The schema-stubs flow (everruns): stubs first, tool_search loads full schemas, the next turn carries them."""

from __future__ import annotations

import json

from toolscout import ScoutSettings, ToolScout

calls: list[str] = []


def get_weather(city: str) -> str:
    """Current weather for a city."""
    calls.append(city)
    return f"{city}: sunny"


CRM = [
    {
        "name": f"crm__op_{i}",
        "description": f"CRM operation {i}",
        "parameters": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]},
    }
    for i in range(40)
]


def stub_session(session_id: str):
    settings = ScoutSettings(mode="on", style="reveal", reveal_stubs=True)
    return ToolScout([get_weather, *CRM], settings=settings).session(session_id)


def schema_of(session, name: str) -> dict[str, object]:
    return next(tool.parameters for tool in session.assemble().tools if tool.name == name)


def test_the_first_turn_sends_stubs_without_parameters() -> None:
    session = stub_session("first")
    assert schema_of(session, "get_weather") == {"type": "object", "properties": {}}


def test_a_search_returns_the_full_schema_of_a_stub_and_reveals_it() -> None:
    session = stub_session("search")
    outcome = session.dispatch_sync("tool_search", {"query": "weather in a city"})
    (entry,) = [tool for tool in outcome.content["tools"] if tool["name"] == "get_weather"]
    assert entry["parameters"]["required"] == ["city"]
    assert "listed" not in entry
    assert outcome.revealed == ("get_weather",)


def test_from_the_next_turn_a_revealed_stub_carries_its_full_schema_once() -> None:
    session = stub_session("next")
    session.dispatch_sync("tool_search", {"query": "weather in a city"})
    turn = session.assemble()
    assert [tool.name for tool in turn.tools].count("get_weather") == 1
    assert schema_of(session, "get_weather")["required"] == ["city"]


def test_a_stub_called_before_its_schema_was_loaded_is_checked_against_the_real_schema() -> None:
    session = stub_session("early")
    refused = session.dispatch_sync("get_weather", {"town": "Oslo"})
    assert refused.error is not None and refused.error.code == "invalid_arguments"
    assert json.loads(refused.to_text())["error"]["schema"]["required"] == ["city"]
    assert session.dispatch_sync("get_weather", {"city": "Oslo"}).content == "Oslo: sunny"
