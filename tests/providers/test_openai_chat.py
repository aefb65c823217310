import json

import pytest
from openai.types.chat import ChatCompletionMessageParam, ChatCompletionToolUnionParam

from toolscout import ConfigError
from toolscout.providers import openai_chat
from toolscout.providers._calls import dispatch_call

pytestmark = pytest.mark.anyio


def test_bridge_style_renders_function_tools_and_a_system_message(make_scout, sdk_conforms):
    rendering = openai_chat.render(make_scout().session("s"))
    tools = rendering.fields["tools"]
    assert [tool["function"]["name"] for tool in tools] == ["terminal", "tool_search", "tool_describe", "tool_call"]
    assert all(sdk_conforms(ChatCompletionToolUnionParam, tool) for tool in tools)
    [system] = rendering.fields["messages"]
    assert system["role"] == "system" and "tool_call" in system["content"]


def test_native_style_is_refused_with_the_remedy(make_scout):
    with pytest.raises(ConfigError) as error:
        openai_chat.render(make_scout().session("s"), style="native")
    assert error.value.key == "style" and "openai-responses" in str(error.value)


async def test_a_bridged_call_by_provider_name_reaches_the_real_tool(make_scout, sdk_conforms):
    session = make_scout().session("s")
    rendering = openai_chat.render(session)
    mapped = rendering.names["weather.forecast"]
    arguments = json.dumps({"name": mapped, "arguments": {"city": "Oslo"}})
    response = {
        "choices": [
            {
                "message": {
                    "role": "assistant",
                    "tool_calls": [
                        {"id": "call_1", "type": "function", "function": {"name": "tool_call", "arguments": arguments}}
                    ],
                }
            }
        ]
    }
    [call] = openai_chat.parse_calls(response, rendering.names)
    outcome = await dispatch_call(session, call, rendering.names)
    assert outcome.name == "weather.forecast" and outcome.bridged
    message = openai_chat.format_result(outcome, call, rendering)
    assert message == {"role": "tool", "tool_call_id": "call_1", "content": "Oslo: sunny, 21 °C"}
    assert sdk_conforms(ChatCompletionMessageParam, message)


async def test_search_results_name_tools_as_the_provider_knows_them(make_scout):
    session = make_scout().session("s")
    rendering = openai_chat.render(session)
    response = {
        "choices": [
            {
                "message": {
                    "role": "assistant",
                    "tool_calls": [
                        {
                            "id": "c",
                            "type": "function",
                            "function": {"name": "tool_search", "arguments": '{"query": "weather"}'},
                        }
                    ],
                }
            }
        ]
    }
    [call] = openai_chat.parse_calls(response, rendering.names)
    content = json.loads(
        openai_chat.format_result(await dispatch_call(session, call, rendering.names), call, rendering)["content"]
    )
    assert content["tools"][0]["name"] == rendering.names["weather.forecast"] != "weather.forecast"


def test_answer_text_reads_the_first_choice():
    assert openai_chat.answer_text({"choices": [{"message": {"content": "Hi"}}]}) == "Hi"
    assert openai_chat.answer_text({"choices": []}) == ""
