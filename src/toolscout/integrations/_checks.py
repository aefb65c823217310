"""Construction checks shared by the framework adapters: a wrong object is named with the call that works."""

from __future__ import annotations

from .._scout import ScoutSession, ToolScout


def require_session(session: object, adapter: str) -> ScoutSession:
    """`session`, when it is a `ScoutSession`.

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
    )
