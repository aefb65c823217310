import json

import pytest

from toolscout import Scope, ToolCall, ToolError, ToolOutcome, ToolScout
from toolscout.dispatch._call import BridgeAnswer

pytestmark = pytest.mark.anyio

VALID = {"repo": "acme/api", "title": "Crash on start"}


async def test_search_finds_the_relevant_tool_first(scout):
    outcome = await scout.session("s").dispatch("tool_search", {"query": "create a github issue"})
    assert not outcome.is_error
    assert outcome.content["tools"][0]["name"] == "github__create_issue"
    assert outcome.content["tools"][0]["namespace"] == "github"


async def test_nonsense_query_returns_no_padding_but_guidance(scout):
    outcome = await scout.session("s").dispatch("tool_search", {"query": "asdf qwerty foobar"})
    assert outcome.content["tools"] == []
    assert {item["name"] for item in outcome.content["namespaces"]} >= {"github", "slack", "calendar"}
    assert "before deciding the capability is missing" in outcome.content["hint"]


async def test_a_query_of_numbers_no_tool_mentions_finds_nothing_rather_than_failing(scout):
    for query in ("4", "2024 17"):
        outcome = await scout.session("s").dispatch("tool_search", {"query": query})
        assert not outcome.is_error, outcome.content
        assert outcome.content["tools"] == []


async def test_search_respects_the_limit(scout):
    outcome = await scout.session("s").dispatch("tool_search", {"query": "github", "limit": 1})
    assert len(outcome.content["tools"]) == 1


async def test_empty_query_browses_the_catalog_page_by_page(scout):
    session = scout.session("s")
    first = await session.dispatch("tool_search", {"query": "", "limit": 2})
    assert first.content["total"] == 6
    assert len(first.content["tools"]) == 2
    second = await session.dispatch("tool_search", {"query": "", "limit": 2, "offset": first.content["next_offset"]})
    names = [tool["name"] for tool in first.content["tools"] + second.content["tools"]]
    assert len(set(names)) == 4


async def test_search_with_a_non_string_query_is_a_structured_error(scout):
    outcome = await scout.session("s").dispatch("tool_search", {"query": ["a"]})
    assert outcome.error.code == "invalid_request"


async def test_describe_returns_the_full_schema(scout):
    outcome = await scout.session("s").dispatch("tool_describe", {"names": ["github__create_issue"]})
    assert outcome.content["tools"][0]["parameters"] == scout.catalog["github__create_issue"].parameters


async def test_describe_needs_names(scout):
    outcome = await scout.session("s").dispatch("tool_describe", {})
    assert outcome.error.code == "invalid_request"


async def test_describing_a_core_tool_says_it_is_already_listed(scout):
    outcome = await scout.session("s").dispatch("tool_describe", {"names": ["terminal"]})
    assert outcome.content["already_listed"] == ["terminal"]
    assert outcome.content["tools"] == []


async def test_describe_reports_unknown_names_alongside_known_ones(scout):
    outcome = await scout.session("s").dispatch("tool_describe", {"names": ["github__create_issue", "create_isue"]})
    assert outcome.content["not_found"] == ["create_isue"]
    assert "github__create_issue" in outcome.content["candidates"]


async def test_tool_call_unwraps_and_runs_the_real_tool(scout, calls):
    outcome = await scout.session("s").dispatch("tool_call", {"name": "github__create_issue", "arguments": VALID})
    assert outcome.content == {"ok": True, "tool": "github__create_issue"}
    assert outcome.name == "github__create_issue"
    assert outcome.requested == "tool_call"
    assert outcome.bridged
    assert calls == [("github__create_issue", VALID)]


async def test_tool_call_arguments_may_be_a_json_string(scout, calls):
    outcome = await scout.session("s").dispatch(
        "tool_call", {"name": "github__create_issue", "arguments": json.dumps(VALID)}
    )
    assert not outcome.is_error
    assert calls == [("github__create_issue", VALID)]


