"""Keep the cyclic garbage collector's full passes short in a long-running gateway process.

CPython's full (generation 2) collection walks every container object the process holds: the
imported SDKs, the catalog and its index, every session. Under load it runs every couple of
seconds and stops every client for as long as the walk takes (up to 165 ms when timed during
``bench/abuse.py``: most of the well-behaved clients' p99). Frozen objects (`gc.freeze`) are
skipped by those walks, so `keep_heap_settled` freezes what is alive once the gateway has started,
freezes newcomers early when a full pass takes longer than a budget (a flood of sessions), and now
and then thaws everything for one full collection, so what died among the frozen objects is
reclaimed (frozen objects are otherwise never collected: this bounds it to one interval's worth).
"""

from __future__ import annotations

import gc
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

import anyio

__all__ = ["keep_heap_settled", "settle_heap"]

logger = logging.getLogger("toolscout.gateway._heap")

THAW_EVERY_S = 120.0
FULL_PASS_BUDGET_MS = 10.0
FREEZE_AT_MOST_EVERY_S = 10.0
FIRST_SETTLE_AT_MOST_AFTER_S = 30.0


def settle_heap(*, thaw: bool) -> int:
    """Collect, then freeze what is left; returns the number of objects collected.

    Args:
        thaw: Return the frozen objects to the collector first, so the collection also reclaims
            what died among them (a pass over the whole heap); otherwise only newer objects are
            collected and frozen (a pass over those).
    """
    if thaw:
        gc.unfreeze()
    collected = gc.collect()
    gc.freeze()
    return collected


class _FullPassTimer:
    """A `gc.callbacks` hook that notes a full pass slower than `budget_ms` (cheap: runs on every pass)."""

    def __init__(self, budget_ms: float) -> None:
        self.budget_s = budget_ms / 1000
        self.over_budget = False
        self._began = 0.0

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if info["generation"] != 2:
            return
        if phase == "start":
            self._began = time.perf_counter()
        elif time.perf_counter() - self._began > self.budget_s:
            self.over_budget = True


async def keep_heap_settled(
    started: Callable[[], Awaitable[None]],
    *,
    first_at_most_after_s: float = FIRST_SETTLE_AT_MOST_AFTER_S,
    thaw_every_s: float = THAW_EVERY_S,
    full_pass_budget_ms: float = FULL_PASS_BUDGET_MS,
    freeze_at_most_every_s: float = FREEZE_AT_MOST_EVERY_S,
    poll_s: float = 1.0,
) -> None:
    """Settle the heap once `started` returns (or after `first_at_most_after_s`), then keep it settled.

    A whole-heap settle every `thaw_every_s`; in between, a full pass slower than
    `full_pass_budget_ms` gets the objects allocated since frozen too, at most every
    `freeze_at_most_every_s`. Runs until cancelled, then leaves nothing frozen; meant for the
    process that serves (a library host owns its own heap).
    """
    timer = _FullPassTimer(full_pass_budget_ms)
    gc.callbacks.append(timer)
    try:
        with anyio.move_on_after(first_at_most_after_s):
            await started()
        thawed_at = settled_at = _settle(timer, thaw=True)
        while True:
            await anyio.sleep(poll_s)
            now = time.monotonic()
            if now - thawed_at >= thaw_every_s:
                thawed_at = settled_at = _settle(timer, thaw=True)
            elif timer.over_budget and now - settled_at >= freeze_at_most_every_s:
                settled_at = _settle(timer, thaw=False)
    finally:
        gc.callbacks.remove(timer)
        gc.unfreeze()


def _settle(timer: _FullPassTimer, *, thaw: bool) -> float:
    began = time.perf_counter()
    collected = settle_heap(thaw=thaw)
    timer.over_budget = False
    logger.debug(
        "heap settled (%s) in %.1f ms: %d objects collected, %d frozen",
        "whole" if thaw else "newer objects",
        (time.perf_counter() - began) * 1000,
        collected,
        gc.get_freeze_count(),
    )
    return time.monotonic()
