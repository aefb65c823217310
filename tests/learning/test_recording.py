"""`ScoutSession` records (search request -> tool) when a found tool is then called and succeeds."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Sequence
from pathlib import Path

import pytest

from toolscout import ConfigError, ScoutSettings, ToolScout
from toolscout._settings import LearningSettings
from toolscout.learning import UsagePair
from toolscout.learning._internal import MemoryUsageStore, SqliteUsageStore


def create_issue(title: str) -> str:
    """Create an issue in a GitHub repository with a title."""
    return f"created {title}"


def post_message(text: str) -> str:
    """Post a chat message to a Slack channel."""
    return f"posted {text}"


def get_weather(city: str) -> str:
    """Get the weather forecast for a city."""
    return f"sunny in {city}"


def broken_upload(path: str) -> str:
    """Upload a file to cloud storage."""
    raise RuntimeError("disk on fire")


TOOLS = [create_issue, post_message, get_weather, broken_upload]


def scout(tmp_path: Path, *, enabled: bool = True, **learning: object) -> ToolScout:
    settings = ScoutSettings(
        mode="on",
        style="bridge",
        search_mode="lexical",
        learning=LearningSettings.model_validate({"enabled": enabled, "store": str(tmp_path / "usage.db"), **learning}),
    )
    return ToolScout(TOOLS, settings=settings)


def search(session: object, query: str) -> tuple[str, ...]:
    outcome = session.dispatch_sync("tool_search", {"query": query})  # type: ignore[attr-defined]
    return tuple(found["name"] for found in outcome.found)


def call(session: object, name: str, arguments: dict[str, object]) -> object:
    return session.dispatch_sync("tool_call", {"name": name, "arguments": arguments})  # type: ignore[attr-defined]


def recorded(tmp_path: Path, scope: str = "default") -> list[tuple[str, str, bool]]:
    """The pairs a search earned (not the uses no search led to, which auto-pin counts: see `used`)."""
    with SqliteUsageStore(tmp_path / "usage.db") as store:
        return [(p.request, p.tool, p.missed) for p in store.pairs(scope) if p.request]


def used(tmp_path: Path, scope: str = "default") -> list[tuple[str, str]]:
    """(session, tool) of each call no search led to, recorded as a use (an empty request)."""
    with SqliteUsageStore(tmp_path / "usage.db") as store:
        return [(p.session, p.tool) for p in store.pairs(scope) if not p.request]


def test_a_found_tool_called_successfully_records_the_pair(tmp_path: Path) -> None:
    scout_ = scout(tmp_path)
    session = scout_.session("s1")
    assert "create_issue" in search(session, "create a github issue")
    assert not call(session, "create_issue", {"title": "bug"}).is_error  # type: ignore[attr-defined]
    scout_.close()
    assert recorded(tmp_path) == [("create a github issue", "create_issue", False)]
    with SqliteUsageStore(tmp_path / "usage.db") as store:
        (only,) = store.pairs("default")
    assert only.session == "s1"
    assert "bug" not in repr(only)  # arguments are never stored


def test_searches_that_missed_before_the_finding_one_get_credit(tmp_path: Path) -> None:
    scout_ = scout(tmp_path)
    session = scout_.session("s1")
    assert "create_issue" not in search(session, "raise a ticket on the tracker")
    assert "create_issue" in search(session, "create issue in github")
    call(session, "create_issue", {"title": "bug"})
    scout_.close()
    assert recorded(tmp_path) == [
        ("raise a ticket on the tracker", "create_issue", True),
        ("create issue in github", "create_issue", False),
    ]


def test_a_direct_call_credits_the_searches_since_the_last_call(tmp_path: Path) -> None:
    scout_ = scout(tmp_path)
    session = scout_.session("s1")
    search(session, "weather forecast for a city")
    call(session, "get_weather", {"city": "Oslo"})
    assert "create_issue" not in search(session, "raise a ticket on the tracker")
    call(session, "create_issue", {"title": "bug"})  # found long ago, called without a new search
    scout_.close()
    assert recorded(tmp_path) == [
        ("weather forecast for a city", "get_weather", False),
        ("raise a ticket on the tracker", "create_issue", True),
    ]


def test_a_failing_or_refused_call_records_nothing(tmp_path: Path) -> None:
    scout_ = scout(tmp_path)
    session = scout_.session("s1")
    assert "broken_upload" in search(session, "upload a file to cloud storage")
    assert call(session, "broken_upload", {"path": "/x"}).is_error  # type: ignore[attr-defined]
    assert call(session, "create_issue", {"wrong": 1}).is_error  # type: ignore[attr-defined]
    scout_.close()
    assert recorded(tmp_path) == []


def test_nothing_is_recorded_when_learning_is_off(tmp_path: Path) -> None:
    scout_ = scout(tmp_path, enabled=False)
    assert scout_.usage is None
    session = scout_.session("s1")
    search(session, "create a github issue")
    call(session, "create_issue", {"title": "bug"})
    scout_.close()
    assert not (tmp_path / "usage.db").exists()


def test_learning_is_on_by_default_and_keeps_pairs_in_memory_in_the_library() -> None:
    scout_ = ToolScout(TOOLS, settings=ScoutSettings(mode="on", style="bridge", search_mode="lexical"))
    assert scout_.settings.learning.enabled is True and scout_.usage is not None
    session = scout_.session("s1")
    search(session, "create a github issue")
    call(session, "create_issue", {"title": "bug"})
    scout_.usage.flush()
    assert [(pair.request, pair.tool) for pair in scout_.usage.store.pairs("default") if pair.request] == [
        ("create a github issue", "create_issue")
    ]


def test_another_session_and_repeats_add_nothing_and_scopes_stay_apart(tmp_path: Path) -> None:
    scout_ = scout(tmp_path, scope="team-a")
    first, second = scout_.session("s1"), scout_.session("s2")
    search(first, "create a github issue")
    call(second, "create_issue", {"title": "x"})  # s2 never searched
    for _ in range(3):
        search(first, "create a github issue")
        call(first, "create_issue", {"title": "bug"})
    scout_.close()
    assert recorded(tmp_path, "team-a") == [("create a github issue", "create_issue", False)]
    assert recorded(tmp_path) == []


def test_a_sessionless_chain_is_credited_only_when_its_search_is_the_principals_one_in_the_window(
    tmp_path: Path,
) -> None:
    """Requests naming no session share their principal's learning session: another agent's search may be there."""
    scout_ = scout(tmp_path)

    def request(principal: str, number: int) -> object:
        """One stateless request, as the gateway runs it (a session of its own, learning as its principal's)."""
        return scout_.session(
            f"{principal}:request:{number}", learning_session=f"principal:{principal}", learning_sessionless=True
        )

    assert "create_issue" not in search(request("alone", 1), "file a bug")
    call(request("alone", 2), "create_issue", {"title": "bug"})  # its only search: the chain is its own
    assert "create_issue" not in search(request("busy", 1), "file a bug")
    assert "create_issue" not in search(request("busy", 2), "what should I wear tomorrow")
    call(request("busy", 3), "create_issue", {"title": "bug"})  # either search may be another agent's: neither
    scout_.close()
    assert recorded(tmp_path) == [("file a bug", "create_issue", True)]


def test_a_search_older_than_the_window_gets_no_credit(tmp_path: Path) -> None:
    scout_ = scout(tmp_path, window_s=0.05)
    session = scout_.session("s1")
    search(session, "create a github issue")
    time.sleep(0.2)
    call(session, "create_issue", {"title": "bug"})
    scout_.close()
    assert recorded(tmp_path) == []


def test_a_failing_store_warns_once_and_the_calls_go_on(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    scout_ = scout(tmp_path)
    assert scout_.usage is not None
    scout_.usage.store.close()  # every write now raises StoreError
    session = scout_.session("s1")
    with caplog.at_level(logging.WARNING, logger="toolscout.learning"):
        steps: list[tuple[str, str, dict[str, object]]] = [
            ("create a github issue", "create_issue", {"title": "bug"}),
            ("post a slack message", "post_message", {"text": "hi"}),
        ]
        for query, name, arguments in steps:
            search(session, query)
            assert call(session, name, arguments).content.startswith(("created", "posted"))  # type: ignore[attr-defined]
    warnings = [record for record in caplog.records if record.levelno == logging.WARNING]
    assert len(warnings) == 1 and "usage store" in warnings[0].getMessage()


def test_replace_keeps_recording_in_the_same_store(tmp_path: Path) -> None:
    scout_ = scout(tmp_path)
    other = scout_.replace(settings=scout_.settings.model_copy(update={"style": "reveal"}))
    assert other.usage is not None and scout_.usage is not None and other.usage.store is scout_.usage.store


def test_bad_learning_settings_name_the_key_and_the_limit() -> None:
    from toolscout import ConfigError

    with pytest.raises(ConfigError, match="max_pairs_per_scope"):
        ScoutSettings.from_mapping({"learning": {"max_pairs_per_scope": 0}}, prefix="toolscout")
    with pytest.raises(ConfigError, match="store"):
        ToolScout(TOOLS, settings=ScoutSettings.from_mapping({"learning": {"enabled": True, "store": "ftp://x"}}))
    defaults = ScoutSettings().learning
    assert (defaults.enabled, defaults.scope, defaults.max_pairs_per_scope, defaults.min_sessions) == (
        True,
        "default",
        10_000,
        1,
    )


def test_learning_off_or_on_is_a_switch_of_its_own(tmp_path: Path) -> None:
    for value, enabled in (("off", False), (False, False), ("on", True), (True, True)):
        settings = ScoutSettings.from_mapping({"learning": value}, prefix="toolscout")
        assert settings.learning == LearningSettings(enabled=enabled)
    assert ToolScout(TOOLS, settings=ScoutSettings.from_mapping({"learning": "off"})).usage is None
    with pytest.raises(ConfigError, match="learning"):
        ScoutSettings.from_mapping({"learning": "maybe"}, prefix="toolscout")


class HangingStore(MemoryUsageStore):
    """A usage store whose writes wait until the test lets them through (a stalled Redis, say)."""

    def __init__(self) -> None:
        super().__init__()
        self.release = threading.Event()

    def record(self, pairs: Sequence[UsagePair]) -> None:
        self.release.wait(timeout=60)
        super().record(pairs)


def test_a_hanging_store_never_holds_up_a_call(tmp_path: Path) -> None:
    store = HangingStore()
    settings = ScoutSettings(mode="on", style="bridge", search_mode="lexical", learning=LearningSettings(enabled=True))
    scout_ = ToolScout(TOOLS, settings=settings, usage_store=store)
    session = scout_.session("s1")
    for title in ("one", "two"):
        search(session, f"create a github issue {title}")
        assert call(session, "create_issue", {"title": title}).content == f"created {title}"  # type: ignore[attr-defined]
    assert not store.release.is_set() and store.pairs("default") == ()
    store.release.set()
    assert scout_.usage is not None
    scout_.usage.flush()
    assert [p.request for p in store.pairs("default")] == ["create a github issue one", "create a github issue two"]
    scout_.close()


def test_two_scouts_on_one_redis_learn_into_one_store_per_scope(redis_url: str, request: pytest.FixtureRequest) -> None:
    from toolscout.learning._redis import RedisUsageStore

    prefix = f"replicas-{request.node.name}"
    replicas = [
        ToolScout(
            TOOLS,
            settings=ScoutSettings(
                mode="on", search_mode="lexical", learning=LearningSettings(enabled=True, scope=scope)
            ),
            usage_store=RedisUsageStore(redis_url, prefix=prefix),
        )
        for scope in ("a", "b")
    ]
    for replica, query in zip(replicas, ("create a github issue", "post a slack message"), strict=True):
        session = replica.session("s1")
        (found, *_) = search(session, query)
        call(session, found, {"title": "x"} if found == "create_issue" else {"text": "x"})
        replica.close()
    with RedisUsageStore(redis_url, prefix=prefix) as store:
        assert [(p.request, p.tool) for p in store.pairs("a")] == [("create a github issue", "create_issue")]
        assert [(p.request, p.tool) for p in store.pairs("b")] == [("post a slack message", "post_message")]


def test_a_call_no_search_led_to_is_recorded_once_per_session_as_a_use(tmp_path: Path) -> None:
    scout_ = scout(tmp_path)
    direct, searched = scout_.session("direct"), scout_.session("searched")
    for _ in range(3):
        assert not call(direct, "create_issue", {"title": "bug"}).is_error  # type: ignore[attr-defined]
    search(searched, "create a github issue")
    call(searched, "create_issue", {"title": "bug"})
    call(searched, "create_issue", {"title": "again"})  # its search already credits its use
    scout_.close()
    assert used(tmp_path) == [("direct", "create_issue")]
    assert recorded(tmp_path) == [("create a github issue", "create_issue", False)]
