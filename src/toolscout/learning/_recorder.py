"""`UsageRecorder`: turns a session's dispatched calls into pairs (search request -> the tool then called)."""

from __future__ import annotations

import dataclasses
import logging
import queue
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence

from .._settings import LearningSettings
from ..dispatch import SearchAnswer, ToolOutcome
from ._base import USE, StoreHealth, UsageBounds, UsagePair, UsageStore
from ._registry import open_usage_store

__all__ = ["UsageRecorder"]

logger = logging.getLogger(__name__)

_MAX_SESSIONS = 10_000
"""Sessions whose recent searches are remembered; the least recently active is forgotten first."""
_MAX_SEARCHES = 16
"""Recent searches remembered per session."""
_MAX_RECORDED = 256
"""(request, tool) pairs a session remembers having recorded, so a repeat records nothing."""
_MAX_PENDING = 1_000
"""Batches of pairs waiting for the store; past it new ones are dropped (the store is behind or hanging)."""


@dataclasses.dataclass(frozen=True, slots=True)
class _Search:
    request: str
    hits: frozenset[str]
    at: float
    first: str | None = None


@dataclasses.dataclass(slots=True)
class _Trail:
    """One session's recent searches, the time of its last successful call, and the pairs it recorded."""

    searches: list[_Search] = dataclasses.field(default_factory=list)
    last_call: float = float("-inf")
    recorded: OrderedDict[tuple[str, str], None] = dataclasses.field(default_factory=OrderedDict)


