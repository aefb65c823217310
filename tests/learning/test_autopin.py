"""Auto-pin: the tools a learning scope keeps calling are listed from the first turn, and leave when use stops."""

from __future__ import annotations

import logging
import time
from pathlib import Path

import pytest

from tests.learning.conftest import MakeStore
from toolscout import ScoutSettings, ToolScout
from toolscout._settings import LearningSettings
from toolscout._tokens import tool_tokens
from toolscout.learning import UsagePair, UsageStore
from toolscout.learning._internal import SqliteUsageStore
from toolscout.observe import ActivityLog
from toolscout.observe._internal import Metrics


def create_issue(title: str, body: str = "", labels: str = "", assignee: str = "") -> str:
    """Create an issue in a GitHub repository with a title, a body, labels and an assignee."""
    return title


def post_message(text: str) -> str:
    """Post a chat message to a Slack channel."""
    return text


def get_weather(city: str) -> str:
    """Get the weather forecast for a city."""
    return city


def read_file(path: str) -> str:
    """Read a file from the local disk."""
    return path


pytestmark = pytest.mark.slow  # each step waits past the auto-pin refresh (1 s)

TOOLS = [create_issue, post_message, get_weather, read_file]
REFRESH_S = 1.1
"""Past the auto-pin refresh (1 s): the next listing reads the store's new version."""


def scout(
    store: UsageStore, *, style: str = "bridge", activity: ActivityLog | None = None, **settings: object
) -> ToolScout:
    learning = {
        "enabled": True,
        "auto_pin_min_sessions": 2,
        "auto_pin_window_sessions": 4,
        "auto_pin_min_share": 0.5,
        "auto_pin_max_turn_share": 10.0,  # these tools are large beside so small a first turn
        **{key: value for key, value in settings.items() if key != "never_defer"},
    }
    chosen = ScoutSettings(
        mode="on",
        style=style,  # type: ignore[arg-type]
        search_mode="lexical",
        never_defer=settings.get("never_defer", ()),  # type: ignore[arg-type]
        learning=LearningSettings.model_validate(learning),
    )
    return ToolScout(TOOLS, settings=chosen, usage_store=store, activity=activity)


def use(scout_: ToolScout, session: str, tool: str, arguments: dict[str, object], *, scope: str | None = None) -> None:
    """One session that searches for `tool`, then calls it (as a model does), its pairs written before returning."""
    one = scout_.session(session, learning_scope=scope)
    one.dispatch_sync("tool_search", {"query": tool.replace("_", " ")})
    assert not one.dispatch_sync("tool_call", {"name": tool, "arguments": arguments}).is_error
    assert scout_.usage is not None
    scout_.usage.flush()


def first_turn(scout_: ToolScout, session: str = "new", *, scope: str | None = None) -> tuple[str, ...]:
    return scout_.session(session, learning_scope=scope).assemble().names


@pytest.mark.parametrize("style", ["bridge", "reveal"])
def test_a_tool_the_scopes_sessions_keep_calling_is_listed_from_the_first_turn(
    make_store: MakeStore, style: str
) -> None:
    learned = scout(make_store(), style=style)
    assert "post_message" not in first_turn(learned)
    for session in ("s1", "s2"):
        use(learned, session, "post_message", {"text": "hi"})
    time.sleep(REFRESH_S)
    listed = learned.session("new").assemble()
    assert listed.auto_pinned == ("post_message",)
    search = learned.settings.bridge_names.search
    assert listed.names.index("post_message") < listed.names.index(search)  # listed as pinned tools are
    # The model calls it directly, and that use keeps it listed.
    assert learned.session("new").dispatch_sync("post_message", {"text": "direct"}).content == "direct"


def test_a_tool_leaves_when_use_stops(make_store: MakeStore) -> None:
    learned = scout(make_store())
    for session in ("s1", "s2", "s3"):
        use(learned, session, "post_message", {"text": "hi"})
    time.sleep(REFRESH_S)
    assert "post_message" in first_turn(learned)
    for session in ("s4", "s5", "s6"):  # the last 4 sessions: 1 called post_message, under the 0.5 share
        use(learned, session, "get_weather", {"city": "Oslo"})
    time.sleep(REFRESH_S)
    listed = learned.session("new").assemble()
    assert "post_message" not in listed.names
    assert listed.auto_pinned == ("get_weather",)


def test_a_thousand_repeats_of_one_session_pin_nothing_for_another(make_store: MakeStore) -> None:
    store = make_store()
    learned = scout(store, auto_pin_min_sessions=1, min_sessions=2)  # min_sessions applies to auto-pin too
    now = time.time()
    pair = UsagePair(scope="default", request="post a message", tool="post_message", session="a", at=now)
    store.record([pair] * 1000)
    one = learned.session("a")
    for _ in range(1000):
        assert not one.dispatch_sync("post_message", {"text": "x"}).is_error
    assert learned.usage is not None
    learned.usage.flush()
    time.sleep(REFRESH_S)
    assert "post_message" not in first_turn(learned, "other")
    use(learned, "b", "post_message", {"text": "hi"})
    time.sleep(REFRESH_S)
    assert "post_message" in first_turn(learned, "other")  # a second session: now it counts


