"""`InputRounds`: a server's requests reach a 2026-07-28 client as ``input_required`` rounds.

A 2026-07-28 connection carries no server → client requests; instead a tool call answers with an
`InputRequiredResult` and the client retries it with its answers. A 2025-era upstream, though,
asks in the middle of its call and waits. So, for a 2026-07-28 client, the gateway runs the call in
a task of its own: when the upstream asks (sampling, elicitation, roots), the client's request is
answered with the question and a ``request_state`` naming the call; the client's retry carries the
answer to the waiting upstream, and is answered with the call's result (or the next question).

A ``request_state`` is a random handle valid only for the session that got it, for one call, and
at most ``call_timeout_s`` after the call ends unanswered; at most `_MAX_EXCHANGES` calls wait at
a time (the oldest is cancelled past that).
"""

from __future__ import annotations

import secrets
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import anyio.abc
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, CallToolResult, InputRequest, InputRequiredResult

__all__ = ["Exchange", "InputRounds"]

_MAX_EXCHANGES = 1024


class Exchange:
    """One call of a 2026-07-28 client, running in the gateway's own task."""

    def __init__(self, session_id: str) -> None:
        """A call of `session_id` that has not started."""
        self.session_id = session_id
        self.scope = anyio.CancelScope()
        self._pending: dict[str, tuple[InputRequest, anyio.Event]] = {}
        self._answers: dict[str, Any] = {}
        self._changed = anyio.Event()
        self._result: CallToolResult | None = None
        self._error: BaseException | None = None
        self.done = False
        self.delivered = anyio.Event()
        """Set once the client got the call's result (or error)."""

    async def ask(self, request: InputRequest) -> Any:
        """Put `request` to the client (at its next round) and wait for its answer."""
        key = secrets.token_hex(4)
        answered = anyio.Event()
        self._pending[key] = (request, answered)
        self._wake()
        await answered.wait()
        return self._answers.pop(key)

    def answer(self, responses: dict[str, Any]) -> None:
        """Hand the client's answers to the requests waiting for them (unknown keys are ignored)."""
        for key, response in responses.items():
            waiting = self._pending.pop(key, None)
            if waiting is not None:
                self._answers[key] = response
                waiting[1].set()

    async def run(self, work: Callable[[], Awaitable[CallToolResult]]) -> None:
        """Run the call to its end (or until cancelled), keeping its result or error."""
        with self.scope:
            try:
                self._result = await work()
            except Exception as exc:  # boundary: the client's next round gets it
                self._error = exc
        self.done = True
        self._wake()

    async def next_round(self, handle: str) -> CallToolResult | InputRequiredResult:
        """The call's result once it ends, or its open questions as soon as there are any."""
        while not self.done and not self._pending:
            changed = self._changed
            await changed.wait()
        if not self.done:
            questions = {key: request for key, (request, _) in self._pending.items()}
            return InputRequiredResult(input_requests=questions, request_state=handle)
        if self._error is not None:
            raise self._error
        assert self._result is not None
        return self._result

    def abandoned(self) -> None:
        """The client stopped waiting: cancel the call unless it waits for the client's answers."""
        if not self._pending:
            self.scope.cancel()

    def _wake(self) -> None:
        old, self._changed = self._changed, anyio.Event()
        old.set()


class InputRounds:
    """The calls of 2026-07-28 clients waiting for the client's answers, by handle."""

    def __init__(self, *, timeout_s: float) -> None:
        """Calls whose questions stay unanswered `timeout_s` after they end are forgotten."""
        self._timeout_s = timeout_s
        self._exchanges: OrderedDict[str, Exchange] = OrderedDict()
        self.tasks: anyio.abc.TaskGroup | None = None
        """The gateway's task group the calls run in (set once it is running)."""

    async def serve(
        self,
        session_id: str,
        request_state: str | None,
        responses: dict[str, Any] | None,
        work: Callable[[Exchange], Awaitable[CallToolResult]],
    ) -> CallToolResult | InputRequiredResult:
        """A round of a call: start it (no `request_state`) or resume it with the client's answers.

        Raises:
            MCPError: (invalid params) `request_state` is not a call of this session that still waits.
        """
        if self.tasks is None:
            raise RuntimeError("input rounds are served only while the gateway runs")
        if request_state is None:
            exchange = Exchange(session_id)
            handle = secrets.token_urlsafe(18)
            self._remember(handle, exchange)
            self.tasks.start_soon(self._run, handle, exchange, work)
        else:
            handle = request_state
            found = self._exchanges.get(handle)
            if found is None or found.session_id != session_id:
                raise MCPError(INVALID_PARAMS, "requestState: no call of this session waits under it (expired?)")
            exchange = found
            exchange.answer(dict(responses or {}))
        try:
            result = await exchange.next_round(handle)
        except anyio.get_cancelled_exc_class():
            exchange.abandoned()  # the client gave up waiting for the result: stop the call
            raise
        except Exception:
            exchange.delivered.set()
            raise
        if not isinstance(result, InputRequiredResult):
            exchange.delivered.set()
        return result

    async def _run(
        self, handle: str, exchange: Exchange, work: Callable[[Exchange], Awaitable[CallToolResult]]
    ) -> None:
        await exchange.run(lambda: work(exchange))
        with anyio.move_on_after(self._timeout_s):
            await exchange.delivered.wait()
        self._exchanges.pop(handle, None)

    def _remember(self, handle: str, exchange: Exchange) -> None:
        self._exchanges[handle] = exchange
        while len(self._exchanges) > _MAX_EXCHANGES:
            _, oldest = self._exchanges.popitem(last=False)
            oldest.scope.cancel()
