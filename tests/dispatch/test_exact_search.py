"""A tool_search query that is exactly a tool's name returns and reveals that tool alone; a name mentioned in a
longer request does not outrank the tool that matches the whole request."""

from __future__ import annotations

import pytest

from toolscout import ScoutSettings, Style, ToolScout, ToolSpec

SCHEMA: dict[str, object] = {"type": "object", "properties": {"title": {"type": "string"}}}
TOOLS = [
    ToolSpec(name="github__create_issue", namespace="github", description="Create an issue in a GitHub repository."),
    ToolSpec(name="github__create_issue_comment", namespace="github", description="Comment on a GitHub issue."),
    ToolSpec(name="github__update_issue", namespace="github", description="Update a GitHub issue."),
    ToolSpec(name="github__list_issues", namespace="github", description="List the issues of a GitHub repository."),
    ToolSpec(name="gitlab__create_merge_request", namespace="gitlab", description="Open a GitLab merge request."),
    ToolSpec(name="ci__read_build_logs", namespace="ci", description="Read the build logs of a CI pipeline run."),
    ToolSpec(name="time__get_current_time", namespace="time", description="Current time in a time zone."),
    ToolSpec(name="clock__get_current_time", namespace="clock", description="Current time of the wall clock."),
    ToolSpec(name="search", description="Search the web."),
]
TOOLS = [ToolSpec(name=t.name, namespace=t.namespace, description=t.description, parameters=SCHEMA) for t in TOOLS]


def search(query: str, style: Style = "bridge", **arguments: object) -> tuple[list[str], tuple[str, ...]]:
    scout = ToolScout(TOOLS, settings=ScoutSettings(mode="on", style=style, search_top_band=0))
    outcome = scout.session("s").dispatch_sync("tool_search", {"query": query, **arguments})
    assert outcome.error is None, outcome.error
    assert isinstance(outcome.content, dict)
    return [tool["name"] for tool in outcome.content["tools"]], outcome.revealed


@pytest.mark.parametrize(
    "query",
    [
        pytest.param("github__create_issue", id="full"),
        pytest.param("create_issue", id="bare"),
        pytest.param("CREATE_ISSUE", id="any-case"),
        pytest.param("GitHub__Create_Issue", id="full-any-case"),
        pytest.param("`github__create_issue`", id="backticked"),
        pytest.param('"create_issue"', id="double-quoted"),
        pytest.param("'github.create_issue'", id="single-quoted-dotted"),
        pytest.param("create_issue()", id="call-form"),
        pytest.param("github/create_issue", id="slash-namespace"),
    ],
)
@pytest.mark.parametrize("style", ["bridge", "reveal"])
def test_a_query_that_is_exactly_a_tool_name_returns_and_reveals_that_tool_alone(query: str, style: Style) -> None:
    found, revealed = search(query, style, limit=10)
    assert found == ["github__create_issue"]
    assert revealed == ("github__create_issue",)


def test_a_bare_name_two_servers_share_returns_both_and_nothing_else() -> None:
    found, _ = search("get_current_time", limit=10)
    assert found == ["time__get_current_time", "clock__get_current_time"]


def test_a_plain_word_that_is_only_a_bare_name_stays_a_keyword() -> None:
    # "issue" is no tool's name: keywords rank the neighbours as usual.
    found, _ = search("issue", limit=10)
    assert len(found) > 1
    # A tool literally named "search" is that tool alone.
    assert search("search", limit=10)[0] == ["search"]


@pytest.mark.parametrize("named", ["github__create_issue", "`create_issue`"])
def test_a_name_mentioned_in_a_longer_request_does_not_beat_the_tool_matching_the_whole_request(named: str) -> None:
    found, _ = search(f"{named} failed: read the build logs of the CI pipeline run to see why", limit=5)
    assert found[0] == "ci__read_build_logs"
    assert found[1] == "github__create_issue"  # named, so kept, right after the best match


def test_a_name_mentioned_in_a_request_it_matches_best_still_comes_first() -> None:
    found, _ = search("please use `github__create_issue` to file this", limit=5)
    assert found[0] == "github__create_issue"
