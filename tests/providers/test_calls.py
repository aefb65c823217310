import pytest

from toolscout.providers import anthropic, dispatch_call
from toolscout.providers._calls import ProviderCall
from toolscout.providers._internal import presented

pytestmark = pytest.mark.anyio


async def test_describe_accepts_provider_names_and_answers_with_them(make_scout):
    session = make_scout().session("s")
    names = anthropic.render(session).names
    mapped = names["weather.forecast"]
    call = ProviderCall(name="tool_describe", provider_name="tool_describe", arguments={"names": [mapped]}, call_id="d")
    outcome = await dispatch_call(session, call, names)
    assert outcome.error is None
    assert presented(outcome, names)["tools"][0]["name"] == mapped
    assert outcome.content["tools"][0]["name"] == "weather.forecast"


async def test_error_candidates_are_presented_with_provider_names(make_scout):
    session = make_scout().session("s")
    names = anthropic.render(session).names
    call = ProviderCall(name="weather.forecst", provider_name="weather.forecst", arguments={}, call_id="x")
    outcome = await dispatch_call(session, call, names)
    assert outcome.error.code == "unknown_tool"
    assert presented(outcome, names)["error"]["candidates"][0] == names["weather.forecast"]


async def test_a_handler_result_is_never_rewritten(make_scout):
    session = make_scout().session("s")
    names = anthropic.render(session).names
    call = ProviderCall(name="terminal", provider_name="terminal", arguments={"command": "ls"}, call_id="t")
    outcome = await dispatch_call(session, call, names)
    assert presented(outcome, names) is outcome.content


async def test_bad_json_arguments_reach_dispatch_and_come_back_as_an_error(make_scout):
    session = make_scout().session("s")
    names = anthropic.render(session).names
    call = ProviderCall(name="tool_call", provider_name="tool_call", arguments="{not json", call_id="b")
    outcome = await dispatch_call(session, call, names)
    assert outcome.error.code == "invalid_arguments_json"


async def test_a_load_by_name_in_tool_search_accepts_provider_names(make_scout):
    session = make_scout("reveal").session("s")
    names = anthropic.render(session).names
    mapped = names["weather.forecast"]
    assert mapped != "weather.forecast"
    call = ProviderCall(name="tool_search", provider_name="tool_search", arguments={"names": [mapped]}, call_id="n")
    outcome = await dispatch_call(session, call, names)
    assert outcome.revealed == ("weather.forecast",)
    assert presented(outcome, names)["tools"][0]["name"] == mapped
    assert mapped in [tool["name"] for tool in anthropic.render(session).fields["tools"]]
