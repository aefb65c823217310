"""`AnswerContext`: what the host knows that a bridge read's answer tells the model, handed in before it is built.

The gateway knows which upstreams are not ready and whether a reveal reaches the caller's tool list; it hands
that to `ScoutSession.dispatch`, so the answer is final when the after-call hooks, the activity log and the
client see it, and it is written once.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from ._answers import BridgeRead, SearchAnswer, ServerNotReady

__all__ = ["AnswerContext"]


@dataclass(frozen=True, slots=True, kw_only=True)
class AnswerContext:
    """The host's additions to a bridge read's answer."""

    servers_not_ready: tuple[ServerNotReady, ...] = ()
    """The caller's upstreams whose tools are missing from the answer (the gateway's, for ``tool_search``)."""
    servers_note: str = ""
    """The sentence on `servers_not_ready`."""
    reveal_hint: str | None = None
    """The hint an answer that reveals tools gives instead of its own (the gateway's, for a client whose tool
    list will not show the reveal); None keeps the answer's."""

    def applied(self, answer: BridgeRead, *, revealed: bool) -> BridgeRead:
        """`answer` with these additions; `revealed`: the read newly revealed tools to the session.

        An answer that left found tools unrevealed keeps its own hint, which says so.
        """
        if self.servers_not_ready:
            servers, note = self.servers_not_ready, self.servers_note
            answer = dataclasses.replace(answer, servers_not_ready=servers, servers_note=note)
        held_back = isinstance(answer, SearchAnswer) and bool(answer.not_revealed)
        if self.reveal_hint is not None and revealed and not held_back:
            answer = dataclasses.replace(answer, hint=self.reveal_hint)
        return answer