class UsageRecorder:
    """Watches each dispatched call of every session and records the evidence in a `UsageStore`.

    A search (``tool_search`` with a query) is remembered with its hits for `window_s` seconds. When a
    catalog tool is then called in the same session and succeeds (no refusal, no error, no ``isError`` result):

    - the latest recent search that listed the tool gets a pair (request -> tool);
    - the chain gets credit: each recent search before it, since the session's previous successful call, that
      did not list the tool gets a pair marked `UsagePair.missed` (the phrasings search does not serve yet);
    - a direct call of a tool no recent search listed (revealed earlier, pinned, listed) credits the session's
      searches since its previous successful call, as missed;
    - a call of a deferred tool (`observe`'s ``deferred``) that credits no search, and no earlier one of the
      session did, is recorded as a use: a pair with an empty request (`USE`), which no search matches but
      auto-pin counts (a tool listed without a search is called without one, and must not leave for that).

    A session records each (request, tool) once. Arguments and results are never looked at. A store that fails
    logs one warning (until it works again) and is otherwise ignored: learning never fails a call, and never
    delays one: `save` hands pairs to one writer thread of the recorder's (`flush` waits for it).

    Attribution is by session id. A 2026-07-28 gateway client may send no session (each request stands
    alone; a client sending ``Toolscout-Session`` is attributed exactly): the gateway then passes one session for
    all of the principal's sessionless requests, marked ``sessionless``, so several agents may share it and
    their searches and calls interleave. Such a session's calls are credited more strictly:

    - the hit stays: the latest search in the window that listed the tool (an agent calls what its own search
      just listed; where another agent's later search listed it too, that one is credited: 4-5% of the pairs
      in ``bench/learning_serve_replay.py --wire stateless``, 4 agents in flight, against 37-39% before);
    - the chain is credited only when no other agent can have made it: the session made exactly one search
      in the window, after its previous successful call. Any other search in the window, before or after,
      withholds the credit (a missed search of one agent cannot be told from another's); what is left open:
      an agent whose own search is older than the window, calling an unlisted tool just after another agent's
      only search.

    Votes stay per session, so the principal's sessionless pairs are one session's evidence: a sessionless
    search costs nothing to repeat, so each one an episode of its own would let one principal cast any number
    of votes (``Toolscout-Session`` ids are bounded per token by ``new_sessions_per_minute``).

    Args:
        store: Where pairs go.
        scope: The learning scope of sessions that name none.
        window_s: Seconds a search stays creditable.
        clock: Seconds since the epoch (tests pass their own).
    """

    def __init__(
        self,
        store: UsageStore,
        *,
        scope: str = "default",
        window_s: float = 300.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.scope = scope
        self.window_s = window_s
        self._clock = clock
        self._trails: OrderedDict[tuple[str, str], _Trail] = OrderedDict()
        self._lock = threading.Lock()
        self.health = StoreHealth()
        """Whether the store is failing (shared with a `LearnedRanking` over it, so a failure warns once)."""
        self._pending: queue.Queue[Sequence[UsagePair] | None] = queue.Queue(maxsize=_MAX_PENDING)
        self._writer: threading.Thread | None = None
        self._dropping = False

    @classmethod
    def from_settings(cls, settings: LearningSettings, *, store: UsageStore | None = None) -> UsageRecorder:
        """A recorder for the ``learning`` settings, on `store` or the one ``learning.store`` names (memory).

        Raises:
            ConfigError: The store spec names an unknown scheme.
            StoreError: The store cannot be opened.
        """
        bounds = UsageBounds.from_settings(settings)
        opened = store if store is not None else open_usage_store(settings.store or "memory", bounds)
        return cls(opened, scope=settings.scope, window_s=settings.window_s)

    def observe(
        self,
        session: str,
        outcome: ToolOutcome,
        *,
        tool: bool,
        scope: str | None = None,
        deferred: bool = False,
        sessionless: bool = False,
    ) -> list[UsagePair]:
        """Take one dispatched call into account; returns the pairs it earned (give them to `save`).

        Args:
            session: The session the call belongs to.
            outcome: The call's outcome.
            tool: True when `outcome` names a catalog tool (not a bridge or offload tool).
            scope: The learning scope (default: the recorder's).
            deferred: The tool is deferred for this session (so it may be auto-pinned): a call no search led to
                is recorded as a use (`USE`).
            sessionless: `session` stands for a client's requests that name no session (several agents may
                share it): a chain is credited only when one search of it is in the window (see the class).
        """
        scope = scope or self.scope
        now = self._clock()
        answer = outcome.answer
        with self._lock:
            if isinstance(answer, SearchAnswer):
                if answer.query.strip():
                    hits = frozenset(found.name for found in answer.tools)
                    first = answer.tools[0].name if answer.tools else None
                    self._remember(scope, session, _Search(answer.query, hits, now, first))
                return []
            if not tool or answer is not None or outcome.is_error or outcome.tool_reported_error:
                return []
            trail = self._trails.get((scope, session))
            if trail is None:
                if not deferred:
                    return []
                trail = self._trail(scope, session)
            pairs = self._credit(trail, scope, session, outcome.name, now, sessionless=sessionless)
            if deferred and not any(tool == outcome.name for _, tool in trail.recorded):
                use = _Search(USE, frozenset(), now)
                pairs += self._pairs(trail, [(use, False)], scope, session, outcome.name, now)
            trail.last_call = now
            return pairs

    def save(self, pairs: Sequence[UsagePair]) -> None:
        """Queue the pairs for the store (returns at once; nothing is raised, a full queue drops them)."""
        if not pairs:
            return
        with self._lock:
            if self._writer is None:
                self._writer = threading.Thread(target=self._write, name="toolscout-learning", daemon=True)
                self._writer.start()
        try:
            self._pending.put_nowait(pairs)
        except queue.Full:
            if not self._dropping:
                logger.warning(
                    "learning: the usage store %r is behind; new pairs are dropped until it catches up", self.store
                )
            self._dropping = True
        else:
            self._dropping = False

    def flush(self) -> None:
        """Wait until every queued pair has been written (or failed)."""
        if self._writer is not None:
            self._pending.join()

    def close(self) -> None:
        """Write what is queued, stop the writer thread and close the store."""
        writer = self._writer
        if writer is not None:
            try:
                self._pending.put(None, timeout=10)
            except queue.Full:  # a hanging store: its thread is a daemon, and the store is closed under it
                pass
            else:
                writer.join(timeout=10)
        self.store.close()

    def _write(self) -> None:
        while True:
            pairs = self._pending.get()
            try:
                if pairs is None:
                    return
                self._record(pairs)
            finally:
                self._pending.task_done()

    def _record(self, pairs: Sequence[UsagePair]) -> None:
        """Write the pairs to the store; a failure is logged (once until the store works again), never raised."""
        try:
            self.store.record(pairs)
        except Exception as exc:  # learning must never fail a call, whatever the store raises
            self.health.failed("learning: the usage store %r failed, pairs are not recorded: %s", self.store, exc)
        else:
            self.health.recovered()

    def _remember(self, scope: str, session: str, search: _Search) -> None:
        trail = self._trail(scope, session)
        trail.searches = [*trail.searches, search][-_MAX_SEARCHES:]

    def _trail(self, scope: str, session: str) -> _Trail:
        """The session's trail (a new one if none), as the most recently active."""
        key = (scope, session)
        trail = self._trails.get(key)
        if trail is None:
            trail = self._trails[key] = _Trail()
            while len(self._trails) > _MAX_SESSIONS:
                self._trails.popitem(last=False)
        self._trails.move_to_end(key)
        return trail

    def _credit(
        self, trail: _Trail, scope: str, session: str, name: str, now: float, *, sessionless: bool
    ) -> list[UsagePair]:
        recent = [search for search in trail.searches if now - search.at <= self.window_s]
        finder = next((search for search in reversed(recent) if name in search.hits), None)
        chain = [
            search
            for search in recent
            if search.at > trail.last_call and name not in search.hits and (finder is None or search.at <= finder.at)
        ]
        if sessionless and len(recent) > 1:  # another agent's search may be in the chain
            chain = []
        credited = [(search, True) for search in chain] + ([(finder, False)] if finder is not None else [])
        return self._pairs(trail, credited, scope, session, name, now)

    def _pairs(
        self, trail: _Trail, credited: list[tuple[_Search, bool]], scope: str, session: str, name: str, now: float
    ) -> list[UsagePair]:
        """A pair for each credited search (missed or not) the session has not recorded for `name` yet."""
        pairs = []
        for search, missed in credited:
            key = (search.request, name)
            if key in trail.recorded:
                continue
            trail.recorded[key] = None
            if len(trail.recorded) > _MAX_RECORDED:
                trail.recorded.popitem(last=False)
            pairs.append(
                UsagePair(
                    scope=scope,
                    request=search.request,
                    tool=name,
                    session=session,
                    at=now,
                    missed=missed,
                    first=search.first == name,
                )
            )
        return pairs
