"""The OpenAI Agents SDK tools, driven by a scripted `Model` through the SDK's real `Runner`."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("agents", reason="the openai-agents extra is not installed")

from agents import Agent, FunctionTool, Model, ModelResponse, RunConfig, Runner, Usage
from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage, ResponseOutputText

from tests.gateway.conftest import real_servers
from tests.integrations.catalog import calls, weather_scout
from toolscout.integrations.openai_agents import scout_instructions, scout_tools

pytestmark = pytest.mark.anyio


class ScriptedModel(Model):
    """Makes the scripted calls in order; records the enabled tool names and instructions of each request."""

    def __init__(self, steps: list[tuple[str, dict[str, Any]] | None]) -> None:
        self.steps = steps
        self.offered: list[list[str]] = []
        self.instructions: list[str | None] = []
        self.inputs: list[Any] = []

    async def get_response(self, system_instructions, input, model_settings, tools, *args, **kwargs) -> ModelResponse:
        self.offered.append([tool.name for tool in tools if isinstance(tool, FunctionTool)])
        self.instructions.append(system_instructions)
        self.inputs.append(input)
        step = self.steps[len(self.offered) - 1]
        if step is None:
            text = ResponseOutputText(type="output_text", text="done", annotations=[])
            message = ResponseOutputMessage(
                id="m", type="message", role="assistant", status="completed", content=[text]
            )
            return ModelResponse(output=[message], usage=Usage(requests=1), response_id=None)
        name, arguments = step
        call = ResponseFunctionToolCall(
            type="function_call", call_id=f"c{len(self.offered)}", name=name, arguments=json.dumps(arguments)
        )
        return ModelResponse(output=[call], usage=Usage(requests=1), response_id=None)

    def stream_response(self, *args, **kwargs) -> AsyncIterator[Any]:
        raise AssertionError("these tests do not stream")


def outputs(model: ScriptedModel) -> list[str]:
    """The function-call outputs the model was sent back, in order."""
    last = model.inputs[-1]
    return [item["output"] for item in last if isinstance(item, dict) and item.get("type") == "function_call_output"]


async def run(style: str, steps: list[tuple[str, dict[str, Any]] | None]) -> ScriptedModel:
    session = weather_scout(style=style).session(f"agents-{style}-{len(steps)}")  # type: ignore[arg-type]
    model = ScriptedModel(steps)
    agent = Agent(name="assistant", instructions=scout_instructions(session), tools=scout_tools(session), model=model)
    await Runner.run(agent, "what is the weather?", run_config=RunConfig(tracing_disabled=True))
    return model


async def test_bridge_style_searches_then_calls_through_the_bridge() -> None:
    model = await run(
        "bridge",
        [
            ("tool_search", {"query": "weather in a city"}),
            ("tool_call", {"name": "get_weather", "arguments": {"city": "Oslo"}}),
            None,
        ],
    )
    assert model.offered[0] == ["tool_search", "tool_describe", "tool_call"]
    found, result = outputs(model)
    assert json.loads(found)["tools"][0]["name"] == "get_weather"
    assert result == "Oslo: 21°C, clear"
    assert model.instructions[0] is not None and "tool_search" in model.instructions[0]


async def test_reveal_style_enables_a_found_tool_for_the_next_request() -> None:
    model = await run(
        "reveal", [("tool_search", {"query": "weather in a city"}), ("get_weather", {"city": "Rome"}), None]
    )
    assert "get_weather" not in model.offered[0]
    assert "get_weather" in model.offered[1]
    assert outputs(model)[1] == "Rome: 21°C, clear"
    assert calls[-1] == {"city": "Rome"}


async def test_a_call_with_bad_arguments_is_refused_as_a_structured_error_and_not_run() -> None:
    before = len(calls)
    model = await run("bridge", [("tool_call", {"name": "get_weather", "arguments": {"town": "Oslo"}}), None])
    error = json.loads(outputs(model)[0])
    assert error["error"]["code"] == "invalid_arguments" and error["tool_not_run"] is True
    assert len(calls) == before


@pytest.mark.slow
@pytest.mark.parametrize("style", ["bridge", "reveal"])
async def test_mcp_servers_go_behind_toolscout_in_process_and_their_tools_run_on_the_real_server(
    tmp_path: Path, style: str
) -> None:
    """Real MCP servers over stdio, as the SDK's own `MCPServerStdio`, without a gateway process."""
    from agents.mcp import MCPServerStdio, MCPServerStdioParams

    from toolscout import ScoutSettings
    from toolscout.integrations.openai_agents import scout_mcp_servers

    servers = real_servers(tmp_path)
    time_params = MCPServerStdioParams(command=servers["time"]["command"], args=servers["time"]["args"])
    everything_params = MCPServerStdioParams(command=servers["everything"]["command"], args=[])
    call = ("tool_call", {"name": "get_current_time", "arguments": {"timezone": "Asia/Tokyo"}})
    direct = ("get_current_time", {"timezone": "Asia/Tokyo"})
    steps = [("tool_search", {"query": "current time in a timezone"}), call if style == "bridge" else direct, None]
    async with (
        MCPServerStdio(time_params, name="time") as time_server,
        MCPServerStdio(everything_params, name="everything") as everything,
    ):
        session = await scout_mcp_servers([time_server, everything], settings=ScoutSettings(mode="on", style=style))  # type: ignore[arg-type]
        model = ScriptedModel(steps)
        agent = Agent(name="a", instructions=scout_instructions(session), tools=scout_tools(session), model=model)
        await Runner.run(agent, "What time is it in Tokyo?", run_config=RunConfig(tracing_disabled=True))

    assert "get_current_time" not in model.offered[0] and len(model.offered[0]) <= 3
    found, answer = outputs(model)
    assert json.loads(found)["tools"][0]["name"] == "get_current_time"
    assert "Asia/Tokyo" in answer
