"""The pydantic-ai toolset, driven by pydantic-ai's own `FunctionModel` through a real `Agent` run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, cast

import pytest

pytest.importorskip("pydantic_ai", reason="the pydantic-ai extra is not installed")

from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from tests.gateway.conftest import real_servers
from tests.integrations.catalog import CRM_TOOLS, UNRELATED, WEATHER, calls, get_weather, weather_scout
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


def test_toolscout_search_is_the_strategy_of_pydantic_ais_own_tool_search() -> None:
    """pydantic-ai's `ToolSearch` keeps its deferred tools; toolscout ranks them (a misspelt request
    that pydantic-ai's keyword strategy, which needs a word in common, cannot match)."""
    from pydantic_ai import Tool
    from pydantic_ai.capabilities import ToolSearch

    from tests.integrations.catalog import get_weather
    from toolscout.integrations.pydantic_ai import ScoutSearch

    def crm_tool(i: int) -> Tool[None]:
        def operation(id: str) -> str:
            return id

        return Tool(operation, name=f"crm_op_{i}", description=f"CRM operation {i}", defer_loading=True)

    tools: list[Tool[None]] = [Tool(get_weather, defer_loading=True), *(crm_tool(i) for i in range(60))]
    seen: list[list[str]] = []
    answers: list[Any] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append([tool.name for tool in info.function_tools])
        answers.extend(part.content for part in returns(messages)[len(answers) :])
        if len(seen) == 1:
            return ModelResponse(parts=[ToolCallPart("search_tools", {"queries": ["wether forecast"]})])
        if len(seen) == 2:
            return ModelResponse(parts=[ToolCallPart("get_weather", {"city": "Oslo"}, tool_call_id="w")])
        return ModelResponse(parts=[TextPart("done")])

    agent = Agent(FunctionModel(respond), tools=tools, capabilities=[ToolSearch(strategy=ScoutSearch())])
    result = agent.run_sync("weather in Oslo?")

    assert "get_weather" not in seen[0] and "search_tools" in seen[0]
    assert "get_weather" in seen[1] and not any(name.startswith("crm_op") for name in seen[1])
    assert returns(result.all_messages())[-1].content == "Oslo: 21°C, clear"


@pytest.mark.slow
@pytest.mark.parametrize("style", ["bridge", "reveal"])
def test_mcp_servers_the_agent_already_has_go_behind_toolscout_in_process(tmp_path: Path, style: str) -> None:
    """Real MCP servers over stdio, as pydantic-ai `MCPToolset`s, wrapped without a gateway process:
    the model sees the bridge, finds the time tool and runs it on the real server."""
    from fastmcp.client.transports import StdioTransport
    from pydantic_ai.mcp import MCPToolset
    from pydantic_ai.toolsets import CombinedToolset

    from toolscout import ScoutSettings
    from toolscout.integrations.pydantic_ai import ScoutedToolset

    servers = real_servers(tmp_path)
    time_server = MCPToolset(StdioTransport(servers["time"]["command"], servers["time"]["args"])).prefixed("time")
    everything = MCPToolset(StdioTransport(servers["everything"]["command"], [])).prefixed("everything")
    settings = ScoutSettings(mode="on", style=style)  # type: ignore[arg-type]
    toolset = ScoutedToolset(CombinedToolset([time_server, everything]), settings=settings)
    call = ("tool_call", {"name": "time_get_current_time", "arguments": {"timezone": "Asia/Tokyo"}})
    direct = ("time_get_current_time", {"timezone": "Asia/Tokyo"})
    seen: list[list[str]] = []
    steps = [("tool_search", {"query": "current time in a timezone"}), call if style == "bridge" else direct, None]
    result = Agent(scripted(steps, seen), toolsets=[toolset]).run_sync("What time is it in Tokyo?")

    assert "time_get_current_time" not in seen[0] and len(seen[0]) <= 3
    assert toolset.scout is not None and len(toolset.scout.catalog) > 10
    found, answer = returns(result.all_messages())
    assert cast(dict[str, Any], found.content)["tools"][0]["name"] == "time_get_current_time"
    assert "Asia/Tokyo" in str(answer.content)


def gateway_toolset(tmp_path: Path, style: str, *, cache_tools: bool) -> Any:
    """pydantic-ai's `MCPToolset` over `toolscout serve` (stdio) in front of the real time and everything servers."""
    from fastmcp.client.transports import StdioTransport
    from pydantic_ai.mcp import MCPToolset

    from tests.gateway.conftest import TOOLSCOUT, write_config

    servers = real_servers(tmp_path)
    config = write_config(
        tmp_path / "gw.json", {"time": servers["time"], "everything": servers["everything"]}, mode="on", style=style
    )
    transport = StdioTransport(TOOLSCOUT, ["serve", str(config), "--wait-for-upstreams"])
    return MCPToolset(transport, cache_tools=cache_tools, init_timeout=60)  # servers start under load


