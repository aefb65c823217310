"""What the framework adapters check and say when built: a wrong object, or a catalog toolscout sends in full."""

from __future__ import annotations

import logging

from .._scout import ScoutSession, ToolScout

logger = logging.getLogger("toolscout")


def require_session(session: object, adapter: str, *, other: str = "") -> ScoutSession:
    """`session`, when it is a `ScoutSession`.

    Args:
        session: What the user passed.
        adapter: The call it was passed to, as the user wrote it.
        other: A sentence naming the call that takes what was passed, when there is one.

    Raises:
        TypeError: It is something else; a `ToolScout` is told to call ``.session(id)``.
    """
    if isinstance(session, ScoutSession):
        return session
    if isinstance(session, ToolScout):
        raise TypeError(
            f"{adapter} takes a ScoutSession, not a ToolScout: {adapter}(scout.session('chat-1')), "
            "one session per conversation"
        )
    raise TypeError(
        f"{adapter} takes a ScoutSession (scout.session('chat-1') of a ToolScout), got {type(session).__name__}"
        + (f"; {other}" if other else "")
    )


def note_sent_in_full(scout: ToolScout, adapter: str) -> None:
    """Log, at INFO, that `scout` defers nothing and so sends every tool in full, with the reason and the setting.

    INFO, not WARNING: a small catalog sent in full is toolscout's intended default (cheaper than a
    search round-trip), so nothing is wrong; the line tells who wrapped tools expecting a search why none appears.
    """
    activation = scout.plan().activation
    if activation.active or activation.mode == "off":
        return
    logger.info(
        "%s: every tool is sent in full and no %s is offered (%s); to defer them, set ScoutSettings(mode='on') "
        "or a lower threshold_tools / threshold_pct",
        adapter,
        scout.settings.bridge_names.search,
        activation.reason,
    )
