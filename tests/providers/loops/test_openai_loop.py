import json

import anthropic
import openai
import pytest
from openai.types.chat import ChatCompletionMessageParam, ChatCompletionToolUnionParam
from openai.types.responses import ResponseInputItemParam, ToolParam

from toolscout.providers.loops.anthropic_loop import run_anthropic_turn
from toolscout.providers.loops.openai_loop import run_chat_turn, run_responses_turn

pytestmark = pytest.mark.anyio

WEATHER = "weather_forecast_1cb2de11"


def _client(replay):
    return openai.AsyncOpenAI(api_key="test-key", base_url=replay.url + "/v1", max_retries=0)


def _chat_call(call_id, name, arguments):
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}


def _message(text):
    return {
        "type": "message",
        "id": "msg_1",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }


async def test_reveal_turn_searches_then_calls_the_revealed_tool_directly(replay, make_scout, sdk_conforms):
    session = make_scout("reveal").session("s")
    replay.chat(tool_calls=[_chat_call("call_1", "tool_search", {"query": "weather forecast", "limit": 1})])
    replay.chat(tool_calls=[_chat_call("call_2", WEATHER, {"city": "Oslo"})])
    replay.chat(content="Sunny in Oslo.")
    async with _client(replay) as client:
        result = await run_chat_turn(
            session, client, [{"role": "user", "content": "Weather in Oslo?"}], model="gpt-4.1"
        )
    assert (result.text, result.steps, result.choice.style) == ("Sunny in Oslo.", 3, "reveal")
    sent = replay.sent("/chat/completions")
    names = [[tool["function"]["name"] for tool in body["tools"]] for body in sent]
    assert names == [
        ["terminal", "tool_search"],
        ["terminal", "tool_search", WEATHER],
        ["terminal", "tool_search", WEATHER],
    ]
    assert sent[0]["messages"][0]["role"] == "system" and "tool_search" in sent[0]["messages"][0]["content"]
    assert sent[2]["messages"][-1] == {"role": "tool", "tool_call_id": "call_2", "content": "Oslo: sunny, 21 °C"}
    assert not result.outcomes[1].bridged and result.outcomes[1].name == "weather.forecast"
    for body in sent:
        assert all(sdk_conforms(ChatCompletionToolUnionParam, tool) for tool in body["tools"])
        assert all(sdk_conforms(ChatCompletionMessageParam, message) for message in body["messages"])
    assert result.messages[0] == {"role": "user", "content": "Weather in Oslo?"}


async def test_client_executed_tool_search_is_answered_with_a_tool_search_output(replay, make_scout, sdk_conforms):
    session = make_scout().session("s")
    search = {
        "type": "tool_search_call",
        "id": "tsc_1",
        "execution": "client",
        "call_id": "call_ts",
        "status": "completed",
        "arguments": {"query": "open a github issue", "limit": 1},
    }
    call = {
        "type": "function_call",
        "id": "fc_1",
        "call_id": "call_fc",
        "name": "github__create_issue",
        "arguments": '{"repo": "acme/app", "title": "Crash"}',
        "status": "completed",
    }
    replay.responses(search)
    replay.responses(call)
    replay.responses(_message("Opened."))
    async with _client(replay) as client:
        result = await run_responses_turn(
            session, client, [{"role": "user", "content": "File a bug"}], model="gpt-5.4", search="client"
        )
    assert (result.text, result.choice.style) == ("Opened.", "native")
    sent = replay.sent("/responses")
    assert all(body["tools"] == sent[0]["tools"] for body in sent)
    assert sent[0]["tools"][1]["type"] == "tool_search" and sent[0]["tools"][1]["execution"] == "client"
    output = sent[1]["input"][-1]
    assert output["type"] == "tool_search_output" and output["call_id"] == "call_ts"
    assert output["tools"][0]["name"] == "github__create_issue" and output["tools"][0]["parameters"]["required"]
    assert sent[2]["input"][-1]["type"] == "function_call_output"
    for body in sent:
        assert all(sdk_conforms(ToolParam, tool) for tool in body["tools"])
        assert all(
            sdk_conforms(ResponseInputItemParam, item) for item in body["input"][2:] if item["type"] != "message"
        )
    assert session.discovered == ("github__create_issue",)