async def test_the_whole_tool_call_may_arrive_as_a_json_string(scout, calls):
    outcome = await scout.session("s").dispatch(
        "tool_call", json.dumps({"name": "github__search_repos", "arguments": {}})
    )
    assert not outcome.is_error


async def test_malformed_json_arguments_are_refused_mentioning_json(scout, calls):
    outcome = await scout.session("s").dispatch("tool_call", {"name": "github__create_issue", "arguments": "{bad"})
    assert outcome.error.code == "invalid_arguments_json"
    assert "JSON" in outcome.error.message
    assert outcome.content["tool_not_run"] is True
    assert calls == []


@pytest.mark.parametrize("blank", [None, "", "   "])
async def test_blank_arguments_mean_no_arguments(scout, calls, blank):
    outcome = await scout.session("s").dispatch("tool_call", {"name": "github__search_repos", "arguments": blank})
    assert not outcome.is_error
    assert calls == [("github__search_repos", {})]


@pytest.mark.parametrize("arguments", [[1, 2], 42, "[1]", True])
async def test_arguments_that_are_not_an_object_are_refused(scout, calls, arguments):
    outcome = await scout.session("s").dispatch("tool_call", {"name": "github__search_repos", "arguments": arguments})
    assert outcome.error.code == "arguments_not_object"
    assert calls == []


async def test_tool_call_cannot_call_a_bridge_tool(scout):
    for bridge in ("tool_call", "tool_search", "tool_describe"):
        outcome = await scout.session("s").dispatch("tool_call", {"name": bridge, "arguments": {}})
        assert outcome.error.code == "bridge_recursion"


async def test_tool_call_refuses_core_tools(scout, calls):
    outcome = await scout.session("s").dispatch("tool_call", {"name": "terminal", "arguments": {}})
    assert outcome.error.code == "call_directly"
    assert calls == []


async def test_unknown_tool_gets_close_names(scout):
    outcome = await scout.session("s").dispatch("tool_call", {"name": "github__create_isue", "arguments": {}})
    assert outcome.error.code == "unknown_tool"
    assert outcome.error.candidates[0] == "github__create_issue"


async def test_unknown_direct_call_is_never_silently_dropped(scout):
    outcome = await scout.session("s").dispatch("nonexistent_tool", {})
    assert outcome.error.code == "unknown_tool"
    assert outcome.content["tool_not_run"] is True


async def test_missing_required_argument_returns_the_schema(scout, calls):
    outcome = await scout.session("s").dispatch(
        "tool_call", {"name": "github__create_issue", "arguments": {"repo": "acme/api"}}
    )
    assert outcome.error.code == "invalid_arguments"
    assert "title" in outcome.error.message
    assert outcome.content["error"]["schema"] == scout.catalog["github__create_issue"].parameters
    assert "not run" in outcome.error.hint
    assert calls == []


@pytest.mark.parametrize(
    ("extra", "path", "constraint"),
    [
        pytest.param({"priority": "urgent"}, "priority", "enum", id="bad-enum"),
        pytest.param({"labels": "bug"}, "labels", "type", id="wrong-type"),
        pytest.param({"meta": {}}, "meta", "required", id="nested-required"),
        pytest.param({"meta": {"due": "x", "other": 1}}, "meta", "additionalProperties", id="nested-extra"),
        pytest.param({"labels": ["ok", 3]}, "labels/1", "type", id="array-item"),
    ],
)
async def test_schema_violations_name_the_field_and_the_constraint(scout, calls, extra, path, constraint):
    outcome = await scout.session("s").dispatch(
        "tool_call", {"name": "github__create_issue", "arguments": {**VALID, **extra}}
    )
    assert outcome.error.code == "invalid_arguments"
    assert outcome.content["error"]["path"] == path
    assert outcome.content["error"]["constraint"] == constraint
    assert calls == []


