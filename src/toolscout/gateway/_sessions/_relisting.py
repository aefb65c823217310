"""Which sessions' clients see reveals (reveal style): the tool list they use changes only if they list again.

A reveal tells the session's clients that their tool list changed. A client that makes its next call without
listing tools again keeps the list it had (a client that lists once at start, or caches its list across the
change): until it lists again, its search answers tell it to run what they find with the call tool. A stateless
request's client never sees a reveal. Tracked per process: a client that lists again on another replica counts
as one that does not, which only makes its answers name the call tool, and that tool works everywhere. At most
`MAX_TRACKED` sessions are remembered in each state (the oldest forgotten first, so a durable session that never
ends costs nothing for good); a forgotten session is taken to see its reveals, whose answers name the call tool too.
"""

from __future__ import annotations

from ._callers import Caller

__all__ = ["MAX_TRACKED", "RevealReach"]

MAX_TRACKED = 10_000


class RevealReach:
    """Per session: told of a list change and not listed since; called a tool in that state."""

    def __init__(self) -> None:
        """Nothing known yet: every session is taken to see its reveals."""
        self._unlisted: dict[str, None] = {}
        self._stale: dict[str, None] = {}

    def changed(self, session_id: str) -> None:
        """The session's clients were told that its tool list changed."""
        _remember(self._unlisted, session_id)

    def listed(self, session_id: str) -> None:
        """A client of the session listed its tools: it sees what was revealed so far."""
        self._unlisted.pop(session_id, None)
        self._stale.pop(session_id, None)

    def called(self, session_id: str) -> None:
        """A client of the session called a tool: after a change it has not listed, it keeps the list it had."""
        if session_id in self._unlisted:
            _remember(self._stale, session_id)

    def sees_reveals(self, caller: Caller) -> bool:
        """Whether a reveal can reach the tool list `caller`'s client uses."""
        return caller.lifetime != "request" and caller.session_id not in self._stale

    def forget(self, session_id: str) -> None:
        """The session ended."""
        self._unlisted.pop(session_id, None)
        self._stale.pop(session_id, None)


def _remember(sessions: dict[str, None], session_id: str) -> None:
    """Add `session_id` as the newest of `sessions`, forgetting the oldest past `MAX_TRACKED`."""
    sessions.pop(session_id, None)
    sessions[session_id] = None
    if len(sessions) > MAX_TRACKED:
        del sessions[next(iter(sessions))]
