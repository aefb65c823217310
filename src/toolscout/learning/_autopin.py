"""Auto-pin: the tools a learning scope keeps calling are listed from the first turn, as pinned tools are.

A session *used* a tool when the store holds a pair of that session for it: a search that led to the call, or a
call no search led to (`USE`, recorded for deferred tools, so a tool listed without a search keeps its use).
Per scope, the recent sessions are the latest ``learning.auto_pin_window_sessions`` sessions holding a pair
(ordered by their latest pair); a tool used by at least ``auto_pin_min_share`` of them, and by at least
``max(auto_pin_min_sessions, min_sessions)`` distinct ones (so one session never auto-pins a tool for
others), is a candidate, the most used first. `AutoPins.chosen` takes candidates a session's plan defers (never
a tool outside its scope, never one already listed in full: pinned and core tools count against nothing) until
``auto_pin_max_tools`` tools, ``auto_pin_max_tokens`` tokens, and ``auto_pin_max_turn_share`` of the tokens the
session's first turn takes without them. When use stops, the tool's share falls as new
sessions come and it leaves.

The candidates are cached per scope and recomputed only when the store's `UsageStore.version` changes, asked at
most every `REFRESH_S` seconds plus the time the last check took, so listing tools costs no store read in
between. A failing store, or a malformed pair, gives no auto-pins, with one warning (shared with the recorder
and the ranking: `StoreHealth`).
"""

from __future__ import annotations

import math
import threading
from collections import defaultdict
from collections.abc import Callable, Sequence

from .._settings import LearningSettings
from .._tokens import TokenCounter, tool_tokens
from ..disclosure import TurnPlan
from ._base import StoreHealth, UsagePair, UsageStore
from ._refresh import ScopeRefresh

__all__ = ["REFRESH_S", "AutoPins", "candidates"]

REFRESH_S = 1.0
"""Seconds between two checks of a scope's store version (a tool's share moves slowly: sessions, not calls)."""


def candidates(pairs: Sequence[UsagePair], settings: LearningSettings) -> tuple[str, ...]:
    """The tools `pairs` (one scope's) make auto-pin candidates, the most used first (module docstring)."""
    latest: dict[str, float] = {}
    used: dict[str, set[str]] = defaultdict(set)
    for pair in pairs:
        if not (isinstance(pair.tool, str) and isinstance(pair.session, str)):
            raise ValueError(f"a stored pair is not text: {pair!r}")
        if isinstance(pair.at, bool) or not isinstance(pair.at, int | float) or not math.isfinite(pair.at):
            raise ValueError(f"a stored pair has no valid time: {pair!r}")
        latest[pair.session] = max(latest.get(pair.session, float("-inf")), float(pair.at))
        used[pair.tool].add(pair.session)
    recent = set(sorted(latest, key=lambda session: (-latest[session], session))[: settings.auto_pin_window_sessions])
    if not recent:
        return ()
    least = max(settings.auto_pin_min_sessions, settings.min_sessions)
    counts = {tool: len(sessions & recent) for tool, sessions in used.items()}
    chosen = [
        tool for tool, count in counts.items() if count >= least and count / len(recent) >= settings.auto_pin_min_share
    ]
    return tuple(sorted(chosen, key=lambda tool: (-counts[tool], tool)))


class AutoPins:
    """One usage store's auto-pin candidates, cached per scope, and each session's pick of them (module docstring).

    Args:
        store: Where the pairs are.
        settings: The ``learning`` settings (the ``auto_pin_*`` budget and thresholds, ``min_sessions``).
        refresh_s: Seconds between checks of a scope's store version.
        health: The store's health, shared with its recorder and ranking, so a failing store warns once.
    """

    def __init__(
        self,
        store: UsageStore,
        settings: LearningSettings,
        *,
        refresh_s: float = REFRESH_S,
        health: StoreHealth | None = None,
    ) -> None:
        self.store = store
        self.settings = settings
        self._health = health or StoreHealth()
        self._candidates: ScopeRefresh[tuple[str, ...]] = ScopeRefresh(
            store,
            lambda pairs, _held: candidates(pairs, settings),
            failed=(),
            refresh_s=refresh_s,
            on_failure=self._failed,
        )
        self._chosen: dict[str, int] = {}
        self._lock = threading.Lock()

    @property
    def refresh_s(self) -> float:
        """Seconds between checks of a scope's store version (a replay that must see each session's use sets 0)."""
        return self._candidates.refresh_s

    @refresh_s.setter
    def refresh_s(self, value: float) -> None:
        self._candidates.refresh_s = value

    def chosen(
        self, scope: str, plan: TurnPlan, counter: TokenCounter, *, turn_tokens: Callable[[], int]
    ) -> tuple[str, ...]:
        """The tools `plan`'s session lists without a search: candidates it defers, within the budget.

        `turn_tokens`: the tokens of the session's first turn without auto-pins (``auto_pin_max_turn_share``),
        asked only when a candidate is deferred.
        """
        settings = self.settings
        found = self._candidates.get(scope) if settings.auto_pin_max_tools else ()
        picked: list[str] = []
        spent = 0
        budget: int | None = None
        for name in found:
            if len(picked) >= settings.auto_pin_max_tools:
                break
            tool = plan.scoped.get(name)
            if tool is None or name not in plan.deferred:
                continue
            if budget is None:
                budget = min(settings.auto_pin_max_tokens, int(settings.auto_pin_max_turn_share * turn_tokens()))
            cost = tool_tokens(tool, counter)
            if spent + cost > budget:
                continue
            spent += cost
            picked.append(name)
        with self._lock:
            self._chosen[scope] = len(picked)
        return tuple(picked)

    def count(self) -> int:
        """The tools auto-pinned now, summed over the scopes (as each scope's latest listing chose them)."""
        with self._lock:
            return sum(self._chosen.values())

    def generation(self, scope: str) -> int:
        """A number that changes whenever the scope's candidates change (read from the cache: no store read)."""
        return self._candidates.generation(scope)

    def _failed(self, failure: Exception) -> None:
        self._health.failed(
            "learning: ranking unlearned and no tools auto-pinned, the usage store %r failed: %s", self.store, failure
        )
