"""Across a session the rendered tools array only grows at its end, so provider prompt caches hold."""

import json

import pytest

from toolscout.providers import anthropic, gemini, openai_chat, openai_responses
from toolscout.providers._calls import CallKind, ProviderCall, dispatch_call, found_tools

pytestmark = pytest.mark.anyio

QUERIES = ["weather forecast", "github issue", "jira ticket", "slack message", "calendar event"]
CASES = [
    ("openai-chat", "bridge", None),
    ("openai-chat", "reveal", None),
    ("gemini", "bridge", None),
    ("gemini", "reveal", None),
    ("anthropic", "bridge", None),
    ("anthropic", "reveal", None),
    ("anthropic", "native", "hybrid"),
    ("anthropic", "native", "bm25"),
    ("anthropic", "native", "regex"),
    ("openai-responses", "bridge", None),
    ("openai-responses", "reveal", None),
    ("openai-responses", "native", "hosted"),
    ("openai-responses", "native", "client"),
]


def _render(provider, session, style, search, history):
    if provider == "anthropic":
        return anthropic.render(session, style=style, search=search or "hybrid", history=history, cache=True)
    if provider == "openai-responses":
        return openai_responses.render(session, style=style, search=search or "hosted", history=history)
    if provider == "openai-chat":
        return openai_chat.render(session, style=style)
    return gemini.render(session, style=style)


def _answer(provider, outcome, call, rendering):
    if rendering.search in ("bm25", "regex", "hosted"):
        return _server_search(provider, found_tools(outcome, rendering.names)[0], rendering)
    if provider == "anthropic":
        return {"role": "user", "content": [anthropic.format_result(outcome, call, rendering)]}
    if provider == "openai-responses":
        return openai_responses.format_result(outcome, call, rendering)
    if provider == "openai-chat":
        return openai_chat.format_result(outcome, call, rendering)
    return gemini.format_result(outcome, call, rendering)


def _server_search(provider, name, rendering):
    """What the provider's own search puts in the history when it loads `name` (our search picks it)."""
    mapped = rendering.names[name]
    if provider == "anthropic":
        result = {
            "type": "tool_search_tool_search_result",
            "tool_references": [{"type": "tool_reference", "tool_name": mapped}],
        }
        return {
            "role": "assistant",
            "content": [{"type": "tool_search_tool_result", "tool_use_id": "srv", "content": result}],
        }
    loaded = {"type": "function", "name": mapped, "defer_loading": True}
    return {
        "type": "tool_search_output",
        "execution": "server",
        "call_id": None,
        "status": "completed",
        "tools": [loaded],
    }


@pytest.mark.parametrize(("provider", "style", "search"), CASES, ids=lambda value: str(value))
async def test_the_tools_array_only_grows_at_its_end_over_five_steps(make_scout, provider, style, search):
    session = make_scout("reveal" if style == "reveal" else "bridge").session("cache")
    history: list[object] = []
    arrays: list[list[str]] = []
    guidance: set[str] = set()
    for query in QUERIES:
        rendering = _render(provider, session, style, search, history)
        tools = rendering.fields["tools"]
        if provider == "gemini":
            tools = tools[0]["functionDeclarations"]
        arrays.append([json.dumps(tool) for tool in tools])
        guidance.add(rendering.guidance)
        kind: CallKind = "search" if search == "client" else "tool"
        call = ProviderCall(
            name="tool_search",
            provider_name="tool_search",
            arguments={"query": query, "limit": 1},
            call_id=query,
            kind=kind,
        )
        outcome = await dispatch_call(session, call, rendering.names)
        history.append(_answer(provider, outcome, call, rendering))
    for before, after in zip(arrays, arrays[1:], strict=False):
        assert after[: len(before)] == before
    assert len(guidance) == 1
    grew = len(arrays[-1]) - len(arrays[0])
    assert grew == (4 if style == "reveal" else 0)
    assert len(session.discovered) == 5
