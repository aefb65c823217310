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
from tests.integrations.catalog import UNRELATED, WEATHER, calls, weather_scout
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
    call = ("tool_call", {"name": "time__get_current_time", "arguments": {"timezone": "Asia/Tokyo"}})
    direct = ("time__get_current_time", {"timezone": "Asia/Tokyo"})
    steps = [("tool_search", {"query": "current time in a timezone"}), call if style == "bridge" else direct, None]
    async with (
        MCPServerStdio(time_params, name="time") as time_server,
        MCPServerStdio(everything_params, name="everything") as everything,
    ):
        session = await scout_mcp_servers([time_server, everything], settings=ScoutSettings(mode="on", style=style))  # type: ignore[arg-type]
        model = ScriptedModel(steps)
        agent = Agent(name="a", instructions=scout_instructions(session), tools=scout_tools(session), model=model)
        await Runner.run(agent, "What time is it in Tokyo?", run_config=RunConfig(tracing_disabled=True))

    assert "time__get_current_time" not in model.offered[0] and len(model.offered[0]) <= 3
    found, answer = outputs(model)
    assert json.loads(found)["tools"][0]["name"] == "time__get_current_time"
    assert "Asia/Tokyo" in answer


async def test_a_toolscout_given_for_a_session_is_refused_naming_the_call_that_works() -> None:
    scout = weather_scout(style="bridge")
    with pytest.raises(TypeError, match=r"not a ToolScout: scout_tools\(scout\.session"):
        scout_tools(scout)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"scout_instructions\(scout\.session\('chat-1'\)\)"):
        scout_instructions(scout)  # type: ignore[arg-type]


@pytest.mark.slow
async def test_two_mcp_servers_with_the_same_tools_are_combined_under_their_names_and_the_log_says_all_are_sent(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Two time servers: their tools are namespaced by server as the gateway does, each call runs on its own
    server; four tools under the default settings are sent in full, which one log line says; bare names clash."""
    from agents.mcp import MCPServerStdio, MCPServerStdioParams

    from toolscout import CatalogError
    from toolscout.integrations.openai_agents import scout_mcp_servers

    time = real_servers(tmp_path)["time"]
    utc = MCPServerStdioParams(command=time["command"], args=time["args"])
    tokyo = MCPServerStdioParams(command=time["command"], args=["--local-timezone", "Asia/Tokyo"])
    steps = [("tokyo__get_current_time", {"timezone": "Europe/Oslo"}), None]
    async with MCPServerStdio(utc, name="utc") as first, MCPServerStdio(tokyo, name="tokyo") as second:
        with caplog.at_level("INFO", logger="toolscout"):
            session = await scout_mcp_servers([first, second])
        model = ScriptedModel(steps)
        agent = Agent(name="a", instructions=scout_instructions(session), tools=scout_tools(session), model=model)
        await Runner.run(agent, "Time in Oslo?", run_config=RunConfig(tracing_disabled=True))
        with pytest.raises(CatalogError, match="get_current_time"):
            await scout_mcp_servers([first, second], namespaced=False)

    assert sorted(model.offered[0]) == [
        "tokyo__convert_time",
        "tokyo__get_current_time",
        "utc__convert_time",
        "utc__get_current_time",
    ]
    assert "Europe/Oslo" in outputs(model)[0]
    lines = [record.getMessage() for record in caplog.records if "sent in full" in record.getMessage()]
    assert len(lines) == 1 and "scout_mcp_servers" in lines[0] and "threshold of 30" in lines[0]


async def presearched(
    message: str | list[dict[str, str]], steps: list[tuple[str, dict[str, Any]] | None]
) -> ScriptedModel:
    session = weather_scout(style="reveal", presearch=True).session(f"agents-pre-{len(steps)}-{len(message)}")
    model = ScriptedModel(steps)
    agent = Agent(name="assistant", instructions=scout_instructions(session), tools=scout_tools(session), model=model)
    await Runner.run(agent, message, run_config=RunConfig(tracing_disabled=True))  # type: ignore[arg-type]
    return model


async def test_the_tool_the_user_message_needs_is_enabled_on_the_first_request() -> None:
    model = await presearched(WEATHER, [("get_weather", {"city": "Rome"}), None])
    assert "get_weather" in model.offered[0]
    assert outputs(model) == ["Rome: 21°C, clear"]
    assert model.instructions[0] is not None and "search of it: get_weather" in model.instructions[0]


async def test_an_unrelated_message_enables_nothing_more() -> None:
    model = await presearched(UNRELATED, [None])
    assert model.offered[0] == ["tool_search"]


async def test_a_follow_up_is_read_with_the_user_turn_it_refers_to() -> None:
    history = [
        {"role": "user", "content": WEATHER},
        {"role": "assistant", "content": "Rome: 21°C, clear"},
        {"role": "user", "content": "now the same for Oslo"},
    ]
    model = await presearched(history, [("get_weather", {"city": "Oslo"}), None])
    assert "get_weather" in model.offered[0]
    assert outputs(model) == ["Oslo: 21°C, clear"]
