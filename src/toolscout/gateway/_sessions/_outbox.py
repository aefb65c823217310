"""`Outboxes`: notifications to client connections, each one's sent by a task of its own, coalesced while it lags.

A client that stops reading its stream makes sending to it wait; the gateway must not wait with it (the
other clients of the same upstream would hear nothing), nor keep every notification for it (memory grows
with the upstream's rate). So a notification is posted under a key (its method and the URI it names): a
connection's outbox holds at most one notification per key, the latest, in the order the keys were first
posted, and one task per connection sends them one at a time. A client that lags gets each changed
resource once when it catches up; a closed connection is dropped (its `on_closed` is called). An outbox's
keys are bounded by what the session subscribed to (``max_subscriptions_per_session``) plus the list changes.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import anyio
import anyio.abc
from mcp.server.session import ServerSession
from mcp_types import ServerNotification

__all__ = ["Outboxes"]

OnClosed = Callable[[str], Awaitable[None]]
"""Called with a session id whose connection was found closed."""


@dataclass(slots=True)
class _Outbox:
    session_id: str
    on_closed: OnClosed | None
    pending: dict[str, ServerNotification] = field(default_factory=dict)


class Outboxes:
    """One outbox per client connection with notifications not yet sent; run `run` for the gateway's life."""

    def __init__(self) -> None:
        """No outboxes yet (`post` sends nothing until `run` runs)."""
        self._boxes: dict[ServerSession, _Outbox] = {}
        self._tasks: anyio.abc.TaskGroup | None = None

    async def run(self) -> None:
        """Send from the outboxes until cancelled."""
        async with anyio.create_task_group() as tasks:
            self._tasks = tasks
            try:
                await anyio.sleep_forever()
            finally:
                self._tasks = None

    def post(
        self,
        session_id: str,
        session: ServerSession,
        key: str,
        notification: ServerNotification,
        on_closed: OnClosed | None = None,
    ) -> None:
        """Queue `notification` for `session_id`'s connection `session` under `key` (replacing one queued under it).

        Never waits. `on_closed(session_id)` is called if the connection turns out to be closed.
        """
        if self._tasks is None:
            return
        box = self._boxes.get(session)
        if box is None:
            box = self._boxes[session] = _Outbox(session_id, on_closed)
            box.pending[key] = notification
            self._tasks.start_soon(self._send, session, box)
            return
        if on_closed is not None:
            box.on_closed = on_closed
        box.pending[key] = notification

    async def _send(self, session: ServerSession, box: _Outbox) -> None:
        """Send `box`'s notifications until it is empty, then forget it."""
        try:
            while box.pending:
                key = next(iter(box.pending))
                notification = box.pending.pop(key)
                await session.send_notification(notification)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            box.pending.clear()
            if box.on_closed is not None:
                await box.on_closed(box.session_id)
        finally:
            del self._boxes[session]
