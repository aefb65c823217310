"""The `UsageStore` protocol: pairs (request text -> tool name) learned from use, per learning scope."""

from __future__ import annotations

import dataclasses
import json
import logging
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Sequence
from types import TracebackType
from typing import Protocol, Self

from .._errors import ConfigError, StoreError
from .._settings import LearningSettings

__all__ = [
    "ClosingUsageStore",
    "StoreHealth",
    "MAX_SCOPE_LENGTH",
    "UsageBounds",
    "UsagePair",
    "UsageStore",
    "USE",
    "check_scope",
    "checked_pairs",
    "clip_request",
    "expired_before",
    "export_pairs",
    "pair_from_json",
    "pair_to_json",
]

logger = logging.getLogger("toolscout.learning")

USE = ""
"""The request of a pair that records a call no search led to (a tool listed without one): auto-pin counts it
as the session's use of the tool, and no search request matches it."""
MAX_SCOPE_LENGTH = 256
"""Longest accepted learning scope (and tool name), in characters."""


@dataclasses.dataclass(frozen=True, slots=True)
class UsageBounds:
    """What a store holds at most; every store enforces all four on each `UsageStore.record`."""

    max_pairs_per_scope: int = 10_000
    """Pairs one scope holds; past it that scope's oldest pairs go."""
    max_pairs_per_tool: int = 500
    """Pairs one tool holds within a scope; past it that tool's oldest pairs in the scope go."""
    ttl_s: float = 90 * 86_400.0
    """Seconds a pair lives after its `UsagePair.at`."""
    max_request_bytes: int = 512
    """UTF-8 bytes of a request's text kept (clipped at a character boundary)."""

    @classmethod
    def from_settings(cls, settings: LearningSettings) -> UsageBounds:
        """The bounds the ``learning`` settings give."""
        return cls(
            max_pairs_per_scope=settings.max_pairs_per_scope,
            max_pairs_per_tool=settings.max_pairs_per_tool,
            ttl_s=settings.ttl_days * 86_400.0,
            max_request_bytes=settings.max_request_bytes,
        )

    def __post_init__(self) -> None:
        for key in ("max_pairs_per_scope", "max_pairs_per_tool", "max_request_bytes"):
            value = getattr(self, key)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(f"must be a positive integer, got {value!r}", key=key)
        if isinstance(self.ttl_s, bool) or not isinstance(self.ttl_s, int | float) or not self.ttl_s > 0:
            raise ConfigError(f"must be a positive number of seconds, got {self.ttl_s!r}", key="ttl_s")


@dataclasses.dataclass(frozen=True, slots=True)
class UsagePair:
    """One piece of evidence: a search request of a session that a successful call of `tool` followed."""

    scope: str
    """The learning scope (a gateway token's grant label, or the library's ``learning.scope``)."""
    request: str
    """The search request as the model wrote it (clipped to the store's bytes)."""
    tool: str
    """The tool that was then called and succeeded."""
    session: str
    """The session both happened in."""
    at: float
    """When it was recorded, seconds since the epoch."""
    missed: bool = False
    """True when the search did not list `tool` (a later search of the session found it): the request is
    phrased in a way search does not yet serve, the most valuable kind of pair."""
    first: bool = False
    """True when the search listed `tool` first: search served the request already (the learned ranking leans
    less on such a pair)."""

    def to_json(self) -> dict[str, object]:
        """The pair as a JSON object (one line of ``toolscout usage export``)."""
        return dataclasses.asdict(self)


class UsageStore(Protocol):
    """Pairs (request text -> tool name) learned from use, kept per learning scope.

    Contract every implementation keeps:

    - **Scoped.** Every pair belongs to one scope; `pairs` of a scope returns that scope's pairs only, and
      nothing one scope records or forgets changes another's pairs.
    - **Bounded, never across scopes.** After `record`, a scope holds at most `bounds.max_pairs_per_scope`
      pairs and each tool at most `bounds.max_pairs_per_tool` of them; the excess is that scope's (or that
      tool's) oldest pairs. Pairs older than `bounds.ttl_s` are never returned and leave the store on later
      writes. A request's text is clipped to `bounds.max_request_bytes` UTF-8 bytes before it is stored.
    - **Text only.** A pair holds a request, a tool name, a session id, a time, whether the search missed it and
      whether it listed it first:
      never a call's arguments or result.
    - **Tolerant of bad data.** A stored value that does not parse as a pair (written by something else, or
      damaged) is skipped with one warning naming the store; the rest is returned.
    - **Thread-safe.** Every method may be called from several threads at once.
    - **Validated input.** Scopes and tool names are non-empty strings of at most 256 characters; anything
      else raises `StoreError`. A store that cannot be read or written raises `StoreError`; after `close`,
      every method but `close` raises `StoreError`.
    """

    bounds: UsageBounds

    def record(self, pairs: Sequence[UsagePair]) -> None:
        """Add the pairs (each under its own scope), then enforce the bounds on the scopes written.

        Raises:
            StoreError: A scope or tool is invalid, or the store is closed or cannot be written.
        """
        ...

    def pairs(self, scope: str, *, tool: str | None = None) -> tuple[UsagePair, ...]:
        """The scope's live pairs, oldest first; only `tool`'s when given.

        Raises:
            StoreError: The scope is invalid, or the store is closed or cannot be read.
        """
        ...

    def version(self, scope: str) -> str:
        """A token that changes whenever the scope's pairs change (a record or a forget, here or elsewhere).

        Cheap (one small read), so a reader may ask before a search and re-read the pairs only on a change.

        Raises:
            StoreError: The scope is invalid, or the store is closed or cannot be read.
        """
        ...

    def scopes(self) -> tuple[str, ...]:
        """The scopes holding pairs, sorted.

        Raises:
            StoreError: The store is closed or cannot be read.
        """
        ...

    def forget(self, scope: str | None = None, *, tool: str | None = None) -> int:
        """Drop pairs: a scope's (None: every scope's), only `tool`'s when given. Returns how many went.

        Raises:
            StoreError: The scope or tool is invalid, or the store is closed or cannot be written.
        """
        ...

    def close(self) -> None:
        """Release the store's resources; calling it again is a no-op."""
        ...


