"""The LangChain tools, driven by LangChain's fake chat model through a real LangGraph graph with `ToolNode`."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pytest

pytest.importorskip("langgraph", reason="the langchain extra is not installed")

from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.utils.function_calling import convert_to_openai_tool
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, create_react_agent, tools_condition

from tests.integrations.catalog import UNRELATED, WEATHER, calls, weather_scout
from toolscout.integrations.langchain import ScoutMiddleware, ScoutTools

pytestmark = pytest.mark.anyio


class RecordingFakeModel(GenericFakeChatModel):
    """LangChain's scripted fake model, recording the tool names bound before each call."""

    bound: list[list[str]] = []

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> Any:
        self.bound.append([convert_to_openai_tool(tool)["function"]["name"] for tool in tools])
        return self


def call(name: str, arguments: dict[str, Any], index: int) -> AIMessage:
    return AIMessage(content="", tool_calls=[{"name": name, "args": arguments, "id": f"c{index}", "type": "tool_call"}])


async def run(style: str, script: list[AIMessage]) -> tuple[RecordingFakeModel, list[AnyMessage]]:
    tools = ScoutTools(weather_scout(style=style).session(f"lc-{style}-{len(script)}"))  # type: ignore[arg-type]
    model = RecordingFakeModel(messages=iter(script), bound=[])

    async def agent(state: MessagesState) -> dict[str, list[AnyMessage]]:
        bound = model.bind_tools(tools.for_turn())
        reply = await bound.ainvoke([SystemMessage(tools.guidance()), *state["messages"]])
        return {"messages": [reply]}

    graph = StateGraph(MessagesState)
    graph.add_node("agent", agent)
    graph.add_node("tools", ToolNode(tools.all()))
    graph.add_edge(START, "agent")
    graph.add_conditional_edges("agent", tools_condition)
    graph.add_edge("tools", "agent")
    state = await graph.compile().ainvoke({"messages": [HumanMessage("weather?")]})
    return model, state["messages"]


def tool_outputs(messages: list[AnyMessage]) -> list[str]:
    return [str(message.content) for message in messages if isinstance(message, ToolMessage)]


async def test_bridge_style_searches_then_calls_through_the_bridge_in_a_langgraph_loop() -> None:
    model, messages = await run(
        "bridge",
        [
            call("tool_search", {"query": "weather in a city"}, 1),
            call("tool_call", {"name": "get_weather", "arguments": {"city": "Oslo"}}, 2),
            AIMessage("done"),
        ],
    )
    assert model.bound[0] == ["tool_search", "tool_describe", "tool_call"]
    found, result = tool_outputs(messages)
    assert json.loads(found)["tools"][0]["name"] == "get_weather"
    assert result == "Oslo: 21°C, clear"


async def test_reveal_style_binds_a_found_tool_for_the_next_model_call() -> None:
    model, messages = await run(
        "reveal",
        [
            call("tool_search", {"query": "weather in a city"}, 1),
            call("get_weather", {"city": "Rome"}, 2),
            AIMessage("ok"),
        ],
    )
    assert "get_weather" not in model.bound[0]
    assert "get_weather" in model.bound[1]
    assert tool_outputs(messages)[1] == "Rome: 21°C, clear"
    assert calls[-1] == {"city": "Rome"}


async def test_bad_arguments_come_back_as_a_structured_error_and_the_tool_does_not_run() -> None:
    before = len(calls)
    _, messages = await run(
        "bridge", [call("tool_call", {"name": "get_weather", "arguments": {"town": "Oslo"}}, 1), AIMessage("ok")]
    )
    error = json.loads(tool_outputs(messages)[0])
    assert error["error"]["code"] == "invalid_arguments" and error["tool_not_run"] is True
    assert len(calls) == before


