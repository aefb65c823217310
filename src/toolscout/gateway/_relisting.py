"""Which sessions' clients see reveals (reveal style): the tool list they use changes only if they list again.

A reveal tells the session's clients that their tool list changed. A client that makes its next call without
listing tools again keeps the list it had (a client that lists once at start, or caches its list across the
change): until it lists again, its search answers tell it to run what they find with the call tool. A stateless
request's client never sees a reveal. Tracked per process: a client that lists again on another replica counts
as one that does not, which only makes its answers name the call tool, and that tool works everywhere.
"""

from __future__ import annotations

from ._sessions import Caller

__all__ = ["RevealReach"]


class RevealReach:
    """Per session: told of a list change and not listed since; called a tool in that state."""

    def __init__(self) -> None:
        """Nothing known yet: every session is taken to see its reveals."""
        self._unlisted: set[str] = set()
        self._stale: set[str] = set()

    def changed(self, session_id: str) -> None:
        """The session's clients were told that its tool list changed."""
        self._unlisted.add(session_id)

    def listed(self, session_id: str) -> None:
        """A client of the session listed its tools: it sees what was revealed so far."""
        self._unlisted.discard(session_id)
        self._stale.discard(session_id)

    def called(self, session_id: str) -> None:
        """A client of the session called a tool: after a change it has not listed, it keeps the list it had."""
        if session_id in self._unlisted:
            self._stale.add(session_id)

    def sees_reveals(self, caller: Caller) -> bool:
        """Whether a reveal can reach the tool list `caller`'s client uses."""
        return caller.lifetime != "request" and caller.session_id not in self._stale

    def forget(self, session_id: str) -> None:
        """The session ended."""
        self._unlisted.discard(session_id)
        self._stale.discard(session_id)