async def test_every_bad_argument_is_reported_in_one_answer(scout, calls):
    arguments = {"repo": "acme/api", "priority": "urgent", "labels": ["ok", 3], "meta": {}}
    outcome = await scout.session("s").dispatch("tool_call", {"name": "github__create_issue", "arguments": arguments})
    assert outcome.error.code == "invalid_arguments"
    problems = {(item["path"], item["constraint"]) for item in outcome.content["error"]["errors"]}
    assert problems == {("/", "required"), ("priority", "enum"), ("labels/1", "type"), ("meta", "required")}
    for word in ("title", "urgent", "labels/1", "due"):
        assert word in outcome.error.message
    assert outcome.content["error"]["schema"] == scout.catalog["github__create_issue"].parameters
    assert calls == []


async def test_numeric_strings_are_coerced_when_the_schema_wants_a_number(scout, calls):
    outcome = await scout.session("s").dispatch(
        "tool_call", {"name": "github__create_issue", "arguments": {**VALID, "count": "42"}}
    )
    assert not outcome.is_error
    assert calls[0][1]["count"] == 42


async def test_direct_calls_are_validated_too(scout, calls):
    outcome = await scout.session("s").dispatch("github__create_issue", {"repo": 1, "title": "x"})
    assert outcome.error.code == "invalid_arguments"
    assert not outcome.bridged
    assert calls == []


async def test_handler_exception_becomes_an_error_result(calls):
    def broken(call):
        raise RuntimeError("upstream exploded")

    scout = ToolScout([{"name": "boom", "parameters": {"type": "object"}}], executor=broken)
    outcome = await scout.session("s").dispatch("boom", {})
    assert outcome.error.code == "tool_failed"
    assert "upstream exploded" in outcome.error.message
    assert outcome.content["tool_not_run"] is False


async def test_async_and_sync_functions_run_with_their_arguments():
    async def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    def shout(text: str) -> str:
        """Upper-case a text."""
        return text.upper()

    scout = ToolScout([add, shout])
    session = scout.session("s")
    assert (await session.dispatch("add", {"a": 2, "b": "3"})).content == 5
    assert (await session.dispatch("shout", {"text": "hi"})).to_text() == "HI"


async def test_a_tool_without_handler_is_reported_not_executable():
    scout = ToolScout([{"name": "external", "parameters": {"type": "object"}}])
    outcome = await scout.session("s").dispatch("external", {})
    assert outcome.error.code == "not_executable"


async def test_hooks_see_the_real_tool_name_and_arguments(calls):
    seen: list[tuple[str, dict[str, object], bool]] = []
    after: list[tuple[str, str]] = []

    def guard(call: ToolCall):
        seen.append((call.name, call.arguments, call.bridged))

    scout = ToolScout(
        [{"name": "github__create_issue", "parameters": {"type": "object"}}, {"name": "x"}],
        settings=__import__("toolscout").ScoutSettings(mode="on"),
        executor=lambda call: "done",
        before_call=[guard],
        after_call=[lambda outcome: after.append((outcome.name, outcome.requested))],
    )
    await scout.session("s").dispatch("tool_call", {"name": "github__create_issue", "arguments": {"a": 1}})
    assert seen == [("github__create_issue", {"a": 1}, True)]
    assert after == [("github__create_issue", "tool_call")]


async def test_a_search_emits_exactly_one_after_call_hook():
    events: list[ToolOutcome] = []
    scout = ToolScout([{"name": "weather_get", "description": "Get the weather"}], after_call=[events.append])
    await scout.session("s").dispatch("tool_search", {"query": "weather"})
    assert [(event.name, event.is_error) for event in events] == [("tool_search", False)]


async def test_a_before_call_hook_can_refuse_and_the_tool_does_not_run(calls):
    scout = ToolScout(
        [{"name": "rm_rf", "description": "Delete everything"}],
        executor=lambda call: calls.append(call.name),
        before_call=[lambda call: "needs user approval" if call.name == "rm_rf" else None],
    )
    outcome = await scout.session("s").dispatch("rm_rf", {})
    assert outcome.error.code == "refused"
    assert "needs user approval" in outcome.error.message
    assert calls == []


async def test_a_failing_guardrail_fails_closed(calls):
    def broken_guard(call):
        raise ValueError("policy service down")

    scout = ToolScout([{"name": "pay"}], executor=lambda call: calls.append(call.name), before_call=[broken_guard])
    outcome = await scout.session("s").dispatch("pay", {})
    assert outcome.error.code == "refused"
    assert calls == []


