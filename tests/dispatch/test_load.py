"""Load by name (mcpagent's add_tool): several exact names per call, any case, namespaced or not."""

from __future__ import annotations

from typing import Any

import pytest

from toolscout import CharsPerToken, Scope, ScoutSettings, ToolScout, ToolSpec

TIME_SCHEMA: dict[str, object] = {
    "type": "object",
    "properties": {"timezone": {"type": "string"}},
    "required": ["timezone"],
}
TOOLS = [
    ToolSpec(name="terminal", description="Run a shell command."),
    ToolSpec(
        name="time__get_current_time", namespace="time", description="Current time in a zone.", parameters=TIME_SCHEMA
    ),
    ToolSpec(name="clock__get_current_time", namespace="clock", description="Current time of the wall clock."),
    ToolSpec(
        name="github__create_issue",
        namespace="github",
        description="Create an issue.",
        parameters={"type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"]},
    ),
    ToolSpec(name="create_event", namespace="calendar", description="Create a calendar event."),
    *(ToolSpec(name=f"crm__op_{i}", namespace="crm", description=f"CRM operation {i}.") for i in range(40)),
]


def scout(style: str = "bridge", **settings: object) -> ToolScout:
    return ToolScout(
        TOOLS,
        core=["terminal"],
        settings=ScoutSettings(mode="on", style=style, **settings),  # type: ignore[arg-type]
        executor=lambda call: {"ran": call.name, "arguments": call.arguments},
        token_counter=CharsPerToken(),
    )


def loaded(content: Any) -> list[str]:
    return [entry["name"] for entry in content["tools"]]


@pytest.mark.parametrize(
    ("written", "meant"),
    [
        ("github__create_issue", "github__create_issue"),
        ("GitHub__Create_Issue", "github__create_issue"),
        ("github.create_issue", "github__create_issue"),
        ("github:create_issue", "github__create_issue"),
        ("create_issue", "github__create_issue"),
        ("`github__create_issue`", "github__create_issue"),
        ('"create_issue()"', "github__create_issue"),
        ("calendar.create_event", "create_event"),
        ("CREATE_EVENT", "create_event"),
    ],
)
def test_describe_resolves_names_in_any_case_with_or_without_the_namespace(written: str, meant: str) -> None:
    outcome = scout().session("spellings").dispatch_sync("tool_describe", {"names": [written]})
    assert outcome.error is None, outcome.to_text()
    assert loaded(outcome.content) == [meant]


def test_bridge_style_loads_several_tools_in_one_describe_with_their_schemas() -> None:
    session = scout().session("several")
    outcome = session.dispatch_sync("tool_describe", {"names": ["github__create_issue", "CRM__OP_7", "terminal"]})
    assert loaded(outcome.content) == ["github__create_issue", "crm__op_7"]
    assert outcome.content["tools"][0]["parameters"]["required"] == ["title"]
    assert outcome.content["already_listed"] == ["terminal"]
    ran = session.dispatch_sync("tool_call", {"name": "crm__op_7", "arguments": {}})
    assert ran.content == {"ran": "crm__op_7", "arguments": {}}


def test_a_bare_name_two_servers_share_loads_both() -> None:
    outcome = scout().session("shared").dispatch_sync("tool_describe", {"names": ["get_current_time"]})
    assert sorted(loaded(outcome.content)) == ["clock__get_current_time", "time__get_current_time"]


def test_unknown_names_come_back_with_close_names_next_to_the_loaded_ones() -> None:
    outcome = scout().session("typo").dispatch_sync("tool_describe", {"names": ["github__create_isue", "crm__op_3"]})
    assert loaded(outcome.content) == ["crm__op_3"]
    assert outcome.content["not_found"] == ["github__create_isue"]
    assert outcome.content["candidates"][0] == "github__create_issue"


def test_a_load_of_only_unknown_names_is_an_error_with_candidates() -> None:
    outcome = scout("reveal").session("unknown").dispatch_sync("tool_search", {"names": ["github__crate_issue"]})
    assert outcome.error is not None and outcome.error.code == "unknown_tool"
    assert "github__create_issue" in outcome.error.candidates
    assert outcome.revealed == ()


def test_reveal_style_loads_named_tools_into_the_next_turns_tool_list() -> None:
    session = scout("reveal").session("reveal")
    assert "tool_describe" not in session.assemble().names
    outcome = session.dispatch_sync("tool_search", {"names": ["Time.Get_Current_Time", "github__create_issue"]})
    assert outcome.error is None, outcome.to_text()
    assert outcome.revealed == ("time__get_current_time", "github__create_issue")
    assert outcome.content["tools"][0]["parameters"] == TIME_SCHEMA
    turn = session.assemble()
    assert turn.names[-2:] == ("time__get_current_time", "github__create_issue")
    ran = session.dispatch_sync("time__get_current_time", {"timezone": "UTC"})
    assert ran.content == {"ran": "time__get_current_time", "arguments": {"timezone": "UTC"}}


