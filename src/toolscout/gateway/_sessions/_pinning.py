"""Which sessions listed their tools before their learning scope's auto-pinned tools last changed.

A session's ``tools/list`` lists the tools its grant's sessions keep calling (``learning.auto_pin_*``); when that
set changes (a tool is used in enough sessions, or its use stops), the sessions that listed before are told
their tool list changed, as after a reveal, so their clients list again. Tracked per process, at most
`MAX_TRACKED` sessions (the oldest forgotten first: a forgotten session is told nothing, and its list stays as
it was, which every call still works with: a tool that left is still called directly, a new one through
``tool_search``).
"""

from __future__ import annotations

from ._relisting import MAX_TRACKED

__all__ = ["PinListings"]


class PinListings:
    """Per session: the generation of its scope's auto-pins (`AutoPins.generation`) its last listing saw."""

    def __init__(self) -> None:
        """No session has listed yet."""
        self._seen: dict[str, int] = {}

    def listed(self, session_id: str, generation: int) -> None:
        """A client of the session listed its tools under `generation`."""
        self._seen.pop(session_id, None)
        self._seen[session_id] = generation
        if len(self._seen) > MAX_TRACKED:
            del self._seen[next(iter(self._seen))]

    def outdated(self, session_id: str, generation: int) -> bool:
        """Whether the session listed under another generation (then it counts as told: it is not asked again)."""
        seen = self._seen.get(session_id)
        if seen is None or seen == generation:
            return False
        self._seen[session_id] = generation
        return True

    def forget(self, session_id: str) -> None:
        """The session ended."""
        self._seen.pop(session_id, None)