class ClosingUsageStore(ABC):
    """Context-manager support for stores: ``with Store(...) as store:`` closes it on exit."""

    @abstractmethod
    def close(self) -> None:
        """Release the store's resources; later calls raise `StoreError`."""

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.close()


class StoreHealth:
    """Whether a usage store is failing, shared by its recorder and its ranking, so one failure warns once."""

    def __init__(self) -> None:
        self._failing = False
        self._lock = threading.Lock()

    def failed(self, message: str, *args: object) -> None:
        """Log `message` as a warning unless a failure of the store was already reported (and not recovered)."""
        with self._lock:
            if not self._failing:
                logger.warning(message, *args)
            self._failing = True

    def recovered(self) -> None:
        """The store works again: its next failure warns."""
        with self._lock:
            self._failing = False


def export_pairs(store: UsageStore, scope: str | None = None, *, tool: str | None = None) -> tuple[UsagePair, ...]:
    """Every live pair of `scope` (None: of every scope), only `tool`'s when given: scope by scope, oldest first."""
    scopes = store.scopes() if scope is None else (scope,)
    return tuple(pair for name in scopes for pair in store.pairs(name, tool=tool))


def check_scope(value: object, *, what: str = "scope") -> str:
    """Return `value` if it is a valid scope (or tool name, with `what`), else raise `StoreError` saying why."""
    if not isinstance(value, str):
        raise StoreError(f"{what} must be a string, got {type(value).__name__}")
    if not value:
        raise StoreError(f"{what} must not be empty")
    if len(value) > MAX_SCOPE_LENGTH:
        raise StoreError(f"{what} is {len(value)} characters long; the limit is {MAX_SCOPE_LENGTH}")
    return value


def clip_request(text: str, max_bytes: int) -> str:
    """`text` cut to at most `max_bytes` UTF-8 bytes, at a character boundary."""
    data = text.encode("utf-8")
    if len(data) <= max_bytes:
        return text
    return data[:max_bytes].decode("utf-8", errors="ignore")


def checked_pairs(pairs: Sequence[UsagePair], bounds: UsageBounds) -> tuple[UsagePair, ...]:
    """The pairs validated, their requests clipped to `bounds`; raises `StoreError` naming what is wrong."""
    if isinstance(pairs, str | bytes) or not isinstance(pairs, Sequence):
        raise StoreError(f"pairs must be a sequence of UsagePair, got {type(pairs).__name__}")
    checked = []
    for index, pair in enumerate(pairs):
        if not isinstance(pair, UsagePair):
            raise StoreError(f"pairs[{index}] must be a UsagePair, got {type(pair).__name__}")
        check_scope(pair.scope)
        check_scope(pair.tool, what="tool")
        check_scope(pair.session, what="session")
        checked.append(dataclasses.replace(pair, request=clip_request(pair.request, bounds.max_request_bytes)))
    return tuple(checked)


def pair_from_json(text: str | bytes) -> UsagePair:
    """Parse one stored pair; raises `ValueError` when it is not one."""
    value = json.loads(text)
    if not isinstance(value, dict):
        raise ValueError("not a JSON object")
    texts = {key: value.get(key) for key in ("scope", "request", "tool", "session")}
    strings = {key: item for key, item in texts.items() if isinstance(item, str)}
    if len(strings) != len(texts):
        raise ValueError("scope, request, tool and session must be strings")
    at, missed, first = value.get("at"), value.get("missed", False), value.get("first", False)
    if isinstance(at, bool) or not isinstance(at, int | float) or not isinstance(missed, bool):
        raise ValueError("at must be a number and missed a boolean")
    if not isinstance(first, bool):
        raise ValueError("first must be a boolean")
    return UsagePair(**strings, at=float(at), missed=missed, first=first)


def pair_to_json(pair: UsagePair) -> str:
    """One stored pair as compact JSON (what `pair_from_json` reads)."""
    return json.dumps(pair.to_json(), ensure_ascii=False, separators=(",", ":"))


def expired_before(bounds: UsageBounds, now: float | None = None) -> float:
    """Pairs recorded before this time (seconds since the epoch) have outlived `bounds.ttl_s`."""
    return (time.time() if now is None else now) - bounds.ttl_s