def test_reveal_style_with_stubs_loads_the_full_schema_of_a_named_stub() -> None:
    session = scout("reveal", reveal_stubs=True).session("stubs")
    stub = next(tool for tool in session.assemble().tools if tool.name == "time__get_current_time")
    assert "required" not in stub.parameters
    outcome = session.dispatch_sync("tool_search", {"names": ["time__get_current_time"]})
    assert outcome.revealed == ("time__get_current_time",)
    full = next(tool for tool in session.assemble().tools if tool.name == "time__get_current_time")
    assert full.parameters == TIME_SCHEMA


def test_loading_an_already_revealed_tool_reveals_nothing_new() -> None:
    session = scout("reveal").session("twice")
    session.dispatch_sync("tool_search", {"names": ["crm__op_1"]})
    again = session.dispatch_sync("tool_search", {"names": ["crm__op_1"]})
    assert again.content["already_listed"] == ["crm__op_1"] and again.content["tools"] == []
    assert again.revealed == ()


def test_the_number_of_names_per_call_is_a_setting_and_the_refusal_names_it() -> None:
    names = [f"crm__op_{i}" for i in range(4)]
    strict = scout("reveal", max_names_per_call=3).session("strict")
    refused = strict.dispatch_sync("tool_search", {"names": names})
    assert refused.error is not None and refused.error.code == "invalid_request"
    assert "3" in refused.error.message
    assert strict.discovered == ()
    assert scout("reveal").session("default").dispatch_sync("tool_search", {"names": names}).error is None


@pytest.mark.parametrize("names", [[], [""], [3], "  "])
def test_describe_needs_a_list_of_names(names: object) -> None:
    outcome = scout().session("bad").dispatch_sync("tool_describe", {"names": names})
    assert outcome.error is not None and outcome.error.code == "invalid_request"


def test_query_and_names_together_are_refused() -> None:
    outcome = scout("reveal").session("both").dispatch_sync("tool_search", {"query": "time", "names": ["crm__op_1"]})
    assert outcome.error is not None and "names" in outcome.error.message


def test_empty_names_next_to_a_query_are_ignored() -> None:
    outcome = scout("reveal").session("empty").dispatch_sync("tool_search", {"query": "create issue", "names": []})
    assert outcome.error is None and loaded(outcome.content)[0] == "github__create_issue"


def test_a_name_outside_the_sessions_scope_cannot_be_loaded() -> None:
    scoped = scout("reveal").session("scoped", scope=Scope.of(allow=["crm:*"]))
    outcome = scoped.dispatch_sync("tool_search", {"names": ["github__create_issue", "create_issue"]})
    assert outcome.error is not None and outcome.error.code == "unknown_tool"
    assert "github__create_issue" not in outcome.error.candidates
    assert scoped.discovered == ()


def test_an_over_long_name_in_names_is_refused_naming_the_limit() -> None:
    outcome = scout("reveal").session("long").dispatch_sync("tool_search", {"names": ["x" * 300]})
    assert outcome.error is not None and "256" in outcome.error.message


def test_browsing_stays_paginated() -> None:
    session = scout("reveal").session("browse")
    first = session.dispatch_sync("tool_search", {"query": "", "limit": 20})
    second = session.dispatch_sync("tool_search", {"query": "", "limit": 20, "offset": first.content["next_offset"]})
    assert len(first.content["tools"]) == 20 and first.content["total"] == len(TOOLS)
    assert not set(loaded(first.content)) & set(loaded(second.content))
    assert session.discovered == ()


def test_describe_clips_a_huge_description_to_the_setting_and_says_so() -> None:
    wordy = ToolSpec(name="wordy", namespace="crm", description="word " * 2_000_000)
    scout = ToolScout(
        [*TOOLS, wordy],
        settings=ScoutSettings(mode="on", describe_chars=5_000),
        executor=lambda call: None,
        token_counter=CharsPerToken(),
    )
    content = scout.session("d").dispatch_sync("tool_describe", {"names": ["wordy"]}).content
    (entry,) = content["tools"]
    assert entry["description"].startswith("word word")
    assert 4_000 < len(entry["description"]) <= 5_000
    assert entry["description"].endswith("…")