async def prebuilt(
    style: str, script: list[AIMessage], *, dynamic: bool, reveal_call_tool: bool = False
) -> tuple[RecordingFakeModel, list[AnyMessage]]:
    """LangGraph's prebuilt `create_react_agent`, as its users build it."""
    scout = weather_scout(style=style, reveal_call_tool=reveal_call_tool)  # type: ignore[arg-type]
    tools = ScoutTools(scout.session(f"prebuilt-{style}-{dynamic}-{reveal_call_tool}"))
    model = RecordingFakeModel(messages=iter(script), bound=[])
    if dynamic:
        agent = create_react_agent(tools.model(model), tools.all(), prompt=tools.guidance())
    else:
        agent = create_react_agent(model, tools.for_turn(), prompt=tools.guidance())
    state = await agent.ainvoke({"messages": [HumanMessage("weather?")]})
    return model, state["messages"]


@pytest.mark.filterwarnings("ignore:create_react_agent has been moved")  # still LangGraph's prebuilt agent
async def test_the_prebuilt_react_agent_reveals_a_found_tool_through_the_dynamic_model() -> None:
    script = [call("tool_search", {"query": "weather in a city"}, 1), call("get_weather", {"city": "Rome"}, 2)]
    model, messages = await prebuilt("reveal", [*script, AIMessage("ok")], dynamic=True)
    assert model.bound[0] == ["tool_search"]
    assert "get_weather" in model.bound[1] and len(model.bound[1]) < 5
    assert tool_outputs(messages)[1] == "Rome: 21°C, clear"


@pytest.mark.filterwarnings("ignore:create_react_agent has been moved")
async def test_the_prebuilt_react_agent_bound_once_works_in_bridge_style() -> None:
    script = [
        call("tool_search", {"query": "weather in a city"}, 1),
        call("tool_call", {"name": "get_weather", "arguments": {"city": "Oslo"}}, 2),
    ]
    model, messages = await prebuilt("bridge", [*script, AIMessage("ok")], dynamic=False)
    assert model.bound == [["tool_search", "tool_describe", "tool_call"]]
    assert tool_outputs(messages)[1] == "Oslo: 21°C, clear"


