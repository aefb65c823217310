"""The reranking stage of search: a `Reranker` reorders the top N hits of any engine, within a latency budget.

The stage asks the engine for at least ``top_n`` hits, hands the reranker the top ``top_n`` of
them, and orders those by its scores (ties keep the engine's order); hits past ``top_n`` follow in
the engine's order, and every hit keeps the engine's score. A reranker that fails, or has not
answered within ``budget_ms``, leaves the engine's order standing (one warning per stage). Rerankers
are registered by name (`register_reranker`) and chosen by the ``search_rerank`` settings.
"""

from __future__ import annotations

import logging
import math
import queue
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import replace
from typing import Protocol, TypeAlias, TypeVar

from .._errors import ConfigError
from .._plugins import provide_names
from .._search_settings import RerankSettings
from ..catalog import Catalog, ToolSpec
from ._base import SearchResult

__all__ = [
    "RerankSettings",
    "RerankStage",
    "Reranker",
    "RerankerFactory",
    "get_reranker",
    "register_reranker",
    "reranker_names",
]

logger = logging.getLogger("toolscout.search")

_T = TypeVar("_T")


class Reranker(Protocol):
    """Scores the top candidates of a search for a request (a cross-encoder, a trained model, a rule).

    Contract:

    - `rerank` gets the request as the model wrote it and the candidate tools in the engine's order
      (the engine's top ``top_n`` hits, already inside the caller's scope), and returns one finite
      score per candidate, in the same order; higher is better. The stage sorts by these scores
      (ties keep the engine's order), so it never adds, drops or repeats a tool.
    - Deterministic: the same request and candidates give the same scores.
    - Thread-safe: searches run on worker threads, so `rerank` is called from several threads at
      once; a reranker that cannot be must take a lock itself.
    - It may raise or run long: the stage then keeps the engine's order (one warning), so search never
      fails or waits past ``budget_ms`` because of it. It is never cancelled mid-call.
    """

    def rerank(self, query: str, candidates: Sequence[ToolSpec]) -> Sequence[float]:
        """One score per candidate, in the candidates' order."""
        ...


RerankerFactory: TypeAlias = Callable[[RerankSettings], Reranker]
"""Builds a reranker from the settings, once per `ToolScout` (and per `ToolScout.replace`), so a factory of a
heavy model shares one loaded model (``functools.cache`` on the settings); raises ImportError when its packages
are missing."""

_RERANKERS: dict[str, RerankerFactory] = {}


def register_reranker(name: str, factory: RerankerFactory) -> None:
    """Make a reranker available as ``search_rerank.reranker: name``."""
    _RERANKERS[name] = factory


def reranker_names() -> tuple[str, ...]:
    """The registered rerankers, in registration order."""
    return tuple(_RERANKERS)


provide_names("search_rerank.reranker", reranker_names)


def get_reranker(name: str, settings: RerankSettings | None = None) -> Reranker:
    """A new reranker `name`, built from `settings`.

    Raises:
        ConfigError: No reranker has that name; the registered ones are listed.
    """
    try:
        factory = _RERANKERS[name]
    except KeyError:
        known = ", ".join(_RERANKERS) or "none is registered"
        raise ConfigError(f"unknown reranker {name!r}; use one of: {known}", key="search_rerank.reranker") from None
    return factory(settings or RerankSettings())


class _Workers:
    """A few daemon threads for reranks: one stuck past its budget never holds up a search or the process's exit."""

    def __init__(self, size: int) -> None:
        self._jobs: queue.SimpleQueue[tuple[Callable[[], object], Future[object]]] = queue.SimpleQueue()
        self._size = size
        self._threads = 0
        self._idle = 0
        self._lock = threading.Lock()

    def submit(self, job: Callable[[], _T]) -> Future[_T]:
        future: Future[_T] = Future()
        self._jobs.put((job, future))  # type: ignore[arg-type]
        with self._lock:
            if self._idle == 0 and self._threads < self._size:
                self._threads += 1
                threading.Thread(target=self._work, name="toolscout-rerank", daemon=True).start()
        return future

    def _work(self) -> None:
        while True:
            with self._lock:
                self._idle += 1
            job, future = self._jobs.get()
            with self._lock:
                self._idle -= 1
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(job())
            except BaseException as exc:  # handed to the waiting search, which falls back
                future.set_exception(exc)


_WORKERS = _Workers(4)


class RerankStage:
    """Runs one `Reranker` over the top hits of searches, within a latency budget (thread-safe)."""

    def __init__(self, reranker: Reranker, *, name: str, top_n: int, budget_s: float | None) -> None:
        """Wrap `reranker` (`name` goes into the warning when it fails)."""
        self._reranker = reranker
        self._name = name
        self.top_n = top_n
        """How many top hits the reranker orders."""
        self._budget_s = budget_s
        self._warned = False
        self._lock = threading.Lock()

    @classmethod
    def from_settings(cls, settings: RerankSettings) -> RerankStage | None:
        """The stage `settings` ask for (None: no reranker configured).

        Raises:
            ConfigError: The reranker is not registered.
        """
        if settings.reranker is None:
            return None
        budget = None if settings.budget_ms is None else settings.budget_ms / 1000
        reranker = get_reranker(settings.reranker, settings)
        return cls(reranker, name=settings.reranker, top_n=settings.top_n, budget_s=budget)

    def apply(self, result: SearchResult, tools: Catalog) -> SearchResult:
        """`result` with its top ``top_n`` hits in the reranker's order (unchanged when it fails or runs late)."""
        head = result.hits[: self.top_n]
        if len(head) < 2:
            return result
        candidates = [tools[hit.name] for hit in head]
        try:
            scores = self._scores(result.query, candidates)
        except Exception as exc:  # a reranker never breaks search: the engine's order stands
            self._warn(exc)
            return result
        order = sorted(range(len(head)), key=lambda i: (-scores[i], i))
        return replace(result, hits=(*(head[i] for i in order), *result.hits[self.top_n :]))

    def _scores(self, query: str, candidates: Sequence[ToolSpec]) -> list[float]:
        if self._budget_s is None:
            raw = self._reranker.rerank(query, candidates)
        else:
            raw = _WORKERS.submit(lambda: self._reranker.rerank(query, candidates)).result(self._budget_s)
        scores = [float(score) for score in raw]
        if len(scores) != len(candidates) or not all(math.isfinite(score) for score in scores):
            raise ValueError(f"expected {len(candidates)} finite scores, got {list(raw)!r}")
        return scores

    def _warn(self, exc: Exception) -> None:
        with self._lock:
            first, self._warned = not self._warned, True
        if isinstance(exc, FutureTimeout):
            why = f"took longer than its budget of {self._budget_s * 1000 if self._budget_s else 0:g} ms"
        else:
            why = f"failed ({type(exc).__name__}: {exc})"
        if first:
            logger.warning("reranker %r %s; searches keep the engine's order when it does", self._name, why)
        else:
            logger.debug("reranker %r %s; the engine's order stands", self._name, why)
