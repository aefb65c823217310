"""Bridge reads answer with typed records, and the model reads exactly their JSON."""

import dataclasses
import json

import pytest

from toolscout import CharsPerToken, ScoutSettings, ToolScout
from toolscout.dispatch import FoundTool, LoadAnswer, NamespaceCount, SearchAnswer, ToolOutcome
from toolscout.dispatch._internal import AnswerContext, ServerNotReady

from .conftest import TOOLS

pytestmark = pytest.mark.anyio


async def test_a_search_answers_with_a_search_record_whose_json_is_the_content(scout) -> None:
    outcome = await scout.session("s").dispatch("tool_search", {"query": "create a github issue"})
    answer = outcome.answer
    assert isinstance(answer, SearchAnswer)
    assert answer.query == "create a github issue" and answer.names[0] == "github__create_issue"
    assert answer.to_json() == outcome.content
    assert outcome.found == tuple(tool.to_json() for tool in answer.tools)


async def test_describe_and_search_by_names_answer_with_a_load_record(scout) -> None:
    session = scout.session("s")
    described = await session.dispatch("tool_describe", {"names": ["github__create_issue", "github__nope"]})
    loaded = await session.dispatch("tool_search", {"names": ["calendar__create_event"]})
    assert isinstance(described.answer, LoadAnswer) and isinstance(loaded.answer, LoadAnswer)
    assert described.answer.names == ("github__create_issue",)
    assert described.answer.not_found == ("github__nope",)
    assert described.answer.tools[0].parameters == scout.catalog["github__create_issue"].parameters
    assert described.answer.to_json() == described.content
    assert loaded.answer.names == ("calendar__create_event",)


async def test_a_browse_page_is_a_search_record_with_an_offset_and_names_only(scout) -> None:
    outcome = await scout.session("s").dispatch("tool_search", {"limit": 2})
    answer = outcome.answer
    assert isinstance(answer, SearchAnswer)
    assert (answer.offset, answer.next_offset, len(answer.tools)) == (0, 2, 2)
    assert all(tool.description is None for tool in answer.tools)


async def test_refusals_and_real_calls_carry_no_answer(scout) -> None:
    session = scout.session("s")
    refused = await session.dispatch("tool_search", {"query": 5})
    called = await session.dispatch("terminal", {})
    assert refused.error is not None and refused.answer is None and refused.found == ()
    assert called.answer is None


async def test_nothing_found_lists_suggestions_and_namespaces_after_the_hint(scout) -> None:
    outcome = await scout.session("s").dispatch("tool_search", {"query": "zzqx blorf"})
    answer = outcome.answer
    assert isinstance(answer, SearchAnswer) and answer.tools == ()
    assert answer.suggestions is not None
    assert answer.namespaces is not None and NamespaceCount(name="github", tools=2) in answer.namespaces
    assert list(outcome.content)[-3:] == ["hint", "suggestions", "namespaces"]


def test_the_json_keeps_one_key_order_whatever_fields_are_set() -> None:
    answer = SearchAnswer(
        query="q",
        pattern="p",
        total=9,
        offset=3,
        tools=(FoundTool(name="a", namespace="n", description="d", listed=True, parameters={"type": "object"}),),
        next_offset=4,
        not_revealed=("b",),
        hint="h",
        suggestions=("s",),
        namespaces=(NamespaceCount(name="n", tools=1),),
        servers_not_ready=(ServerNotReady(server="up", state="failed", error="boom"),),
        servers_note="note",
    )
    content = answer.to_json()
    assert list(content) == [
        "query",
        "pattern",
        "total",
        "offset",
        "tools",
        "next_offset",
        "not_revealed",
        "hint",
        "suggestions",
        "namespaces",
        "servers_not_ready",
        "servers_note",
    ]
    assert list(answer.tools[0].to_json()) == ["name", "namespace", "description", "listed", "parameters"]
    assert json.loads(json.dumps(content))["servers_not_ready"] == [
        {"server": "up", "state": "failed", "error": "boom"}
    ]


