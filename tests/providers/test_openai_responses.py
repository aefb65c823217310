import pytest
from openai.types.responses import ToolParam
from openai.types.responses.response_input_item_param import FunctionCallOutput
from openai.types.responses.response_tool_search_output_item_param_param import ResponseToolSearchOutputItemParamParam

from toolscout.providers import openai_responses
from toolscout.providers._calls import dispatch_call

pytestmark = pytest.mark.anyio


def test_hosted_native_groups_deferred_functions_into_namespaces_by_server(make_scout, sdk_conforms):
    rendering = openai_responses.render(make_scout().session("s"), style="native")
    tools = rendering.fields["tools"]
    assert [tool["type"] for tool in tools] == ["function", "tool_search", *["namespace"] * 5, "function"]
    assert tools[1] == {"type": "tool_search"}
    github = next(tool for tool in tools if tool.get("name") == "github")
    assert [member["name"] for member in github["tools"]] == [
        "github__create_issue",
        "github__list_issues",
        "github__close_issue",
    ]
    assert all(member["defer_loading"] is True for member in github["tools"])
    assert tools[-1]["name"] == "convert_currency" and tools[-1]["defer_loading"] is True
    assert "defer_loading" not in tools[0]
    assert all(sdk_conforms(ToolParam, tool) for tool in tools)
    assert rendering.fields["instructions"].startswith("Some of your tools are loaded on demand.")


def test_client_native_declares_a_client_search_tool_and_no_deferred_tool(make_scout, sdk_conforms):
    rendering = openai_responses.render(make_scout().session("s"), style="native", search="client")
    tools = rendering.fields["tools"]
    assert [tool.get("name", tool["type"]) for tool in tools] == ["terminal", "tool_search"]
    assert tools[1]["execution"] == "client" and tools[1]["parameters"]["required"] == ["query"]
    assert all(sdk_conforms(ToolParam, tool) for tool in tools)


def test_the_client_search_tool_states_the_configured_default_limit(make_scout):
    session = make_scout(search_default_limit=8).session("s")
    tools = openai_responses.render(session, style="native", search="client").fields["tools"]
    assert tools[1]["parameters"]["properties"]["limit"]["description"] == "How many tools to load (default 8)."


def test_client_side_styles_send_plain_functions(make_scout, sdk_conforms):
    tools = openai_responses.render(make_scout("reveal").session("s")).fields["tools"]
    assert [tool["name"] for tool in tools] == ["terminal", "tool_search"]
    assert tools[0]["strict"] is False
    assert all(sdk_conforms(ToolParam, tool) for tool in tools)


async def test_a_client_tool_search_call_is_answered_with_full_definitions(make_scout, sdk_conforms):
    session = make_scout().session("s")
    rendering = openai_responses.render(session, style="native", search="client")
    item = {
        "type": "tool_search_call",
        "id": "tsc_1",
        "execution": "client",
        "call_id": "call_abc",
        "status": "completed",
        "arguments": {"query": "open a github issue", "limit": 1},
    }
    [call] = openai_responses.parse_calls({"output": [item]}, rendering.names)
    assert call.kind == "search" and call.call_id == "call_abc"
    output = openai_responses.format_result(await dispatch_call(session, call, rendering.names), call, rendering)
    assert output["type"] == "tool_search_output" and output["call_id"] == "call_abc"
    assert [tool["name"] for tool in output["tools"]] == ["github__create_issue"]
    assert output["tools"][0]["parameters"]["required"] == ["repo", "title"]
    assert sdk_conforms(ResponseToolSearchOutputItemParamParam, output)
    assert session.discovered == ("github__create_issue",)


async def test_search_calls_with_goal_or_paths_arguments_still_search(make_scout):
    session = make_scout().session("s")
    rendering = openai_responses.render(session, style="native", search="client")
    for arguments in ({"goal": "weather forecast"}, {"paths": ["weather"]}):
        item = {"type": "tool_search_call", "execution": "client", "call_id": "c", "arguments": arguments}
        [call] = openai_responses.parse_calls({"output": [item]}, rendering.names)
        output = openai_responses.format_result(await dispatch_call(session, call, rendering.names), call, rendering)
        assert [tool["name"] for tool in output["tools"]][:1] == [rendering.names["weather.forecast"]]


async def test_a_function_call_in_a_namespace_is_dispatched_and_answered(make_scout, sdk_conforms):
    session = make_scout().session("s")
    rendering = openai_responses.render(session, style="native")
    item = {
        "type": "function_call",
        "id": "fc_1",
        "call_id": "call_1",
        "name": "github__create_issue",
        "namespace": "github",
        "arguments": '{"repo": "acme/app", "title": "Crash"}',
        "status": "completed",
    }
    [call] = openai_responses.parse_calls({"output": [item]}, rendering.names)
    assert call.namespace == "github"
    output = openai_responses.format_result(await dispatch_call(session, call, rendering.names), call, rendering)
    assert output == {
        "type": "function_call_output",
        "call_id": "call_1",
        "output": '{"ran": "github__create_issue", "arguments": {"repo": "acme/app", "title": "Crash"}}',
    }
    assert sdk_conforms(FunctionCallOutput, output)


def test_hosted_search_outputs_are_read_as_discoveries_and_history(make_scout):
    rendering = openai_responses.render(make_scout().session("s"), style="native")
    loaded = {
        "type": "tool_search_output",
        "execution": "server",
        "call_id": None,
        "status": "completed",
        "tools": [
            {
                "type": "namespace",
                "name": "jira",
                "description": "d",
                "tools": [{"type": "function", "name": "jira__create_ticket"}],
            }
        ],
    }
    assert openai_responses.discoveries({"output": [loaded]}, rendering.names) == ("jira__create_ticket",)
    assert openai_responses.referenced([loaded]) == {"jira__create_ticket"}


def test_answer_text_reads_the_message_items():
    response = {"output": [{"type": "message", "content": [{"type": "output_text", "text": "Done."}]}]}
    assert openai_responses.answer_text(response) == "Done."