def test_another_scope_never_sees_a_scopes_auto_pins(make_store: MakeStore) -> None:
    learned = scout(make_store())
    for session in ("s1", "s2", "s3"):
        use(learned, session, "post_message", {"text": "hi"}, scope="team-a")
    time.sleep(REFRESH_S)
    assert "post_message" in first_turn(learned, scope="team-a")
    unlearned = first_turn(scout(make_store()), scope="team-b")
    assert first_turn(learned, scope="team-b") == unlearned
    assert "post_message" not in unlearned


def test_the_budget_of_tools_and_tokens_is_kept_and_pinned_tools_count_against_nothing(make_store: MakeStore) -> None:
    store = make_store()
    now = time.time()
    every = ("create_issue", "post_message", "get_weather", "read_file")
    store.record(
        [
            UsagePair(scope="default", request=f"use {tool}", tool=tool, session=f"s{n}", at=now + n)
            for n in range(4)
            for tool in every
            if tool != "create_issue" or n < 3  # in 3 of the 4 sessions: the last candidate
        ]
    )
    assert len(first_turn(scout(store, auto_pin_max_tools=2))) == 2 + 3  # two tools and the three bridge tools
    pinned = scout(store, auto_pin_max_tools=2, never_defer=("get_weather",)).session("new").assemble()
    assert pinned.names.count("get_weather") == 1 and "get_weather" not in pinned.auto_pinned
    assert len(pinned.auto_pinned) == 2
    # About 41 tokens each (create_issue 82): two fit in 100 tokens, a third would not.
    small = scout(store, auto_pin_max_tools=4, auto_pin_max_tokens=100).session("new").assemble()
    assert small.auto_pinned == ("get_weather", "post_message")
    assert scout(store, auto_pin_max_tools=0).session("new").assemble().auto_pinned == ()
    # The first turn grows by at most auto_pin_max_turn_share of its tokens without them.
    plain = scout(store, auto_pin_max_tools=0)
    before = plain.session("new").assemble()
    counter = plain.counter
    turn = sum(tool_tokens(tool, counter) for tool in before.tools) + counter.count(before.guidance)
    for share in (0.2, 0.5):
        grown = scout(store, auto_pin_max_tools=4, auto_pin_max_turn_share=share).session("new").assemble()
        added = sum(tool_tokens(tool, counter) for tool in grown.tools if tool.name in grown.auto_pinned)
        assert 0 < added <= share * turn
        assert len(grown.auto_pinned) < 4


def test_a_tool_outside_the_sessions_scope_is_never_auto_pinned(make_store: MakeStore) -> None:
    from toolscout._scope import Scope

    learned = scout(make_store())
    for session in ("s1", "s2"):
        use(learned, session, "post_message", {"text": "hi"})
    time.sleep(REFRESH_S)
    narrowed = learned.session("new", scope=Scope(allow=("get_weather", "read_file")))
    assert "post_message" not in narrowed.assemble().names


def test_a_failing_store_auto_pins_nothing_with_one_warning(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    store = SqliteUsageStore(tmp_path / "usage.db")
    learned = scout(store)
    for session in ("s1", "s2"):
        use(learned, session, "post_message", {"text": "hi"})
    time.sleep(REFRESH_S)
    assert "post_message" in first_turn(learned)
    store.close()
    time.sleep(REFRESH_S)
    with caplog.at_level(logging.WARNING, logger="toolscout.learning"):
        for session in ("n1", "n2"):
            assert "post_message" not in first_turn(learned, session)
            assert learned.session(session).dispatch_sync("post_message", {"text": "still"}).content == "still"
            time.sleep(REFRESH_S)
    assert len([r for r in caplog.records if r.levelno == logging.WARNING]) == 1


def test_a_call_of_an_auto_pinned_tool_is_counted_in_the_activity_log_and_the_metrics(make_store: MakeStore) -> None:
    activity, metrics = ActivityLog(), Metrics()
    activity.add_listener(metrics.observe)
    learned = scout(make_store(), activity=activity)
    assert learned.auto_pins is not None
    metrics.track_auto_pins(learned.auto_pins.count)
    for session in ("s1", "s2"):
        use(learned, session, "post_message", {"text": "hi"})
    time.sleep(REFRESH_S)
    assert "post_message" in first_turn(learned)
    learned.session("new").dispatch_sync("post_message", {"text": "direct"})
    calls = [event for event in activity.recent() if event.kind == "call"]
    assert [event.auto_pinned for event in calls] == [False, False, True]
    text = metrics.render().decode()
    assert "toolscout_auto_pinned_calls_total 1.0" in text
    assert "toolscout_auto_pinned_tools 1.0" in text
