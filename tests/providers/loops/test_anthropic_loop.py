import anthropic
import pytest
from anthropic.types import MessageParam, ToolUnionParam

from toolscout.providers.loops.anthropic_loop import run_anthropic_turn

pytestmark = pytest.mark.anyio

USER = [{"role": "user", "content": "What's the weather in Oslo?"}]


def _client(replay):
    return anthropic.AsyncAnthropic(api_key="test-key", base_url=replay.url, max_retries=0)


def _use(call_id, name, arguments):
    return {"type": "tool_use", "id": call_id, "name": name, "input": arguments}


def _valid(body, conforms):
    return all(conforms(ToolUnionParam, tool) for tool in body["tools"]) and all(
        conforms(MessageParam, message) for message in body["messages"]
    )


async def test_bridge_turn_searches_describes_then_calls(replay, make_scout, sdk_conforms):
    session = make_scout("bridge").session("s")
    weather = "weather_forecast_1cb2de11"
    replay.anthropic(_use("toolu_1", "tool_search", {"query": "weather forecast"}))
    replay.anthropic(_use("toolu_2", "tool_describe", {"names": [weather]}))
    replay.anthropic(_use("toolu_3", "tool_call", {"name": weather, "arguments": {"city": "Oslo"}}))
    replay.anthropic({"type": "text", "text": "Sunny in Oslo."}, stop_reason="end_turn")
    async with _client(replay) as client:
        result = await run_anthropic_turn(
            session, client, USER, model="claude-opus-4-8", style="bridge", system="Be brief."
        )
    assert (result.text, result.stopped, result.steps) == ("Sunny in Oslo.", "answer", 4)
    assert [outcome.name for outcome in result.outcomes] == ["tool_search", "tool_describe", "weather.forecast"]
    sent = replay.sent("/v1/messages")
    assert [tool["name"] for tool in sent[0]["tools"]] == ["terminal", "tool_search", "tool_describe", "tool_call"]
    assert all(body["tools"] == sent[0]["tools"] for body in sent)
    assert sent[0]["system"].startswith("Be brief.\n\nSome of your tools are not in your tool list")
    found = sent[1]["messages"][-1]["content"][0]
    assert found["tool_use_id"] == "toolu_1" and weather in found["content"]
    assert sent[3]["messages"][-1]["content"] == [
        {"type": "tool_result", "tool_use_id": "toolu_3", "content": "Oslo: sunny, 21 °C"}
    ]
    assert all(_valid(body, sdk_conforms) for body in sent)
    assert replay.headers("/v1/messages")[0]["authorization"] == "Bearer test-key"


async def test_native_turn_with_server_side_search_passes_its_blocks_back_unchanged(replay, make_scout, sdk_conforms):
    session = make_scout().session("s")
    weather = "weather_forecast_1cb2de11"
    server_use = {
        "type": "server_tool_use",
        "id": "srvtoolu_1",
        "name": "tool_search_tool_bm25",
        "input": {"query": "weather"},
    }
    server_result = {
        "type": "tool_search_tool_result",
        "tool_use_id": "srvtoolu_1",
        "content": {
            "type": "tool_search_tool_search_result",
            "tool_references": [{"type": "tool_reference", "tool_name": weather}],
        },
    }
    replay.anthropic(
        {"type": "text", "text": "Searching.", "citations": None},
        server_use,
        server_result,
        _use("toolu_1", weather, {"city": "Oslo"}),
    )
    replay.anthropic({"type": "text", "text": "Sunny."}, stop_reason="end_turn")
    async with _client(replay) as client:
        result = await run_anthropic_turn(session, client, USER, model="claude-opus-4-8", search="bm25")
    assert result.choice.style == "native" and result.text == "Sunny."
    first, second = replay.sent("/v1/messages")
    assert first["tools"][1] == {"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"}
    assert [tool.get("defer_loading", False) for tool in first["tools"]] == [False, False] + [True] * 9
    assert second["tools"] == first["tools"]
    assistant, answers = second["messages"][1:]
    assert assistant["content"][1:3] == [server_use, server_result]
    assert answers == {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "Oslo: sunny, 21 °C"}],
    }
    assert session.discovered == ("weather.forecast",)
    assert _valid(first, sdk_conforms) and _valid(second, sdk_conforms)


