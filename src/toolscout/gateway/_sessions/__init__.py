"""Client sessions: callers and their identities, the stores, idle reaping, re-listing, and the change feed."""

from __future__ import annotations

from ._callers import SESSION_HEADER, Caller, ChangeBus, Identities, LegacySessions
from ._feed import ChangeFeed, Deliver, FeedFactory, open_feed, register_feed
from ._outbox import Outboxes
from ._pinning import PinListings
from ._reaper import SessionReaper
from ._relisting import RevealReach
from ._stores import TimedOutputStore, TimedStore, open_store
from ._subscriptions import Subscriptions

__all__ = [
    "Caller",
    "ChangeBus",
    "ChangeFeed",
    "Deliver",
    "FeedFactory",
    "Identities",
    "LegacySessions",
    "open_feed",
    "open_store",
    "Outboxes",
    "PinListings",
    "register_feed",
    "RevealReach",
    "SESSION_HEADER",
    "SessionReaper",
    "Subscriptions",
    "TimedOutputStore",
    "TimedStore",
]
