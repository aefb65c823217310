"""The stub and the offload tools' answers, through every provider adapter, as real request/reply shapes."""

import json

import pytest

from toolscout import CharsPerToken, ScoutSettings, ToolScout, ToolSpec
from toolscout.offload import Offloader, OffloadSettings
from toolscout.offload._internal import FileOffloadStore
from toolscout.providers import anthropic, gemini, openai_chat, openai_responses
from toolscout.providers._calls import dispatch_call

pytestmark = pytest.mark.anyio

BIG = "".join(f"{i} — row {'MATCH' if i == 4242 else 'x'}\n" for i in range(20_000))


def make(tmp_path) -> ToolScout:
    offloader = Offloader(
        OffloadSettings(budget_tokens=1000, preview_tokens=200),
        store=FileOffloadStore(tmp_path),
        token_counter=CharsPerToken(),
    )
    return ToolScout(
        [ToolSpec(name="files.dump", description="Dump a file.")],
        settings=ScoutSettings(mode="off"),
        executor=lambda call: BIG,
        token_counter=CharsPerToken(),
        offload=offloader,
    )


def chat_reply(name, arguments):
    call = {"id": "c1", "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}
    return {"choices": [{"message": {"role": "assistant", "tool_calls": [call]}}]}


def responses_reply(name, arguments):
    return {"output": [{"type": "function_call", "name": name, "arguments": json.dumps(arguments), "call_id": "c1"}]}


def anthropic_reply(name, arguments):
    return {"content": [{"type": "tool_use", "id": "c1", "name": name, "input": arguments}]}


def gemini_reply(name, arguments):
    return {"candidates": [{"content": {"parts": [{"functionCall": {"name": name, "args": arguments, "id": "c1"}}]}}]}


def chat_text(message):
    return message["content"]


def responses_text(item):
    return item["output"]


def anthropic_text(block):
    assert not block.get("is_error")
    return block["content"]


def gemini_text(part):
    return json.dumps(part["functionResponse"]["response"]["output"])


PROVIDERS = [
    pytest.param(openai_chat, chat_reply, chat_text, id="openai-chat"),
    pytest.param(openai_responses, responses_reply, responses_text, id="openai-responses"),
    pytest.param(anthropic, anthropic_reply, anthropic_text, id="anthropic"),
    pytest.param(gemini, gemini_reply, gemini_text, id="gemini"),
]


def tool_names(module, rendering) -> list[str]:
    tools = rendering.fields["tools"]
    if module is openai_chat:
        return [tool["function"]["name"] for tool in tools]
    if module is gemini:
        return [declaration["name"] for group in tools for declaration in group["functionDeclarations"]]
    return [tool["name"] for tool in tools]


@pytest.mark.parametrize(("module", "reply", "text_of"), PROVIDERS)
async def test_the_stub_and_a_search_round_trip_through_each_provider(tmp_path, module, reply, text_of):
    session = make(tmp_path).session("s")
    rendering = module.render(session)
    assert {"output_read", "output_search", "output_query"} <= set(tool_names(module, rendering))

    async def run(name, arguments):
        [call] = module.parse_calls(reply(rendering.names.to_provider(name), arguments), rendering.names)
        outcome = await dispatch_call(session, call, rendering.names)
        formatted = module.format_result(outcome, call, rendering)
        return json.loads(text_of(formatted))

    stub = await run("files.dump", {})
    assert stub["offloaded"] is True
    handle = stub["parts"][0]["handle"]
    found = await run("output_search", {"handle": handle, "pattern": "match", "context": 0})
    assert found["matches"] == [{"line": 4243, "text": "4242 — row MATCH"}]
