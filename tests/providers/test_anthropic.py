import pytest
from anthropic.types import MessageParam, ToolUnionParam

from toolscout import ConfigError
from toolscout.providers import anthropic
from toolscout.providers._calls import ProviderCall, dispatch_call

pytestmark = pytest.mark.anyio

HIDDEN = "weather_forecast_"  # prefix of the provider name of "weather.forecast"


def _names(tools):
    return [tool["name"] for tool in tools]


def test_bridge_style_sends_core_then_the_three_bridge_tools_with_guidance(make_scout, sdk_conforms):
    rendering = anthropic.render(make_scout().session("s"))
    tools = rendering.fields["tools"]
    assert _names(tools) == ["terminal", "tool_search", "tool_describe", "tool_call"]
    assert "tool_describe" in rendering.fields["system"]
    assert all(sdk_conforms(ToolUnionParam, tool) for tool in tools)


def test_native_declares_every_deferred_tool_after_a_search_tool_that_is_never_deferred(make_scout, sdk_conforms):
    rendering = anthropic.render(make_scout().session("s"), style="native")
    tools = rendering.fields["tools"]
    assert _names(tools)[:2] == ["terminal", "tool_search"]
    assert [tool.get("defer_loading", False) for tool in tools] == [False, False] + [True] * 9
    assert len(tools) == 11 and rendering.search == "hybrid"
    assert all(sdk_conforms(ToolUnionParam, tool) for tool in tools)
    assert "Tools available through tool_search:" in rendering.fields["system"]


@pytest.mark.parametrize(
    ("search", "expected"),
    [
        ("bm25", {"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"}),
        ("regex", {"type": "tool_search_tool_regex_20251119", "name": "tool_search_tool_regex"}),
    ],
)
def test_native_server_side_search_uses_anthropics_search_tool(make_scout, sdk_conforms, search, expected):
    tools = anthropic.render(make_scout().session("s"), style="native", search=search).fields["tools"]
    assert tools[1] == expected
    assert sdk_conforms(ToolUnionParam, tools[1])
    assert sum(1 for tool in tools if tool.get("defer_loading")) == 9


def test_cache_breakpoint_sits_on_the_last_constant_tool_never_on_a_deferred_one(make_scout):
    for style in ("native", "bridge"):
        tools = anthropic.render(make_scout().session("s"), style=style, cache=True).fields["tools"]
        marked = [tool["name"] for tool in tools if "cache_control" in tool]
        assert marked == [tools[1 if style == "native" else 3]["name"]]
        assert not any("cache_control" in tool and tool.get("defer_loading") for tool in tools)


def test_names_anthropic_rejects_are_mapped_and_mapped_back(make_scout):
    session = make_scout().session("s")
    rendering = anthropic.render(session, style="native")
    mapped = rendering.names["weather.forecast"]
    assert mapped.startswith(HIDDEN) and mapped in _names(rendering.fields["tools"])
    block = {"type": "tool_use", "id": "toolu_1", "name": mapped, "input": {"city": "Oslo"}}
    calls = anthropic.parse_calls({"content": [block]}, rendering.names)
    assert calls == [
        ProviderCall(name="weather.forecast", provider_name=mapped, arguments={"city": "Oslo"}, call_id="toolu_1")
    ]


async def test_hybrid_search_answers_with_tool_reference_blocks(make_scout, sdk_conforms):
    session = make_scout().session("s")
    rendering = anthropic.render(session, style="native")
    call = ProviderCall(
        name="tool_search", provider_name="tool_search", arguments={"query": "weather forecast"}, call_id="toolu_9"
    )
    outcome = await dispatch_call(session, call, rendering.names)
    result = anthropic.format_result(outcome, call, rendering)
    assert result["content"][0] == {"type": "tool_reference", "tool_name": rendering.names["weather.forecast"]}
    assert "is_error" not in result
    assert sdk_conforms(MessageParam, {"role": "user", "content": [result]})
    assert session.discovered[0] == "weather.forecast"


async def test_a_search_that_finds_nothing_new_answers_with_text(make_scout):
    session = make_scout().session("s")
    rendering = anthropic.render(session, style="native")
    call = ProviderCall(
        name="tool_search", provider_name="tool_search", arguments={"query": "terminal shell"}, call_id="t"
    )
    result = anthropic.format_result(await dispatch_call(session, call, rendering.names), call, rendering)
    assert isinstance(result["content"], str) and '"listed": true' in result["content"]


async def test_errors_come_back_flagged_as_errors(make_scout):
    session = make_scout().session("s")
    rendering = anthropic.render(session)
    call = ProviderCall(name="nope", provider_name="nope", arguments={}, call_id="toolu_2")
    result = anthropic.format_result(await dispatch_call(session, call, rendering.names), call, rendering)
    assert result["is_error"] is True
    assert '"code": "unknown_tool"' in result["content"]


def test_server_side_search_results_are_read_as_discoveries(make_scout):
    rendering = anthropic.render(make_scout().session("s"), style="native", search="bm25")
    mapped = rendering.names["weather.forecast"]
    response = {
        "content": [
            {
                "type": "server_tool_use",
                "id": "srvtoolu_1",
                "name": "tool_search_tool_bm25",
                "input": {"query": "weather"},
            },
            {
                "type": "tool_search_tool_result",
                "tool_use_id": "srvtoolu_1",
                "content": {
                    "type": "tool_search_tool_search_result",
                    "tool_references": [{"type": "tool_reference", "tool_name": mapped}],
                },
            },
            {"type": "tool_use", "id": "toolu_1", "name": mapped, "input": {"city": "Oslo"}},
        ]
    }
    assert anthropic.discoveries(response, rendering.names) == ("weather.forecast",)
    assert [call.name for call in anthropic.parse_calls(response, rendering.names)] == ["weather.forecast"]
    assert anthropic.referenced([{"role": "assistant", "content": response["content"]}]) == {mapped}


def test_native_sends_discoveries_the_history_does_not_load_in_full(make_scout):
    scout = make_scout()
    session = scout.session("s")
    scout.store.discover("s", ["github__create_issue", "weather.forecast"])
    fresh = anthropic.render(session, style="native", history=[])
    tools = fresh.fields["tools"]
    assert _names(tools)[2:4] == ["github__create_issue", fresh.names["weather.forecast"]]
    assert not tools[2].get("defer_loading") and not tools[3].get("defer_loading")
    reference = {"type": "tool_reference", "tool_name": "github__create_issue"}
    history = [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": [reference]}]}]
    later = anthropic.render(session, style="native", history=history)
    assert _names(later.fields["tools"])[2] == later.names["weather.forecast"]
    assert "github__create_issue" in later.deferred


def test_a_client_side_style_must_match_the_toolscouts_style(make_scout):
    with pytest.raises(ConfigError) as error:
        anthropic.render(make_scout("bridge").session("s"), style="reveal")
    assert error.value.key == "style"


def test_answer_text_joins_the_text_blocks():
    response = {
        "content": [{"type": "text", "text": "It is "}, {"type": "tool_use"}, {"type": "text", "text": "sunny."}]
    }
    assert anthropic.answer_text(response) == "It is sunny."
