"""The pydantic-ai toolset, driven by pydantic-ai's own `FunctionModel` through a real `Agent` run."""

from __future__ import annotations

import json
from typing import Any, cast

import pytest

pytest.importorskip("pydantic_ai", reason="the pydantic-ai extra is not installed")

from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from tests.integrations.catalog import CRM_TOOLS, calls, weather_scout
from toolscout.integrations.pydantic_ai import ScoutToolset


def returns(messages: list[ModelMessage]) -> list[ToolReturnPart]:
    return [part for message in messages for part in message.parts if isinstance(part, ToolReturnPart)]


def scripted(steps: list[tuple[str, dict[str, Any]] | None], seen: list[list[str]]) -> FunctionModel:
    """A model that makes the scripted calls in order, recording the tool names it was offered."""

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append([tool.name for tool in info.function_tools])
        step = steps[len(seen) - 1]
        if step is None:
            return ModelResponse(parts=[TextPart("done")])
        name, arguments = step
        return ModelResponse(parts=[ToolCallPart(name, json.dumps(arguments), tool_call_id=f"c{len(seen)}")])

    return FunctionModel(respond)


def test_bridge_style_searches_then_calls_the_found_tool_through_the_bridge() -> None:
    scout = weather_scout(style="bridge")
    seen: list[list[str]] = []
    model = scripted(
        [
            ("tool_search", {"query": "weather in a city"}),
            ("tool_call", {"name": "get_weather", "arguments": {"city": "Oslo"}}),
            None,
        ],
        seen,
    )
    result = Agent(model, toolsets=[ScoutToolset(scout.session("s1"))]).run_sync("weather in Oslo?")

    assert seen[0] == ["tool_search", "tool_describe", "tool_call"]
    found = returns(result.all_messages())
    assert cast(dict[str, Any], found[0].content)["tools"][0]["name"] == "get_weather"
    assert found[1].content == "Oslo: 21°C, clear"
    assert calls[-1] == {"city": "Oslo"}


def test_reveal_style_offers_a_found_tool_directly_from_the_next_request() -> None:
    scout = weather_scout(style="reveal")
    seen: list[list[str]] = []
    model = scripted([("tool_search", {"query": "weather in a city"}), ("get_weather", {"city": "Rome"}), None], seen)
    result = Agent(model, toolsets=[ScoutToolset(scout.session("s2"))]).run_sync("weather in Rome?")

    assert "get_weather" not in seen[0]
    assert "get_weather" in seen[1]
    assert returns(result.all_messages())[1].content == "Rome: 21°C, clear"


def test_a_refused_call_reaches_the_model_as_a_structured_error_and_the_tool_does_not_run() -> None:
    scout = weather_scout(style="bridge")
    seen: list[list[str]] = []
    model = scripted([("tool_call", {"name": "get_weather", "arguments": {"town": "Oslo"}}), None], seen)
    before = len(calls)
    result = Agent(model, toolsets=[ScoutToolset(scout.session("s3"))]).run_sync("weather?")

    error = json.loads(str(returns(result.all_messages())[0].content))
    assert error["tool_not_run"] is True
    assert error["error"]["code"] == "invalid_arguments"
    assert len(calls) == before


def test_the_guidance_is_sent_as_the_toolsets_instructions() -> None:
    scout = weather_scout(style="bridge")
    instructions: list[str | None] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        instructions.append(info.instructions)
        return ModelResponse(parts=[TextPart("ok")])

    Agent(FunctionModel(respond), toolsets=[ScoutToolset(scout.session("s4"))]).run_sync("hi")
    assert instructions[0] is not None and "tool_search" in instructions[0]
    assert any(f"crm__op_{i}" in instructions[0] for i in range(len(CRM_TOOLS)))
