"""`ChangeFeed`: a session's tool-list changes carried to every gateway replica.

A reveal recorded on one replica changes the tool list of the session's clients on all of them.
The feed follows ``toolscout.store``: with a Redis store (the way replicas share sessions) each
reveal is published on a Redis pub/sub channel that every replica listens to; any other store is
private to one process, so the feed is local (nothing to carry). `register_feed` adds a scheme.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Protocol

__all__ = ["ChangeFeed", "Deliver", "FeedFactory", "LocalFeed", "open_feed", "register_feed"]

Deliver = Callable[[str], Awaitable[None]]
"""Tells this replica's clients of a session (by id) that its tool list changed."""


class ChangeFeed(Protocol):
    """Carries "session S's tools changed" from the replica that recorded it to the others.

    Contract (a `register_feed` plug-in point):
        - `publish` is called once per reveal, in a task of its own; it is best effort, waits at most
          the timeout the factory got, logs a failure and never raises.
        - `run` runs for the gateway's life in one task and calls `deliver` for each change another
          replica published (a replica's own changes are skipped: it told its clients already); a lost
          link is its own to re-establish (changes sent meanwhile may be lost: clients see the tools
          on their next ``tools/list``). It returns only when cancelled or when nothing can ever arrive.
        - `aclose` releases connections once, after `run` is cancelled.
    """

    async def publish(self, session_id: str) -> None:
        """Tell the other replicas; best effort (a failure is logged, never raised)."""
        ...

    async def run(self, deliver: Deliver) -> None:
        """Call `deliver` for each change another replica publishes, until cancelled."""
        ...

    async def aclose(self) -> None:
        """Release the feed's connections."""
        ...


FeedFactory = Callable[[str, float], ChangeFeed]
"""Builds a feed from the store spec and the seconds one publish may take."""

_FACTORIES: dict[str, FeedFactory] = {}


def register_feed(scheme: str, factory: FeedFactory) -> None:
    """Carry changes over `factory`'s feed when ``toolscout.store`` starts with ``scheme://``.

    `factory` gets the whole store spec and the seconds one publish may take (``store_timeout_s``),
    once per gateway, and returns a `ChangeFeed` (see its contract). Register the scheme of a
    `DiscoveryStore` that several replicas share; a later registration replaces an earlier one.
    """
    _FACTORIES[scheme] = factory


def open_feed(store: str | None, *, timeout_s: float) -> ChangeFeed:
    """The feed for the store ``toolscout.store`` names (a `LocalFeed` unless its scheme has one)."""
    if store is None or "://" not in store:
        return LocalFeed()
    factory = _FACTORIES.get(store.split("://", 1)[0])
    return LocalFeed() if factory is None else factory(store, timeout_s)


class LocalFeed:
    """One process: its own clients are told directly, so nothing is carried."""

    async def publish(self, session_id: str) -> None:
        """Nothing to do."""

    async def run(self, deliver: Deliver) -> None:
        """Nothing ever arrives."""

    async def aclose(self) -> None:
        """Nothing to release."""


def _redis(spec: str, timeout_s: float) -> ChangeFeed:
    from ._redisfeed import RedisFeed  # the Redis store opened first: the extra is installed

    return RedisFeed(spec, timeout_s=timeout_s)


for _scheme in ("redis", "rediss", "unix"):
    register_feed(_scheme, _redis)
