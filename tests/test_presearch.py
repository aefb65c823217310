"""Pre-search: the user's message is searched before the model is called, and only confident hits are offered."""

from __future__ import annotations

import pytest

from toolscout import PresearchSettings, ScoutSettings, Style, ToolScout
from toolscout.dispatch import BridgeAnswer, SearchAnswer, ToolCall

ISSUE = "Create a GitHub issue about the login bug"  # hybrid: github__create_issue 0.533 (offered alone: 0.81)
SURE = "Post a message to the #general Slack channel"  # hybrid: slack__post_message 0.78 (offered alone: 0.92)
SPREAD = "weather in Oslo"  # hybrid: four weather tools at 0.04-0.06 (best set of up to 3: 0.23)
SEND = "send a message"  # hybrid: slack__post_message 0.29 (alone: 0.47), with schedule_message: 0.72
_BASE: list[ToolScout] = []


def base() -> ToolScout:
    """The sample catalog's hybrid scout, its embeddings computed once (every `replace` shares the index)."""
    if not _BASE:
        built = ToolScout("sample", settings=ScoutSettings(mode="on", search_mode="hybrid"))
        assert built.wait_for_embeddings(300)
        _BASE.append(built)
    return _BASE[0]


def scout(style: Style = "reveal", **presearch: float) -> ToolScout:
    options = PresearchSettings.model_validate({"enabled": True, "min_confidence": 0.6, **presearch})
    return base().replace(settings=ScoutSettings(mode="on", style=style, search_mode="hybrid", presearch=options))


def test_off_by_default_and_nothing_changes_without_a_message() -> None:
    plain = base().session("s")
    assert plain.assemble(ISSUE) == plain.assemble()
    bridge = scout("bridge").session("s")
    assert bridge.assemble() == plain.assemble()


@pytest.mark.parametrize("style", ["reveal", "bridge"])
def test_a_confident_hit_is_sent_in_full_after_the_bridge_and_named_in_the_guidance(style: Style) -> None:
    session = scout(style, min_confidence=0.5).session("s")
    turn = session.assemble(ISSUE)
    assert turn.presearched == ("github__create_issue",)
    names = turn.names
    bridge = max(names.index(name) for name in ("tool_search",))
    assert names.index("github__create_issue") > bridge
    assert "github__create_issue" in turn.loaded
    assert turn.guidance.endswith(
        "Loaded for this request by a search of it: github__create_issue. Call them directly if they fit."
    )
    call = session.resolve("github__create_issue", {"owner": "acme", "repo": "web", "title": "Login bug"})
    assert isinstance(call, ToolCall), call
    assert session.discovered == ()  # never stored: the model's own discoveries are kept apart


def test_one_sure_hit_is_offered_alone_and_an_answer_spread_over_weak_hits_offers_nothing() -> None:
    default = PresearchSettings(enabled=True)
    scouted = base().replace(settings=ScoutSettings(mode="on", search_mode="hybrid", presearch=default))
    session = scouted.session("s")
    assert session.assemble(SURE).presearched == ("slack__post_message",)
    spread = session.resolve("tool_search", {"query": SPREAD, "limit": 4})
    assert isinstance(spread, BridgeAnswer) and isinstance(spread.answer, SearchAnswer)
    weak = [tool.name for tool in spread.answer.tools if tool.name.startswith("weather__")]
    assert len(weak) >= 3, spread.answer.names  # the search answers, spread over several weather tools
    assert session.assemble(SPREAD).presearched == ()


def test_the_smallest_sure_set_is_offered_within_the_most_tools_and_the_token_budget() -> None:
    assert scout(max_tools=2).session("s").assemble(SEND).presearched == (
        "slack__post_message",
        "slack__schedule_message",
    )
    assert scout(max_tools=1).session("s").assemble(SEND).presearched == ()  # one tool alone is not sure enough
    assert scout(max_tokens=0).session("s").assemble(SEND).presearched == ()


@pytest.mark.parametrize("message", ["thanks!", "Tell me a joke about cats", ""])
def test_an_unsure_or_abstaining_search_offers_nothing(message: str) -> None:
    session = scout().session("s")
    turn = session.assemble(message)
    assert turn.presearched == ()
    assert turn == session.assemble()


def test_a_pre_searched_tool_leaves_after_its_turn() -> None:
    session = scout().session("s")
    assert "github__create_issue" in session.assemble(ISSUE).names
    later = session.assemble("Tell me a joke about cats", earlier_messages=[ISSUE])
    assert "github__create_issue" not in later.names


def test_a_follow_up_that_refers_back_is_read_with_the_turn_it_refers_to() -> None:
    session = scout().session("s")
    follow_up = "now do the same for the signup bug"
    assert session.assemble(follow_up).presearched == ()
    assert "github__create_issue" in session.assemble(follow_up, earlier_messages=[ISSUE]).presearched
    # A follow-up of a follow-up that names no capability of its own (alone, its best offer's chance is 0.05: far
    # from any threshold, whatever the CPU's int8 kernels; "the search page" names search tools: 0.6 alone).
    again = session.assemble("and the same again for the logout crash", earlier_messages=[ISSUE, follow_up])
    assert "github__create_issue" in again.presearched
    # a message that is no follow-up is never read through the last one
    assert session.assemble("Tell me a joke about cats", earlier_messages=[ISSUE]).presearched == ()


def test_a_tool_already_in_the_array_is_not_offered_again() -> None:
    scouted = ToolScout(
        "sample",
        settings=ScoutSettings(
            mode="on",
            style="reveal",
            search_mode="lexical",
            pre_discovered=("github__create_issue",),
            presearch=PresearchSettings(enabled=True, min_confidence=0.4),
        ),
    )
    turn = scouted.session("s").assemble(ISSUE)
    assert turn.presearched == ()
    assert turn.names.count("github__create_issue") == 1