@pytest.mark.filterwarnings("ignore:create_react_agent has been moved")
async def test_the_prebuilt_react_agent_bound_once_refuses_reveal_naming_the_forms_that_work(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A model bound once never sees a revealed tool: the search says so, to the model and in the log."""
    script = [call("tool_search", {"query": "weather in a city"}, 1), AIMessage("I cannot load tools here")]
    model, messages = await prebuilt("reveal", script, dynamic=False)
    assert model.bound == [["tool_search"]]
    refusal = json.loads(tool_outputs(messages)[0])
    assert refusal["error"]["code"] == "reveal_unreachable" and refusal["tool_not_run"] is True
    message = refusal["error"]["message"]
    assert "create_agent(chat_model, middleware=[ScoutMiddleware(session)])" in message and "style: bridge" in message
    assert "get_weather" not in tool_outputs(messages)[0]
    assert any("middleware=[ScoutMiddleware(session)]" in record.getMessage() for record in caplog.records)


@pytest.mark.filterwarnings("ignore:create_react_agent has been moved")
async def test_the_prebuilt_react_agent_bound_once_runs_a_found_tool_through_tool_call_when_reveal_lists_it() -> None:
    script = [
        call("tool_search", {"query": "weather in a city"}, 1),
        call("tool_call", {"name": "get_weather", "arguments": {"city": "Lima"}}, 2),
        AIMessage("ok"),
    ]
    model, messages = await prebuilt("reveal", script, dynamic=False, reveal_call_tool=True)
    assert model.bound == [["tool_search", "tool_call"]]
    found, result = tool_outputs(messages)
    assert "tool_call(name, arguments)" in json.loads(found)["hint"]
    assert result == "Lima: 21°C, clear"


class PromptRecordingModel(RecordingFakeModel):
    """The fake model, also recording the system prompt of each call."""

    prompts: list[str] = []

    def _generate(self, messages: list[Any], *args: Any, **kwargs: Any) -> Any:
        self.prompts.append(" ".join(str(m.content) for m in messages if isinstance(m, SystemMessage)))
        return super()._generate(messages, *args, **kwargs)


def middleware_agent(style: str, script: list[AIMessage], name: str) -> tuple[PromptRecordingModel, Any]:
    """LangChain v1's `create_agent`, toolscout as its middleware, as the docs recommend."""
    session = weather_scout(style=style).session(name)  # type: ignore[arg-type]
    model = PromptRecordingModel(messages=iter(script), bound=[], prompts=[])
    agent = create_agent(model, system_prompt="You are terse.", middleware=[ScoutMiddleware(session)])
    return model, agent


async def test_create_agent_with_scout_middleware_offers_a_found_tool_from_the_next_model_call() -> None:
    script = [call("tool_search", {"query": "weather in a city"}, 1), call("get_weather", {"city": "Rome"}, 2)]
    model, agent = middleware_agent("reveal", [*script, AIMessage("ok")], "v1-reveal")
    state = await agent.ainvoke({"messages": [HumanMessage("weather?")]})
    assert model.bound[0] == ["tool_search"]
    assert "get_weather" in model.bound[1] and len(model.bound[1]) < 5
    assert tool_outputs(state["messages"])[1] == "Rome: 21°C, clear"
    assert model.prompts[0].startswith("You are terse.") and "tool_search" in model.prompts[0]


def test_create_agent_with_scout_middleware_runs_the_bridge_when_invoked_synchronously() -> None:
    script = [
        call("tool_search", {"query": "weather in a city"}, 1),
        call("tool_call", {"name": "get_weather", "arguments": {"city": "Oslo"}}, 2),
        AIMessage("ok"),
    ]
    model, agent = middleware_agent("bridge", script, "v1-bridge")
    state = agent.invoke({"messages": [HumanMessage("weather?")]})
    assert model.bound[0] == ["tool_search", "tool_describe", "tool_call"]
    found, result = tool_outputs(state["messages"])
    assert json.loads(found)["tools"][0]["name"] == "get_weather"
    assert result == "Oslo: 21°C, clear"


async def test_create_agent_given_the_langgraph_dynamic_model_names_the_middleware() -> None:
    tools = ScoutTools(weather_scout(style="reveal").session("v1-dynamic"))
    model = RecordingFakeModel(messages=iter([AIMessage("ok")]), bound=[])
    agent = create_agent(tools.model(model), tools.all())  # type: ignore[call-overload]
    with pytest.raises(TypeError, match=r"create_agent\(chat_model, middleware=\[ScoutMiddleware\(session\)\]\)"):
        await agent.ainvoke({"messages": [HumanMessage("weather?")]})


async def test_create_agent_bound_once_refuses_reveal_naming_the_middleware() -> None:
    tools = ScoutTools(weather_scout(style="reveal").session("v1-once"))
    script = [call("tool_search", {"query": "weather in a city"}, 1), AIMessage("I cannot load tools here")]
    model = RecordingFakeModel(messages=iter(script), bound=[])
    state = await create_agent(model, tools.for_turn()).ainvoke({"messages": [HumanMessage("weather?")]})
    refusal = json.loads(tool_outputs(state["messages"])[0])
    assert refusal["error"]["code"] == "reveal_unreachable"
    assert "middleware=[ScoutMiddleware(session)]" in refusal["error"]["message"]


@pytest.mark.filterwarnings("ignore:create_react_agent has been moved")
async def test_the_prebuilt_react_agent_with_the_dynamic_model_but_turn_tools_refuses_reveal_naming_all(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The model is re-bound, but the executor holds only the first turn's tools: a found tool could not run."""
    tools = ScoutTools(weather_scout(style="reveal").session("prebuilt-dynamic-turn"))
    script = [call("tool_search", {"query": "weather in a city"}, 1), AIMessage("I cannot load tools here")]
    model = RecordingFakeModel(messages=iter(script), bound=[])
    agent = create_react_agent(tools.model(model), tools.for_turn(), prompt=tools.guidance())
    state = await agent.ainvoke({"messages": [HumanMessage("weather?")]})
    refusal = json.loads(tool_outputs(state["messages"])[0])
    assert refusal["error"]["code"] == "reveal_unreachable" and refusal["tool_not_run"] is True
    assert "tools.all()" in refusal["error"]["message"] and "style: bridge" in refusal["error"]["message"]
    assert any("tools.all()" in record.getMessage() for record in caplog.records)


def test_a_toolscout_given_for_a_session_is_refused_naming_the_call_that_works() -> None:
    scout = weather_scout(style="bridge")
    with pytest.raises(TypeError, match=r"not a ToolScout: ScoutTools\(scout\.session"):
        ScoutTools(scout)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"ScoutMiddleware\(scout\.session\('chat-1'\)\)"):
        ScoutMiddleware(scout)  # type: ignore[arg-type]


def presearch_agent(style: str, script: list[AIMessage], name: str) -> tuple[PromptRecordingModel, Any]:
    """`create_agent` with `ScoutMiddleware` over a scout that pre-searches the user's message."""
    session = weather_scout(style=style, presearch=True).session(name)  # type: ignore[arg-type]
    model = PromptRecordingModel(messages=iter(script), bound=[], prompts=[])
    return model, create_agent(model, middleware=[ScoutMiddleware(session)])


@pytest.mark.parametrize("style", ["reveal", "bridge"])
async def test_middleware_offers_the_tool_the_latest_human_message_needs_on_the_first_call(style: str) -> None:
    script = [call("get_weather", {"city": "Rome"}, 1), AIMessage("ok")]
    model, agent = presearch_agent(style, script, f"pre-{style}")
    state = await agent.ainvoke({"messages": [HumanMessage(WEATHER)]})
    assert "get_weather" in model.bound[0]
    assert tool_outputs(state["messages"]) == ["Rome: 21°C, clear"]
    assert "Loaded for this request by a search of it: get_weather." in model.prompts[0]


async def test_middleware_searches_the_message_once_though_each_call_reads_prompt_and_tools() -> None:
    searched: list[str] = []
    session = weather_scout(style="reveal", presearch=True, searched=searched).session("pre-once")
    model = PromptRecordingModel(
        messages=iter([call("get_weather", {"city": "Rome"}, 1), AIMessage("ok")]), bound=[], prompts=[]
    )
    agent = create_agent(model, middleware=[ScoutMiddleware(session)])
    await agent.ainvoke({"messages": [HumanMessage(WEATHER)]})
    assert len(model.bound) == 2 and "get_weather" in model.bound[0]
    assert searched.count(WEATHER) == 1


async def test_middleware_offers_nothing_for_an_unrelated_message() -> None:
    model, agent = presearch_agent("reveal", [AIMessage("meow")], "pre-unrelated")
    await agent.ainvoke({"messages": [HumanMessage(UNRELATED)]})
    assert model.bound[0] == ["tool_search"]
    assert "Loaded for this request" not in model.prompts[0]


async def test_middleware_reads_a_follow_up_with_the_human_turn_it_refers_to() -> None:
    script = [call("get_weather", {"city": "Oslo"}, 1), AIMessage("ok")]
    model, agent = presearch_agent("reveal", script, "pre-follow-up")
    history = [HumanMessage(WEATHER), AIMessage("Rome: 21°C, clear"), HumanMessage("now the same for Oslo")]
    state = await agent.ainvoke({"messages": history})
    assert "get_weather" in model.bound[0]
    assert tool_outputs(state["messages"]) == ["Oslo: 21°C, clear"]
