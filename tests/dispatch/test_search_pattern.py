"""tool_search's `pattern`: a regex (RE2, as the CLI's regex mode) alone, or filtering what the query ranks."""

from __future__ import annotations

import time
from typing import Any

import pytest

from toolscout import Scope, ScoutSettings, Style, ToolScout, ToolSpec

SCHEMA: dict[str, object] = {
    "type": "object",
    "properties": {"repo": {"type": "string", "description": "Repository as owner/name."}},
}
TOOLS = [
    ToolSpec(name="github__create_issue", namespace="github", description="Create an issue.", parameters=SCHEMA),
    ToolSpec(name="github__list_issues", namespace="github", description="List issues.", parameters=SCHEMA),
    ToolSpec(name="github__create_pull_request", namespace="github", description="Open a pull request."),
    ToolSpec(name="jira__create_ticket", namespace="jira", description="Create a ticket (an issue) in Jira."),
    ToolSpec(name="calendar__create_event", namespace="calendar", description="Create a calendar event."),
    ToolSpec(name="slack__send_message", namespace="slack", description="Send a message to a channel."),
]


def session(style: Style = "bridge", scope: Scope | None = None) -> Any:
    return ToolScout(TOOLS, settings=ScoutSettings(mode="on", style=style)).session("s", scope=scope)


def search(arguments: dict[str, object], style: Style = "bridge") -> dict[str, Any]:
    outcome = session(style).dispatch_sync("tool_search", arguments)
    assert outcome.error is None, outcome.error
    assert isinstance(outcome.content, dict)
    return outcome.content


def found(content: dict[str, Any]) -> list[str]:
    return [tool["name"] for tool in content["tools"]]


@pytest.mark.parametrize("style", ["bridge", "reveal"])
def test_a_pattern_alone_finds_the_tools_whose_names_or_texts_match_names_first(style: Style) -> None:
    content = search({"pattern": "issue", "limit": 10}, style)
    # Name matches (github__*issue*) before a description-only match (jira's "an issue").
    assert found(content) == ["github__create_issue", "github__list_issues", "jira__create_ticket"]
    assert content["pattern"] == "issue" and content["total"] == 3
    if style == "reveal":
        assert all("parameters" in tool for tool in content["tools"])


def test_a_pattern_alone_reveals_what_it_finds() -> None:
    scout_session = session("reveal")
    outcome = scout_session.dispatch_sync("tool_search", {"pattern": "^github__create_"})
    assert outcome.revealed == ("github__create_issue", "github__create_pull_request")
    assert {"github__create_issue", "github__create_pull_request"} <= set(scout_session.assemble().names)


@pytest.mark.parametrize("style", ["bridge", "reveal"])
def test_with_a_query_the_pattern_filters_and_the_query_ranks(style: Style) -> None:
    content = search({"query": "create a new issue", "pattern": "^github__", "limit": 10}, style)
    names = found(content)
    assert names[0] == "github__create_issue"
    assert set(names) <= {"github__create_issue", "github__list_issues", "github__create_pull_request"}
    assert "jira__create_ticket" not in names  # matches the query, not the pattern
    unfiltered = found(search({"query": "create a new issue", "limit": 10}, style))
    assert "jira__create_ticket" in unfiltered


def test_a_pattern_also_matches_parameter_texts() -> None:
    assert found(search({"pattern": "owner/name", "limit": 10})) == ["github__create_issue", "github__list_issues"]


def test_an_exact_name_query_is_filtered_by_the_pattern_too() -> None:
    assert found(search({"query": "jira__create_ticket", "pattern": "^jira__"})) == ["jira__create_ticket"]
    content = search({"query": "jira__create_ticket", "pattern": "^github__"})
    assert content["tools"] == [] and "No tool matched" in content["hint"]


def test_a_pattern_that_matches_nothing_answers_nothing_with_guidance() -> None:
    content = search({"query": "send", "pattern": "^nomatch"})
    assert content["tools"] == [] and content["total"] == 0
    assert "namespaces" in content


def test_a_scoped_session_never_finds_out_of_scope_tools_by_pattern() -> None:
    scoped = session(scope=Scope.of(allow=["jira:*"]))
    content = scoped.dispatch_sync("tool_search", {"pattern": "create"}).content
    assert [tool["name"] for tool in content["tools"]] == ["jira__create_ticket"]
    filtered = scoped.dispatch_sync("tool_search", {"query": "create", "pattern": "."}).content
    assert [tool["name"] for tool in filtered["tools"]] == ["jira__create_ticket"]


@pytest.mark.parametrize(
    ("pattern", "reason"),
    [
        pytest.param("create(", "missing )", id="unbalanced"),
        pytest.param(r"(issue)\1", "invalid escape sequence", id="backreference"),
        pytest.param("(?=issue)", "invalid perl operator", id="look-ahead"),
    ],
)
def test_an_invalid_pattern_is_a_clear_error_naming_the_problem_and_the_limits(pattern: str, reason: str) -> None:
    outcome = session().dispatch_sync("tool_search", {"pattern": pattern})
    assert outcome.error is not None
    assert outcome.error.code == "invalid_request"
    assert outcome.error.message.startswith("The pattern is not a valid regular expression: ")
    assert reason in outcome.error.message
    assert "without backreferences or look-around, at most 200 characters" in outcome.error.hint
    assert outcome.error.details == {"limit": 200}


def test_an_over_long_pattern_is_refused_naming_its_length_and_the_limit() -> None:
    outcome = session("reveal").dispatch_sync("tool_search", {"pattern": "a" * 201})
    assert outcome.error is not None
    assert outcome.error.code == "invalid_request"
    assert outcome.error.message == "The regex pattern (in characters) is 201 long; the limit is 200."
    assert outcome.error.details == {"limit": 200}


def test_a_catastrophic_pattern_runs_in_linear_time() -> None:
    started = time.perf_counter()
    content = search({"pattern": "(a+)+$", "query": "create"})
    assert time.perf_counter() - started < 2
    assert content["tools"] == []


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        pytest.param({"pattern": ["issue"]}, "'pattern' must be a string", id="not-a-string"),
        pytest.param({"pattern": 0}, "'pattern' must be a string", id="zero"),
        pytest.param({"pattern": "issue", "names": ["github__list_issues"]}, "not both", id="with-names"),
    ],
)
def test_a_malformed_pattern_argument_is_refused(arguments: dict[str, object], message: str) -> None:
    outcome = session().dispatch_sync("tool_search", arguments)
    assert outcome.error is not None and outcome.error.code == "invalid_request"
    assert message in outcome.error.message