def test_resolve_hands_back_the_unwrapped_call_for_self_executing_hosts(scout, calls):
    resolution = scout.session("s").resolve("tool_call", {"name": "github__create_issue", "arguments": VALID})
    assert isinstance(resolution, ToolCall)
    assert (resolution.name, resolution.arguments, resolution.bridged) == ("github__create_issue", VALID, True)
    assert calls == []
    answer = scout.session("s").resolve("tool_search", {"query": "slack message"})
    assert isinstance(answer, BridgeAnswer)
    refusal = scout.session("s").resolve("tool_call", {"name": "tool_call"})
    assert isinstance(refusal, ToolError)


def test_dispatch_sync_works_from_plain_code(scout, calls):
    outcome = scout.session("s").dispatch_sync("tool_call", {"name": "github__search_repos", "arguments": {}})
    assert outcome.content == {"ok": True, "tool": "github__search_repos"}


# Scope: a session limited to github never sees, finds, describes or calls other tools.
SCOPE = Scope.of(["github:*", "terminal"])


async def test_scoped_search_only_returns_in_scope_tools(scout):
    session = scout.session("s", scope=SCOPE)
    outcome = await session.dispatch("tool_search", {"query": "delete repository danger slack message calendar"})
    assert {tool["name"] for tool in outcome.content["tools"]} <= {"github__create_issue", "github__search_repos"}
    browse = await session.dispatch("tool_search", {"query": ""})
    assert browse.content["total"] == 3
    assert "plugin__danger" not in json.dumps(browse.content)


async def test_scoped_search_for_an_exact_out_of_scope_name_finds_nothing(scout):
    outcome = await scout.session("s", scope=SCOPE).dispatch("tool_search", {"query": "plugin__danger"})
    assert outcome.content["tools"] == []
    assert "plugin__danger" not in outcome.content["suggestions"]
    assert "plugin" not in {item["name"] for item in outcome.content["namespaces"]}


async def test_scoped_describe_and_call_refuse_out_of_scope_tools_like_unknown_ones(scout, calls):
    session = scout.session("s", scope=SCOPE)
    described = await session.dispatch("tool_describe", {"names": ["plugin__danger"]})
    assert described.error.code == "unknown_tool"
    assert "plugin__danger" not in described.error.candidates
    called = await session.dispatch("tool_call", {"name": "plugin__danger", "arguments": {}})
    assert called.error.code == "unknown_tool"
    direct = await session.dispatch("plugin__danger", {})
    assert direct.error.code == "unknown_tool"
    assert calls == []
    inside = await session.dispatch("tool_call", {"name": "github__search_repos", "arguments": {}})
    assert not inside.is_error


async def test_scoped_assembly_and_listing_leave_out_other_tools(scout):
    assembly = scout.session("s", scope=SCOPE).assemble()
    assert "plugin" not in assembly.guidance
    assert "slack" not in assembly.guidance
    assert "github (2 tools)" in assembly.guidance


async def test_a_scoped_session_does_not_change_another_sessions_view(scout):
    await scout.session("narrow", scope=SCOPE).dispatch("tool_search", {"query": "github"})
    wide = await scout.session("wide").dispatch("tool_search", {"query": ""})
    assert wide.content["total"] == 6


def test_a_pinned_tool_through_tool_call_is_refused_with_a_hint_to_call_it_directly() -> None:
    from toolscout import ScoutSettings, ToolScout

    tools = [{"name": "notes__read", "description": "Read the notes."}]
    tools += [{"name": f"crm__op_{i}", "description": f"CRM operation {i}"} for i in range(40)]
    scout = ToolScout(tools, settings=ScoutSettings(mode="on", never_defer=("notes__*",)), executor=lambda call: "ok")
    outcome = scout.session("p").dispatch_sync("tool_call", {"name": "notes__read", "arguments": {}})
    assert outcome.error is not None and outcome.error.code == "call_directly"
    assert outcome.error.hint == "Call notes__read directly."
