"""A search's hint fits its hits: listed tools are called directly, the others described then called (issue 37)."""

from __future__ import annotations

import pytest

from toolscout import CharsPerToken, ScoutSettings, ToolScout
from toolscout._texts import Search
from toolscout.dispatch import ToolOutcome

from .conftest import TOOLS

CORE = ["terminal", "slack__send_message"]


@pytest.fixture
def scout() -> ToolScout:
    settings = ScoutSettings(mode="on", style="bridge")
    return ToolScout(TOOLS, core=CORE, settings=settings, executor=lambda call: "ran", token_counter=CharsPerToken())


def _search(scout: ToolScout, **arguments: object) -> ToolOutcome:
    return scout.session("s").dispatch_sync("tool_search", arguments)


def test_hits_all_listed_are_called_directly(scout: ToolScout) -> None:
    outcome = _search(scout, pattern="slack")
    assert [tool.get("listed", False) for tool in outcome.found] == [True]
    assert outcome.answer is not None and outcome.answer.hint == Search.LISTED
    call = scout.session("s").dispatch_sync("tool_call", {"name": "slack__send_message", "arguments": {}})
    assert call.error is not None and call.error.code == "call_directly"


def test_mixed_hits_say_both(scout: ToolScout) -> None:
    outcome = _search(scout, pattern="slack|calendar")
    assert sorted(bool(tool.get("listed")) for tool in outcome.found) == [False, True]
    assert outcome.answer is not None
    assert outcome.answer.hint == Search.listed_or_describe(scout.settings.bridge_names)
    assert "listed" in outcome.answer.hint and "tool_describe" in outcome.answer.hint


def test_hits_none_listed_are_described_then_called(scout: ToolScout) -> None:
    outcome = _search(scout, pattern="calendar")
    assert outcome.answer is not None
    assert outcome.answer.hint == Search.describe_then_call(scout.settings.bridge_names)


@pytest.mark.parametrize(("key", "value"), [("limit", -1), ("limit", "ten"), ("limit", 2.5), ("offset", -3)])
def test_a_bad_limit_or_offset_is_refused_naming_the_limit(scout: ToolScout, key: str, value: object) -> None:
    outcome = _search(scout, query="github issue", **{key: value})
    assert outcome.error is not None and outcome.error.code == "invalid_request", outcome.content
    assert f"'{key}'" in outcome.error.message
    if key == "limit":
        assert str(scout.settings.search_max_limit) in outcome.error.message
        assert outcome.error.details == {"limit": scout.settings.search_max_limit}


@pytest.mark.parametrize("value", [3, "3", 3.0, None])
def test_a_good_limit_is_read(scout: ToolScout, value: object) -> None:
    outcome = _search(scout, query="github", limit=value)
    assert outcome.error is None


@pytest.mark.parametrize("written", ["CALENDAR__CREATE_EVENT", "Calendar.Create_Event", "create_event"])
def test_tool_call_reads_a_name_in_any_case_when_it_names_one_tool(scout: ToolScout, written: str) -> None:
    outcome = scout.session("s").dispatch_sync("tool_call", {"name": written, "arguments": {}})
    assert outcome.error is None, outcome.content
    assert outcome.name == "calendar__create_event"


def test_tool_call_in_another_case_of_a_listed_tool_is_still_refused_as_listed(scout: ToolScout) -> None:
    outcome = scout.session("s").dispatch_sync("tool_call", {"name": "SLACK__SEND_MESSAGE", "arguments": {}})
    assert outcome.error is not None and outcome.error.code == "call_directly"
    assert "slack__send_message" in outcome.error.message
