"""Every provider's payload and answers under configured bridge tool names."""

from __future__ import annotations

import json
import re

import pytest

from toolscout import BridgeNames
from toolscout.providers import ProviderCall, anthropic, dispatch_call, get_provider, openai_responses

pytestmark = pytest.mark.anyio

NAMES = BridgeNames(search="search_tools", describe="add_tool", call="run_tool")
# The provider's own search tool types keep their names (OpenAI `tool_search`, Anthropic `tool_search_tool_*`).
_PROVIDER_TYPES = re.compile(r'"type": "tool_search"|"tool_search_tool_\w+"')


@pytest.mark.parametrize(
    ("provider", "style", "search"),
    [
        ("openai-chat", "bridge", None),
        ("openai-chat", "reveal", None),
        ("openai-responses", "bridge", None),
        ("openai-responses", "native", "hosted"),
        ("openai-responses", "native", "client"),
        ("anthropic", "bridge", None),
        ("anthropic", "reveal", None),
        ("anthropic", "native", "hybrid"),
        ("anthropic", "native", "bm25"),
        ("gemini", "bridge", None),
        ("gemini", "reveal", None),
    ],
)
def test_the_request_names_only_the_configured_bridge_tools(make_scout, provider, style, search) -> None:
    scout = make_scout("reveal" if style == "reveal" else "bridge", bridge_names=NAMES)
    rendering = get_provider(provider).render(scout.session("s"), style=style, search=search)
    sent = _PROVIDER_TYPES.sub("", json.dumps(rendering.fields))
    assert not [name for name in ("tool_search", "tool_describe", "tool_call") if name in sent]
    if search not in ("hosted", "bm25"):
        assert "search_tools" in sent


async def test_anthropic_hybrid_search_under_another_name_answers_with_tool_references(make_scout) -> None:
    session = make_scout(bridge_names=NAMES).session("s")
    rendering = anthropic.render(session, style="native")
    arguments = {"query": "weather forecast"}
    call = ProviderCall(name="search_tools", provider_name="search_tools", arguments=arguments, call_id="t")
    result = anthropic.format_result(await dispatch_call(session, call, rendering.names), call, rendering)
    assert result["content"][0] == {"type": "tool_reference", "tool_name": rendering.names["weather.forecast"]}


async def test_an_openai_client_search_runs_the_configured_search_tool(make_scout) -> None:
    session = make_scout(bridge_names=NAMES).session("s")
    rendering = openai_responses.render(session, style="native", search="client")
    arguments = {"query": "open a github issue"}
    item = {"type": "tool_search_call", "execution": "client", "call_id": "c", "arguments": arguments}
    [call] = openai_responses.parse_calls({"output": [item]}, rendering.names)
    outcome = await dispatch_call(session, call, rendering.names)
    assert call.name == outcome.name == "search_tools"
    output = openai_responses.format_result(outcome, call, rendering)
    assert [tool["name"] for tool in output["tools"]][:1] == ["github__create_issue"]