@pytest.mark.slow
@pytest.mark.parametrize(
    ("style", "cache_tools"), [("bridge", True), ("reveal", False)], ids=["bridge-cached", "reveal-uncached"]
)
def test_mcp_toolset_over_the_gateway_finds_and_runs_a_real_tool(tmp_path: Path, style: str, cache_tools: bool) -> None:
    """The gateway as pydantic-ai users reach it: bridge with the default tool cache, reveal without it."""
    call = ("tool_call", {"name": "time__get_current_time", "arguments": {"timezone": "Asia/Tokyo"}})
    direct = ("time__get_current_time", {"timezone": "Asia/Tokyo"})
    seen: list[list[str]] = []
    steps = [("tool_search", {"query": "current time in a timezone"}), call if style == "bridge" else direct, None]
    toolset = gateway_toolset(tmp_path, style, cache_tools=cache_tools)
    result = Agent(scripted(steps, seen), toolsets=[toolset]).run_sync("What time is it in Tokyo?")

    assert "time__get_current_time" not in seen[0]
    assert "Asia/Tokyo" in str(returns(result.all_messages())[1].content)


def guided(query: str, target: str, arguments: dict[str, Any], seen: list[list[str]]) -> FunctionModel:
    """A model that searches, then runs `target` as the tools it was offered and the answers allow:
    directly when `target` is offered, else through the bridge's call tool when that is offered."""

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        offered = [tool.name for tool in info.function_tools]
        seen.append(offered)
        if len(seen) == 1:
            return ModelResponse(parts=[ToolCallPart("tool_search", json.dumps({"query": query}), tool_call_id="s")])
        if len(seen) > 3:
            return ModelResponse(parts=[TextPart("done")])
        if target in offered:
            return ModelResponse(parts=[ToolCallPart(target, json.dumps(arguments), tool_call_id=f"c{len(seen)}")])
        if "tool_call" in offered:
            bridged = {"name": target, "arguments": arguments}
            return ModelResponse(parts=[ToolCallPart("tool_call", json.dumps(bridged), tool_call_id=f"c{len(seen)}")])
        return ModelResponse(parts=[TextPart(f"{target} is not among my tools")])

    return FunctionModel(respond)


@pytest.mark.slow
def test_mcp_toolset_with_its_default_tool_cache_runs_a_revealed_tool_over_the_gateway(tmp_path: Path) -> None:
    """pydantic-ai's `MCPToolset` as built by default (`cache_tools=True`) over the gateway in reveal style:
    the search's answer and the first tool list together give the model a way to run the found tool."""
    seen: list[list[str]] = []
    model = guided("current time in a timezone", "time__get_current_time", {"timezone": "Asia/Tokyo"}, seen)
    toolset = gateway_toolset(tmp_path, "reveal", cache_tools=True)
    result = Agent(model, toolsets=[toolset]).run_sync("What time is it in Tokyo?")

    assert "time__get_current_time" not in seen[0]
    found, answer = returns(result.all_messages())[:2]
    assert "time__get_current_time" in json.dumps(found.content)
    assert "tool_call(name, arguments)" in json.dumps(found.content)  # what to do if the list does not show it
    assert "Asia/Tokyo" in str(answer.content) and "tool_not_run" not in str(answer.content)


def test_a_toolscout_or_a_toolset_given_to_scouttoolset_is_refused_naming_the_call_that_works() -> None:
    from pydantic_ai.mcp import MCPToolset

    scout = weather_scout(style="bridge")
    with pytest.raises(TypeError, match=r"not a ToolScout: ScoutToolset\(scout\.session\('chat-1'\)\)"):
        ScoutToolset(scout)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"MCPToolset is a pydantic-ai toolset: .*ScoutedToolset\(toolset\)"):
        ScoutToolset(MCPToolset("http://127.0.0.1:9/mcp"))  # type: ignore[arg-type]


def test_a_list_of_toolsets_given_to_scoutedtoolset_is_refused_naming_combinedtoolset() -> None:
    from pydantic_ai.toolsets import FunctionToolset

    from toolscout.integrations.pydantic_ai import ScoutedToolset

    first, second = FunctionToolset([get_weather]), FunctionToolset([get_weather])
    with pytest.raises(TypeError, match=r"ScoutedToolset\(CombinedToolset\(\[a, b\]\)\)"):
        ScoutedToolset([first, second])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"got ToolScout; .*ScoutToolset\(scout\.session"):
        ScoutedToolset(weather_scout(style="bridge"))  # type: ignore[arg-type]