async def test_native_hybrid_turn_answers_its_search_with_tool_references(replay, make_scout, sdk_conforms):
    session = make_scout().session("s")
    replay.anthropic(_use("toolu_1", "tool_search", {"query": "open a github issue", "limit": 2}))
    replay.anthropic(_use("toolu_2", "github__create_issue", {"repo": "acme/app", "title": "Crash"}))
    replay.anthropic({"type": "text", "text": "Opened."}, stop_reason="end_turn")
    async with _client(replay) as client:
        result = await run_anthropic_turn(session, client, USER, model="claude-sonnet-4-6", cache=True)
    assert result.text == "Opened." and result.choice.search == "hybrid"
    sent = replay.sent("/v1/messages")
    assert all(body["tools"] == sent[0]["tools"] for body in sent)
    search_tool = sent[0]["tools"][1]
    assert search_tool["name"] == "tool_search" and "defer_loading" not in search_tool
    assert search_tool["cache_control"] == {"type": "ephemeral"}
    references = sent[1]["messages"][-1]["content"][0]["content"]
    assert references[0] == {"type": "tool_reference", "tool_name": "github__create_issue"}
    assert all(block["type"] == "tool_reference" for block in references)
    assert result.outcomes[-1].content == {
        "ran": "github__create_issue",
        "arguments": {"repo": "acme/app", "title": "Crash"},
    }
    assert all(_valid(body, sdk_conforms) for body in sent)


async def test_the_step_limit_ends_a_turn_that_keeps_calling_tools(replay, make_scout):
    session = make_scout().session("s")
    for index in range(3):
        replay.anthropic(
            {"type": "text", "text": f"try {index}"}, _use(f"toolu_{index}", "tool_search", {"query": "x"})
        )
    async with _client(replay) as client:
        result = await run_anthropic_turn(session, client, USER, model="claude-opus-4-8", max_steps=3)
    assert (result.stopped, result.steps, result.text) == ("step_limit", 3, "try 2")
    assert result.messages[-1]["content"][0]["tool_use_id"] == "toolu_2"


async def test_a_pause_turn_is_resumed(replay, make_scout):
    session = make_scout().session("s")
    replay.anthropic({"type": "text", "text": "Working"}, stop_reason="pause_turn")
    replay.anthropic({"type": "text", "text": "Done."}, stop_reason="end_turn")
    async with _client(replay) as client:
        result = await run_anthropic_turn(session, client, USER, model="claude-opus-4-8", search="regex")
    assert (result.text, result.steps) == ("Done.", 2)
    assert replay.sent("/v1/messages")[1]["messages"][-1]["role"] == "assistant"


def test_a_sync_client_works_too(replay, make_scout):
    import anyio

    session = make_scout().session("s")
    replay.anthropic({"type": "text", "text": "Hello."}, stop_reason="end_turn")
    with anthropic.Anthropic(api_key="k", base_url=replay.url, max_retries=0) as client:
        result = anyio.run(lambda: run_anthropic_turn(session, client, USER, model="claude-opus-4-8"))
    assert result.text == "Hello."


async def test_native_turn_carries_the_tool_the_user_message_needs_in_full_on_its_first_request(replay, make_scout):
    presearch = {"enabled": True, "min_confidence": 0.7}
    session = make_scout("reveal", search_mode="lexical", presearch=presearch).session("pre")
    weather = "weather_forecast_1cb2de11"
    replay.anthropic(_use("toolu_1", weather, {"city": "Oslo"}))
    replay.anthropic({"type": "text", "text": "Sunny in Oslo."}, stop_reason="end_turn")
    async with _client(replay) as client:
        result = await run_anthropic_turn(session, client, USER, model="claude-opus-4-8")
    assert result.choice.style == "native"
    first = {tool["name"]: tool for tool in replay.sent("/v1/messages")[0]["tools"]}
    assert weather in first and not first[weather].get("defer_loading")
    assert f"search of it: {weather}." in replay.sent("/v1/messages")[0]["system"]
    assert [outcome.name for outcome in result.outcomes] == ["weather.forecast"]
