"""`SessionReaper` on its own: which sessions end, when, and what they lose."""

from __future__ import annotations

import anyio
import pytest

from toolscout.gateway._sessions._reaper import SessionReaper

pytestmark = pytest.mark.anyio


class Ended:
    def __init__(self) -> None:
        self.calls: list[tuple[str, bool]] = []

    async def __call__(self, session_id: str, forget_discoveries: bool) -> None:
        self.calls.append((session_id, forget_discoveries))


async def test_past_the_limit_the_least_recently_used_session_ends() -> None:
    ended = Ended()
    reaper = SessionReaper(idle_s=3600, end=ended, limit=2)
    await reaper.touch("a", "durable")
    await reaper.touch("b", "connection")
    await reaper.touch("a", "durable")
    await reaper.touch("c", "durable")
    assert ended.calls == [("b", True)]  # a connection's session loses its discoveries too
    assert len(reaper) == 2


async def test_idle_sessions_end_and_busy_ones_stay() -> None:
    ended = Ended()
    reaper = SessionReaper(idle_s=0.2, end=ended)
    await reaper.touch("idle", "durable")
    await anyio.sleep(0.3)
    await reaper.touch("busy", "durable")
    await reaper.sweep()
    assert ended.calls == [("idle", False)]  # a durable session keeps its discoveries in the store
    assert len(reaper) == 1


async def test_a_stateless_request_ends_with_its_answer_and_is_never_tracked() -> None:
    ended = Ended()
    reaper = SessionReaper(idle_s=3600, end=ended)
    await reaper.touch("r", "request")
    assert len(reaper) == 0
    await reaper.finished("r", "request", discovered=False)
    await reaper.finished("s", "request", discovered=True)
    assert ended.calls == [("r", False), ("s", True)]


async def test_a_closed_connection_ends_its_session_and_a_failing_end_is_only_logged() -> None:
    async def fail(session_id: str, forget_discoveries: bool) -> None:
        raise OSError("disk gone")

    reaper = SessionReaper(idle_s=3600, end=fail)
    await reaper.touch("c", "connection")
    await reaper.closed("c")
    assert len(reaper) == 0


async def test_with_a_shared_output_store_durable_sessions_are_left_to_the_store() -> None:
    ended = Ended()
    reaper = SessionReaper(idle_s=0.1, end=ended, ends_durable=False)
    await reaper.touch("busy-on-another-replica", "durable")
    await reaper.touch("c", "connection")
    await anyio.sleep(0.2)
    await reaper.sweep()
    assert ended.calls == [("c", True)]  # only the connection this replica holds
    assert len(reaper) == 0


async def test_a_token_past_its_share_ends_only_its_own_sessions_and_forgets_their_discoveries() -> None:
    ended = Ended()
    reaper = SessionReaper(idle_s=3600, end=ended, limit=100, per_token=3)
    await reaper.touch("victim", "durable", "victim")
    for n in range(10):
        await reaper.touch(f"junk-{n}", "durable", "attacker")
    assert [session for session, _ in ended.calls] == [f"junk-{n}" for n in range(7)]
    assert all(forget for _, forget in ended.calls)  # the store never fills with one token's sessions
    assert len(reaper) == 4


async def test_past_the_limit_the_token_holding_the_most_loses_its_least_recently_used_session() -> None:
    ended = Ended()
    reaper = SessionReaper(idle_s=3600, end=ended, limit=5, per_token=1000)
    await reaper.touch("victim", "durable", "victim")
    for n in range(10_050 // 1000):
        await reaper.touch(f"junk-{n}", "durable", "attacker")
    assert "victim" not in [session for session, _ in ended.calls]
    assert len(reaper) == 5