def test_scoutsearch_given_as_a_toolset_is_refused_naming_the_tool_search_capability() -> None:
    from toolscout.integrations.pydantic_ai import ScoutSearch

    agent = Agent(scripted([None], []), toolsets=[ScoutSearch()])  # type: ignore[list-item]
    with pytest.raises(TypeError, match=r"capabilities=\[ToolSearch\(strategy=ScoutSearch\(\)\)\]"):
        agent.run_sync("weather?")


def test_a_toolset_below_the_activation_threshold_is_sent_in_full_and_the_log_says_why(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Three tools under default settings: nothing to defer, so no bridge; one log line names the setting."""
    from pydantic_ai.toolsets import FunctionToolset

    from toolscout.integrations.pydantic_ai import ScoutedToolset

    def get_time(zone: str) -> str:
        """Current time in a time zone."""
        return f"12:00 in {zone}"

    def get_news(topic: str) -> str:
        """Latest headlines about a topic."""
        return f"nothing new about {topic}"

    toolset = ScoutedToolset(FunctionToolset([get_weather, get_time, get_news]))
    seen: list[list[str]] = []
    with caplog.at_level("INFO", logger="toolscout"):
        Agent(scripted([("get_weather", {"city": "Oslo"}), None], seen), toolsets=[toolset]).run_sync("weather?")
        Agent(scripted([None], []), toolsets=[toolset]).run_sync("again")
    assert seen[0] == ["get_weather", "get_time", "get_news"]
    lines = [record for record in caplog.records if "sent in full" in record.getMessage()]
    assert len(lines) == 1 and lines[0].levelname == "INFO"
    assert "ScoutedToolset" in lines[0].getMessage() and "threshold of 30" in lines[0].getMessage()
    assert "mode='on'" in lines[0].getMessage() and "threshold_tools" in lines[0].getMessage()


def test_every_pydantic_ai_class_the_module_docstring_names_exists_in_the_installed_pydantic_ai() -> None:
    import importlib
    import re

    import toolscout.integrations.pydantic_ai as integration

    modules = [importlib.import_module(f"pydantic_ai{part}") for part in ("", ".mcp", ".toolsets", ".capabilities")]
    named = set(re.findall(r"``([A-Z]\w+)``", integration.__doc__ or "")) - set(integration.__all__)
    assert {"MCPToolset", "CombinedToolset", "ToolSearch"} <= named

    def exists(name: str) -> bool:
        try:
            return any(hasattr(module, name) for module in modules)
        except ImportError:  # pydantic-ai 2 answers a removed name with an ImportError naming its replacement
            return False

    assert [name for name in sorted(named) if not exists(name)] == []


def test_the_tool_the_user_prompt_needs_is_offered_on_the_first_request() -> None:
    seen: list[list[str]] = []
    session = weather_scout(style="reveal", presearch=True).session("pre-1")
    agent = Agent(scripted([("get_weather", {"city": "Rome"}), None], seen), toolsets=[ScoutToolset(session)])
    result = agent.run_sync(WEATHER)
    assert "get_weather" in seen[0]
    assert returns(result.all_messages())[0].content == "Rome: 21°C, clear"


def test_the_user_prompt_is_searched_once_though_each_step_reads_instructions_and_tools() -> None:
    searched: list[str] = []
    session = weather_scout(style="reveal", presearch=True, searched=searched).session("pre-once")
    seen: list[list[str]] = []
    Agent(scripted([("get_weather", {"city": "Rome"}), None], seen), toolsets=[ScoutToolset(session)]).run_sync(WEATHER)
    assert len(seen) == 2 and "get_weather" in seen[0]
    assert searched.count(WEATHER) == 1


def test_an_unrelated_prompt_is_offered_nothing() -> None:
    seen: list[list[str]] = []
    session = weather_scout(style="reveal", presearch=True).session("pre-2")
    Agent(scripted([None], seen), toolsets=[ScoutToolset(session)]).run_sync(UNRELATED)
    assert seen[0] == ["tool_search"]


def test_a_follow_up_prompt_is_read_with_the_earlier_prompt_of_the_history() -> None:
    seen: list[list[str]] = []
    session = weather_scout(style="reveal", presearch=True).session("pre-3")
    history = Agent(scripted([None], []), toolsets=[ScoutToolset(session)]).run_sync(WEATHER).all_messages()
    model = scripted([("get_weather", {"city": "Oslo"}), None], seen)
    result = Agent(model, toolsets=[ScoutToolset(session)]).run_sync("now the same for Oslo", message_history=history)
    assert "get_weather" in seen[0]
    assert returns(result.all_messages())[-1].content == "Oslo: 21°C, clear"