async def test_hosted_tool_search_loads_are_recorded_as_discoveries(replay, make_scout, sdk_conforms):
    session = make_scout().session("s")
    loaded = {
        "type": "namespace",
        "name": "github",
        "description": "github tools",
        "tools": [{"type": "function", "name": "github__list_issues", "defer_loading": True, "parameters": {}}],
    }
    replay.responses(
        {
            "type": "tool_search_call",
            "id": "ts",
            "execution": "server",
            "call_id": None,
            "status": "completed",
            "arguments": {"paths": ["github"]},
        },
        {
            "type": "tool_search_output",
            "id": "to",
            "execution": "server",
            "call_id": None,
            "status": "completed",
            "tools": [loaded],
        },
        {
            "type": "function_call",
            "id": "fc",
            "call_id": "call_1",
            "name": "github__list_issues",
            "namespace": "github",
            "arguments": "{}",
            "status": "completed",
        },
    )
    replay.responses(_message("Two open issues."))
    async with _client(replay) as client:
        result = await run_responses_turn(session, client, [{"role": "user", "content": "Issues?"}], model="gpt-5.4")
    assert result.text == "Two open issues."
    first, second = replay.sent("/responses")
    assert first["tools"] == second["tools"] and {"type": "tool_search"} in first["tools"]
    assert [item["type"] for item in second["input"][1:]] == [
        "tool_search_call",
        "tool_search_output",
        "function_call",
        "function_call_output",
    ]
    assert session.discovered == ("github__list_issues",)
    assert all(sdk_conforms(ToolParam, tool) for tool in first["tools"])
    assert all(sdk_conforms(ResponseInputItemParam, item) for item in second["input"])


async def test_discoveries_follow_the_session_across_a_provider_switch(replay, make_scout):
    scout = make_scout("reveal")
    session = scout.session("shared")
    replay.anthropic(
        {"type": "tool_use", "id": "toolu_1", "name": "tool_search", "input": {"query": "weather forecast", "limit": 1}}
    )
    replay.anthropic({"type": "text", "text": "Found it."}, stop_reason="end_turn")
    replay.chat(content="Still here.")
    replay.responses(_message("And here."))
    user = [{"role": "user", "content": "Weather?"}]
    async with anthropic.AsyncAnthropic(api_key="k", base_url=replay.url, max_retries=0) as claude:
        await run_anthropic_turn(session, claude, user, model="claude-opus-4-8", style="reveal")
    async with _client(replay) as client:
        await run_chat_turn(session, client, user, model="gpt-4.1")
        await run_responses_turn(session, client, user, model="gpt-5.4")
    chat = replay.sent("/chat/completions")[0]
    assert [tool["function"]["name"] for tool in chat["tools"]] == ["terminal", "tool_search", WEATHER]
    responses = replay.sent("/responses")[0]["tools"]
    assert [tool.get("name", tool["type"]) for tool in responses[:3]] == ["terminal", "tool_search", WEATHER]
    assert "defer_loading" not in responses[2]
    assert all(WEATHER not in json.dumps(tool) for tool in responses[3:])


def test_a_sync_openai_client_works_too(replay, make_scout):
    import anyio

    session = make_scout().session("s")
    replay.chat(content="Hi.")
    with openai.OpenAI(api_key="k", base_url=replay.url + "/v1", max_retries=0) as client:
        result = anyio.run(lambda: run_chat_turn(session, client, [{"role": "user", "content": "Hi"}], model="gpt-4.1"))
    assert result.text == "Hi."


def _presearching(make_scout):
    return make_scout("reveal", search_mode="lexical", presearch={"enabled": True, "min_confidence": 0.7})


async def test_chat_turn_offers_the_tool_the_user_message_needs_on_its_first_request(replay, make_scout):
    session = _presearching(make_scout).session("pre")
    replay.chat(tool_calls=[_chat_call("call_1", WEATHER, {"city": "Oslo"})])
    replay.chat(content="Sunny in Oslo.")
    async with _client(replay) as client:
        result = await run_chat_turn(
            session, client, [{"role": "user", "content": "Weather in Oslo?"}], model="gpt-4.1"
        )
    sent = replay.sent("/chat/completions")
    assert [tool["function"]["name"] for tool in sent[0]["tools"]] == ["terminal", "tool_search", WEATHER]
    assert f"search of it: {WEATHER}." in sent[0]["messages"][0]["content"]
    assert [outcome.name for outcome in result.outcomes] == ["weather.forecast"]


async def test_responses_turn_offers_nothing_for_an_unrelated_message_and_reads_a_follow_up(replay, make_scout):
    session = _presearching(make_scout).session("pre-r")
    for text in ("Meow.", "Sunny in Oslo.", "Cloudy in Bergen."):
        replay.responses(_message(text))
    history: list[object] = []
    async with _client(replay) as client:
        for said in ("Tell me a joke about cats", "Weather in Oslo?", "now the same for Bergen"):
            turn = await run_responses_turn(
                session, client, [*history, {"role": "user", "content": said}], model="gpt-4.1"
            )
            history = turn.messages
    names = [[tool.get("name") for tool in body.get("tools", [])] for body in replay.sent("/responses")]
    assert WEATHER not in names[0]
    assert WEATHER in names[1]
    assert WEATHER in names[2]  # pre-searched tools are never stored: the follow-up found it again
