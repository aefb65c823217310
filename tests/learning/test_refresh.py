"""A scope's value is re-read when its store version moves, no sooner than `refresh_s` after the last re-read."""

from __future__ import annotations

import time
from collections.abc import Sequence

from toolscout.learning import UsagePair
from toolscout.learning._internal import MemoryUsageStore
from toolscout.learning._refresh import ScopeRefresh

FIRST_BUILD_S = 0.4


def pair(request: str) -> UsagePair:
    return UsagePair(scope="s", request=request, tool="t", session="a", at=time.time())


def test_a_pair_recorded_after_a_slow_first_read_is_seen_after_refresh_s_not_after_the_first_reads_time() -> None:
    store = MemoryUsageStore()
    store.record([pair("first")])
    builds: list[int] = []

    def build(pairs: Sequence[UsagePair], _held: tuple[str, ...]) -> tuple[str, ...]:
        if not builds:
            time.sleep(FIRST_BUILD_S)  # a scope of many pairs, read for the first time
        builds.append(len(pairs))
        return tuple(p.request for p in pairs)

    refresh: ScopeRefresh[tuple[str, ...]] = ScopeRefresh(store, build, failed=(), refresh_s=0.02, on_failure=print)
    assert refresh.get("s") == ("first",)
    store.record([pair("second")])
    time.sleep(0.1)
    assert refresh.get("s") == ("first", "second")


def test_a_re_read_still_adds_its_own_time_to_the_wait() -> None:
    store = MemoryUsageStore()
    store.record([pair("first")])
    reads: list[int] = []

    def build(pairs: Sequence[UsagePair], _held: tuple[str, ...]) -> tuple[str, ...]:
        reads.append(len(pairs))
        if len(reads) == 2:
            time.sleep(FIRST_BUILD_S)  # a slow re-read
        return tuple(p.request for p in pairs)

    refresh: ScopeRefresh[tuple[str, ...]] = ScopeRefresh(store, build, failed=(), refresh_s=0.02, on_failure=print)
    refresh.get("s")
    store.record([pair("second")])
    time.sleep(0.05)
    assert refresh.get("s") == ("first", "second")
    store.record([pair("third")])
    time.sleep(0.05)
    assert refresh.get("s") == ("first", "second")  # the slow re-read's time is still to wait
