"""The gateway process keeps long-lived objects frozen, freezes newcomers when full passes get slow,
and thaws now and then so what died among frozen objects is still reclaimed."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator
from functools import partial

import anyio
import pytest

from toolscout.gateway._http._heap import keep_heap_settled, settle_heap

pytestmark = pytest.mark.anyio


class Node:
    """A weak-referenceable object that can sit in a reference cycle."""

    def __init__(self) -> None:
        self.other: Node | None = None


def cycle() -> weakref.ref[Node]:
    """A two-node cycle nobody else references (garbage only the cyclic collector reclaims)."""
    first, second = Node(), Node()
    first.other, second.other = second, first
    return weakref.ref(first)


@pytest.fixture(autouse=True)
def unfrozen() -> Iterator[None]:
    yield
    gc.unfreeze()
    gc.collect()


async def started() -> None:
    return None


def test_frozen_garbage_waits_for_a_thaw() -> None:
    kept = Node()
    kept.other = Node()
    kept.other.other = kept
    settle_heap(thaw=True)
    assert gc.get_freeze_count() > 0
    dead = weakref.ref(kept)
    del kept  # a cycle that died after it was frozen
    settle_heap(thaw=False)
    assert dead() is not None, "frozen objects are out of the collector's reach until thawed"
    settle_heap(thaw=True)
    assert dead() is None


def test_newer_garbage_is_collected_without_a_thaw() -> None:
    settle_heap(thaw=True)
    dead = cycle()
    settle_heap(thaw=False)
    assert dead() is None


async def frozen_after_a_full_pass(budget_ms: float) -> tuple[int, int]:
    """Run the keeper with a full-pass budget, allocate 1,000 objects, collect; the freeze count before and after."""
    async with anyio.create_task_group() as group:
        group.start_soon(
            partial(
                keep_heap_settled,
                started,
                thaw_every_s=3600,
                full_pass_budget_ms=budget_ms,
                freeze_at_most_every_s=0.05,
                poll_s=0.01,
            )
        )
        await anyio.sleep(0.2)
        before = gc.get_freeze_count()
        newcomers = [Node() for _ in range(1000)]
        gc.collect()  # a full pass over the newcomers
        with anyio.move_on_after(1):
            while gc.get_freeze_count() < before + len(newcomers):
                await anyio.sleep(0.01)
        after = gc.get_freeze_count()
        assert len(newcomers) == 1000  # alive until counted
        group.cancel_scope.cancel()
    return before, after


async def test_slow_full_passes_get_newer_objects_frozen() -> None:
    before, after = await frozen_after_a_full_pass(budget_ms=0)
    assert after >= before + 1000


async def test_full_passes_within_budget_freeze_nothing_new() -> None:
    before, after = await frozen_after_a_full_pass(budget_ms=60_000)
    assert after < before + 500, "the newcomers were frozen"


async def test_periodic_thaw_reclaims_frozen_garbage() -> None:
    kept = Node()
    kept.other = Node()
    kept.other.other = kept
    dead = weakref.ref(kept)
    async with anyio.create_task_group() as group:
        group.start_soon(lambda: keep_heap_settled(started, thaw_every_s=0.3, poll_s=0.01))
        await anyio.sleep(0.1)
        assert gc.get_freeze_count() > 0
        del kept
        with anyio.fail_after(5):
            while dead() is not None:
                await anyio.sleep(0.05)
        group.cancel_scope.cancel()


async def test_first_settle_waits_for_start_up_at_most_so_long() -> None:
    never = anyio.Event()
    async with anyio.create_task_group() as group:
        group.start_soon(lambda: keep_heap_settled(never.wait, first_at_most_after_s=0.2, poll_s=0.01))
        await anyio.sleep(0.05)
        assert gc.get_freeze_count() == 0
        with anyio.fail_after(5):
            while gc.get_freeze_count() == 0:
                await anyio.sleep(0.01)
        group.cancel_scope.cancel()


async def test_the_keeper_leaves_the_collector_as_it_found_it() -> None:
    hooks = len(gc.callbacks)
    async with anyio.create_task_group() as group:
        group.start_soon(lambda: keep_heap_settled(started, poll_s=0.01))
        await anyio.sleep(0.05)
        assert len(gc.callbacks) == hooks + 1
        assert gc.get_freeze_count() > 0
        group.cancel_scope.cancel()
    assert len(gc.callbacks) == hooks
    assert gc.get_freeze_count() == 0