def test_renamed_passes_every_tool_name_through_the_map_and_keeps_names_as_written() -> None:
    answer = LoadAnswer(
        tools=(FoundTool(name="a.b"),),
        already_listed=("c.d",),
        not_found=("e.f",),
        candidates=("g.h",),
        hint="h",
    )
    renamed = answer.renamed(lambda name: name.replace(".", "_"))
    assert (renamed.names, renamed.already_listed, renamed.candidates) == (("a_b",), ("c_d",), ("g_h",))
    assert renamed.not_found == ("e.f",)


async def test_every_search_hit_is_a_whole_found_tool_equal_to_one_built_from_its_fields(scout) -> None:
    # search hits are built without FoundTool's __init__: each must still hold every field (an unset slot raises)
    for style in ("bridge", "reveal"):
        settings = ScoutSettings(mode="on", style=style, search_max_reveal=1)
        session = ToolScout(TOOLS, settings=settings).session("s")
        answer = (await session.dispatch("tool_search", {"query": "create an issue or an event", "limit": 4})).answer
        assert isinstance(answer, SearchAnswer) and len(answer.tools) > 1
        for tool in answer.tools:
            fields = {field.name: getattr(tool, field.name) for field in dataclasses.fields(FoundTool)}
            assert type(tool) is FoundTool and tool == FoundTool(**fields)
            assert fields["confidence"] is not None and fields["description"]
        assert any(tool.parameters is not None for tool in answer.tools) == (style == "reveal")


async def test_in_reveal_style_each_search_lists_as_listed_what_the_searches_before_it_revealed(scout) -> None:
    # the listing is kept with the discoveries it was made for: every new discovery must show in the next answer
    session = scout.replace(settings=ScoutSettings(mode="on", style="reveal", search_max_reveal=1)).session("s")
    revealed: list[str] = []
    for query in ["create a github issue", "create a github issue", "calendar event", "create a github issue"]:
        answer = (await session.dispatch("tool_search", {"query": query, "limit": 3})).answer
        assert isinstance(answer, SearchAnswer)
        for tool in answer.tools:
            assert tool.listed == (tool.name in revealed), (query, tool.name, revealed)
        revealed += [tool.name for tool in answer.tools if tool.parameters is not None]
    assert len(revealed) >= 3


async def test_in_reveal_style_a_revealed_tool_carries_its_schema(scout) -> None:
    revealing = scout.replace(settings=ScoutSettings(mode="on", style="reveal"))
    outcome = await revealing.session("s").dispatch("tool_search", {"query": "create a github issue"})
    assert isinstance(outcome.answer, SearchAnswer)
    assert outcome.answer.tools[0].parameters == scout.catalog["github__create_issue"].parameters


async def test_the_hosts_context_is_in_the_answer_the_after_call_hooks_see_and_the_caller_gets() -> None:
    """What a host adds (upstreams not ready, a reveal's hint) is applied before the outcome is built; a read
    that reveals nothing new keeps its own hint."""
    seen: list[tuple[ToolOutcome, str]] = []
    scout = ToolScout(
        TOOLS,
        settings=ScoutSettings(mode="on", style="reveal"),
        after_call=[lambda outcome: seen.append((outcome, outcome.to_text()))],
        token_counter=CharsPerToken(),
    )
    pending = (ServerNotReady(server="up", state="starting"),)
    context = AnswerContext(servers_not_ready=pending, servers_note="wait", reveal_hint="use tool_call")
    session = scout.session("s")
    first = await session.dispatch("tool_search", {"query": "github__create_issue"}, context=context)
    again = await session.dispatch("tool_search", {"query": "github__create_issue"}, context=context)
    assert [outcome for outcome, _ in seen] == [first, again]
    assert [text for _, text in seen] == [first.to_text(), again.to_text()]
    assert first.revealed == ("github__create_issue",) and again.revealed == ()
    assert isinstance(first.answer, SearchAnswer) and isinstance(again.answer, SearchAnswer)
    assert first.answer.hint == "use tool_call" and again.answer.hint != "use tool_call"
    for outcome in (first, again):
        assert json.loads(outcome.to_text())["servers_not_ready"] == [{"server": "up", "state": "starting"}]
