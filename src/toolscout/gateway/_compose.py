"""`compose`: build the gateway's collaborators from its config; `Gateway` receives them and wires its MCP server."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from mcp.server.context import ServerRequestContext
from mcp_types import LoggingLevel, ServerNotification

from .._errors import StoreError
from .._scope import Scope
from .._scout import ToolScout
from .._types import Transport
from ..dispatch import AfterCall, Handler
from ..learning import UsageStore
from ..learning._internal import UsageBounds, open_usage_store
from ..observe import ActivityLog
from ..observe._internal import Metrics, Tracing
from ..offload import Offloader
from ..offload._internal import open_output_store
from ..search.embeddings._internal import default_cache_dir
from ..session import DiscoveryStore
from ._config import GatewayChain, GatewayConfig, GatewaySettings
from ._proxy import PromptProxy, ResourceProxy
from ._sessions import (
    Caller,
    ChangeBus,
    ChangeFeed,
    Identities,
    LegacySessions,
    Outboxes,
    RevealReach,
    SessionReaper,
    TimedOutputStore,
    TimedStore,
    open_feed,
    open_store,
)
from ._upstream import InputRounds, Relay, RememberedListings, UpstreamPool

__all__ = ["Hooks", "Parts", "compose"]

logger = logging.getLogger("toolscout.gateway")


@dataclass(frozen=True)
class Hooks:
    """What the collaborators call back into the gateway for."""

    execute: Handler
    """Runs a resolved tool call on its upstream (the scout's executor)."""
    tools_changed: Callable[[], Awaitable[None]]
    """Awaited after an upstream's tool listing changed."""
    upstream_notified: Callable[[str, ServerNotification], Awaitable[None]]
    """An upstream's notification, by server name."""
    set_upstream_level: Callable[[LoggingLevel], Awaitable[None]]
    """Passes the clients' logging level on to every upstream."""
    scoped_caller: Callable[[ServerRequestContext[Any, Any]], Caller]
    """The caller of a request, its scope narrowed by the settings' scope."""
    end_session: Callable[[str, bool], Awaitable[None]]
    """Deletes what an idle session held (its discoveries when asked)."""


@dataclass(frozen=True)
class Parts:
    """The gateway's collaborators, built by `compose`."""

    chain: GatewayChain
    store: TimedStore
    activity: ActivityLog
    tracing: Tracing | None
    scout: ToolScout
    relay: Relay
    pool: UpstreamPool
    rounds: InputRounds
    settings_scope: Scope
    outbox: Outboxes
    resources: ResourceProxy
    prompts: PromptProxy
    identities: Identities
    metrics: Metrics
    changes: ChangeBus
    feed: ChangeFeed
    legacy: LegacySessions
    reach: RevealReach
    reaper: SessionReaper


def compose(
    config: GatewayConfig,
    hooks: Hooks,
    *,
    transport: Transport,
    store: DiscoveryStore | None = None,
    start_concurrency: int | None = None,
    chain: GatewayChain | None = None,
    after_call: Sequence[AfterCall] = (),
) -> Parts:
    """Build every collaborator of a gateway (arguments as `Gateway`'s); nothing starts yet.

    Raises:
        ConfigError: The store setting is unusable, or this gateway is already in its chain.
        StoreError: The store cannot be opened.
    """
    settings = config.settings
    chain = chain if chain is not None else GatewayChain.enter(config)
    timed = TimedStore(store if store is not None else open_store(settings.store), timeout_s=settings.store_timeout_s)
    offload = None
    if settings.offload.enabled:
        outputs = TimedOutputStore(open_output_store(settings.offload), timeout_s=settings.store_timeout_s)
        offload = Offloader(settings.offload, store=outputs)
    activity = ActivityLog(max_bytes=settings.activity_max_bytes)
    tracing = Tracing(arguments=activity.log_arguments) if settings.tracing else None
    usage, settings = _usage_store(settings)
    scout = ToolScout(
        (),
        activity=activity,
        settings=settings,
        store=timed,
        executor=hooks.execute,
        after_call=after_call,
        offload=offload,
        usage_store=usage,
    )
    remembered = (
        RememberedListings(default_cache_dir(), separator=settings.separator) if settings.remember_tools else None
    )
    relay = Relay()
    pool = UpstreamPool(
        config,
        on_change=hooks.tools_changed,
        start_concurrency=start_concurrency,
        chain=chain,
        remembered=remembered,
        relay=relay,
        on_notification=hooks.upstream_notified,
    )
    relay.set_upstream_level = hooks.set_upstream_level
    outbox = Outboxes()
    metrics = Metrics()
    activity.add_listener(metrics.observe)
    metrics.track_upstreams(lambda: [(status.name, status.state) for status in pool.status()])
    # A shared output store expires idle sessions itself: one idle here may be busy on another replica.
    shared = offload is not None and offload.store.shared
    reaper = SessionReaper(
        idle_s=settings.session_idle_s,
        end=hooks.end_session,
        per_token=settings.max_sessions_per_token,
        ends_durable=not shared,
    )
    metrics.track_sessions(lambda: len(reaper))
    pins = scout.auto_pins
    if pins is not None:
        metrics.track_auto_pins(pins.count)
    return Parts(
        chain=chain,
        store=timed,
        activity=activity,
        tracing=tracing,
        scout=scout,
        relay=relay,
        pool=pool,
        rounds=InputRounds(timeout_s=settings.call_timeout_s, per_token=settings.max_waiting_calls_per_token),
        settings_scope=settings.scope.scope(),
        outbox=outbox,
        resources=ResourceProxy(pool, relay, caller=hooks.scoped_caller, outbox=outbox),
        prompts=PromptProxy(pool, relay, caller=hooks.scoped_caller),
        identities=Identities(config, transport),
        metrics=metrics,
        changes=ChangeBus(),
        feed=open_feed(settings.store, timeout_s=settings.store_timeout_s),
        legacy=LegacySessions(),
        reach=RevealReach(),
        reaper=reaper,
    )


def _usage_store(settings: GatewaySettings) -> tuple[UsageStore | None, GatewaySettings]:
    """The usage store learning records in (``learning.store``, else the session store's spec), when on.

    A store that cannot be opened (Redis down) leaves learning off with one warning: the gateway serves without it.
    """
    learning = settings.learning
    if not learning.enabled:
        return None, settings
    try:
        return open_usage_store(settings.usage_store_spec(), UsageBounds.from_settings(learning)), settings
    except StoreError as exc:
        logger.warning("learning is off: the usage store cannot be opened: %s", exc)
        return None, settings.model_copy(update={"learning": learning.model_copy(update={"enabled": False})})
