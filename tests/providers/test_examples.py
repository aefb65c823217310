"""Each example agent runs end to end against the local replay server, with the real SDK or HTTP client."""

import importlib.util
import json
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).parents[2] / "examples"
TIME = "time__get_current_time"


@pytest.fixture
def example(monkeypatch, replay):
    monkeypatch.syspath_prepend(str(EXAMPLES))
    for key in ("ANTHROPIC_AUTH_TOKEN", "TOOLSCOUT_MODEL", "TOOLSCOUT_SEARCH", "OPENAI_ORG_ID", "OPENAI_PROJECT_ID"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", replay.url)
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    monkeypatch.setenv("OPENAI_BASE_URL", replay.url + "/v1")
    monkeypatch.setenv("GEMINI_API_KEY", "test-key")
    monkeypatch.setenv("GEMINI_BASE_URL", replay.url)

    def load(name):
        spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    return load


def test_the_anthropic_agent_finds_a_tool_through_tool_references(example, replay, capsys):
    replay.anthropic(
        {"type": "tool_use", "id": "toolu_1", "name": "tool_search", "input": {"query": "current time in a time zone"}}
    )
    replay.anthropic({"type": "tool_use", "id": "toolu_2", "name": TIME, "input": {"timezone": "Asia/Tokyo"}})
    replay.anthropic({"type": "text", "text": "It is evening in Tokyo."}, stop_reason="end_turn")
    assert example("anthropic_agent").main(["What time is it in Tokyo?"]) == 0
    assert capsys.readouterr().out == "It is evening in Tokyo.\n"
    first, second, third = replay.sent("/v1/messages")
    assert first["model"] == "claude-sonnet-4-6" and len(first["tools"]) == 134
    assert sum(1 for tool in first["tools"] if tool.get("defer_loading")) == 131
    references = second["messages"][-1]["content"][0]["content"]
    assert {"type": "tool_reference", "tool_name": TIME} in references
    assert "(Asia/Tokyo)" in third["messages"][-1]["content"][0]["content"]


@pytest.mark.parametrize("search", ["hosted", "client"])
def test_the_responses_agent_uses_openai_tool_search(example, replay, capsys, monkeypatch, search):
    monkeypatch.setenv("TOOLSCOUT_SEARCH", search)
    call = {
        "type": "function_call",
        "id": "fc",
        "call_id": "call_2",
        "name": TIME,
        "arguments": '{"timezone": "Asia/Tokyo"}',
        "status": "completed",
    }
    if search == "hosted":
        loaded = {
            "type": "namespace",
            "name": "time",
            "description": "time tools",
            "tools": [{"type": "function", "name": TIME, "defer_loading": True}],
        }
        replay.responses(
            {
                "type": "tool_search_call",
                "id": "ts",
                "execution": "server",
                "call_id": None,
                "status": "completed",
                "arguments": {"paths": ["time"]},
            },
            {
                "type": "tool_search_output",
                "id": "to",
                "execution": "server",
                "call_id": None,
                "status": "completed",
                "tools": [loaded],
            },
            {**call, "namespace": "time"},
        )
    else:
        replay.responses(
            {
                "type": "tool_search_call",
                "id": "ts",
                "execution": "client",
                "call_id": "call_1",
                "status": "completed",
                "arguments": {"query": "current time"},
            }
        )
        replay.responses(call)
    replay.responses(
        {
            "type": "message",
            "id": "m",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": "Evening.", "annotations": []}],
        }
    )
    assert example("openai_responses_agent").main([]) == 0
    assert capsys.readouterr().out == "Evening.\n"
    sent = replay.sent("/responses")
    tools = sent[0]["tools"]
    if search == "hosted":
        namespace = next(tool for tool in tools if tool.get("name") == "time")
        assert TIME in [member["name"] for member in namespace["tools"]]
    else:
        assert tools[-1]["execution"] == "client"
        assert TIME in [tool["name"] for tool in sent[1]["input"][-1]["tools"]]
    assert "(Asia/Tokyo)" in sent[-1]["input"][-1]["output"]


def test_the_chat_agent_reveals_then_calls_directly(example, replay, capsys):
    search = json.dumps({"query": "current time in a time zone", "limit": 1})
    replay.chat(tool_calls=[{"id": "c1", "type": "function", "function": {"name": "tool_search", "arguments": search}}])
    replay.chat(
        tool_calls=[
            {"id": "c2", "type": "function", "function": {"name": TIME, "arguments": '{"timezone": "Asia/Tokyo"}'}}
        ]
    )
    replay.chat(content="Evening in Tokyo.")
    assert example("openai_chat_agent").main(["Time in Tokyo?"]) == 0
    assert capsys.readouterr().out == "Evening in Tokyo.\n"
    first, second, _ = replay.sent("/chat/completions")
    assert [tool["function"]["name"] for tool in first["tools"]][-1] == "tool_search"
    assert [tool["function"]["name"] for tool in second["tools"]][-1] == TIME


def test_the_gemini_agent_runs_the_bridge_over_plain_http(example, replay, capsys):
    replay.gemini({"functionCall": {"name": "tool_search", "args": {"query": "current time"}}})
    replay.gemini(
        {"functionCall": {"name": "tool_call", "args": {"name": TIME, "arguments": {"timezone": "Asia/Tokyo"}}}}
    )
    replay.gemini({"text": "Evening in Tokyo."})
    assert example("gemini_agent").main(["Time in Tokyo?"]) == 0
    assert capsys.readouterr().out == "Evening in Tokyo.\n"
    sent = replay.sent(":generateContent")
    assert replay.received[0][0] == "/v1beta/models/gemini-2.5-flash:generateContent"
    assert replay.headers(":generateContent")[0]["x-goog-api-key"] == "test-key"
    names = [item["name"] for item in sent[0]["tools"][0]["functionDeclarations"]]
    assert names[-3:] == ["tool_search", "tool_describe", "tool_call"]
    answer = sent[2]["contents"][-1]["parts"][0]["functionResponse"]
    assert answer["name"] == "tool_call" and "(Asia/Tokyo)" in answer["response"]["output"]
