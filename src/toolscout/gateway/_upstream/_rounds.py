"""`InputRounds`: a server's requests reach a 2026-07-28 client as ``input_required`` rounds.

A 2026-07-28 connection carries no server → client requests; instead a tool call answers with an
`InputRequiredResult` and the client retries it with its answers. A 2025-era upstream, though,
asks in the middle of its call and waits. So, for a 2026-07-28 client, the gateway runs the call in
a task of its own: when the upstream asks (sampling, elicitation, roots), the client's request is
answered with the question and a ``request_state`` naming the call; the client's retry carries the
answer to the waiting upstream, and is answered with the call's result (or the next question).

A ``request_state`` is a random handle valid only for the session that got it, for one call, and
at most ``call_timeout_s`` after the call ends unanswered. Each token (its grant label) holds at most
``max_waiting_calls_per_token`` such calls at a time, and the gateway at most `_MAX_EXCHANGES`: a call
past either is refused with a tool error naming the limit, never by cancelling another caller's call.
A call whose client stopped waiting (its connection dropped) is cancelled and frees its place at once.
"""

from __future__ import annotations

import secrets
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import anyio.abc
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, CallToolResult, InputRequest, InputRequiredResult, TextContent

from ..._texts import Upstream

__all__ = ["Exchange", "InputRounds"]

_MAX_EXCHANGES = 4096


class Exchange:
    """One call of a 2026-07-28 client, running in the gateway's own task."""

    def __init__(self, session_id: str, principal: str) -> None:
        """A call of `session_id`, made with the grant labelled `principal`, that has not started."""
        self.session_id = session_id
        self.principal = principal
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

    def abandoned(self) -> bool:
        """The client stopped waiting: cancel the call unless it waits for the client's answers.

        Returns:
            Whether the call was cancelled (no one will ask for its result).
        """
        if self._pending:
            return False
        self.scope.cancel()
        self.delivered.set()
        return True

    def _wake(self) -> None:
        old, self._changed = self._changed, anyio.Event()
        old.set()


class InputRounds:
    """The calls of 2026-07-28 clients waiting for the client's answers, by handle."""

    def __init__(self, *, timeout_s: float, per_token: int, total: int = _MAX_EXCHANGES) -> None:
        """Calls whose questions stay unanswered `timeout_s` after they end are forgotten.

        Args:
            timeout_s: How long a call's result waits for the client once the call ended.
            per_token: The most calls one grant label may have running or waiting.
            total: The most calls of all tokens together.
        """
        self._timeout_s = timeout_s
        self._per_token = per_token
        self._total = total
        self._exchanges: dict[str, Exchange] = {}
        self._held: Counter[str] = Counter()
        self.tasks: anyio.abc.TaskGroup | None = None
        """The gateway's task group the calls run in (set once it is running)."""

    async def serve(
        self,
        session_id: str,
        principal: str,
        request_state: str | None,
        responses: dict[str, Any] | None,
        work: Callable[[Exchange], Awaitable[CallToolResult]],
    ) -> CallToolResult | InputRequiredResult:
        """A round of a call: start it (no `request_state`) or resume it with the client's answers.

        A new call past `principal`'s share or the gateway's total is answered with a tool error naming the
        limit, and not run.

        Raises:
            MCPError: (invalid params) `request_state` is not a call of this session that still waits.
        """
        if self.tasks is None:
            raise RuntimeError("input rounds are served only while the gateway runs")
        if request_state is None:
            refusal = self._refusal(principal)
            if refusal is not None:
                return refusal
            exchange = Exchange(session_id, principal)
            handle = secrets.token_urlsafe(18)
            self._exchanges[handle] = exchange
            self._held[principal] += 1
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
            if exchange.abandoned():  # the client gave up waiting for the result: stop the call, free its place
                self._forget(handle)
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
        self._forget(handle)

    def held(self, principal: str) -> int:
        """Calls `principal` has running or waiting for its answers."""
        return self._held[principal]

    def _forget(self, handle: str) -> None:
        exchange = self._exchanges.pop(handle, None)
        if exchange is None:
            return
        self._held[exchange.principal] -= 1
        if not self._held[exchange.principal]:
            del self._held[exchange.principal]

    def _refusal(self, principal: str) -> CallToolResult | None:
        """The answer to a new call of `principal` past a limit, or None when it may start."""
        if self._held[principal] >= self._per_token:
            text = Upstream.too_many_waiting("This token", self._per_token, "max_waiting_calls_per_token")
        elif len(self._exchanges) >= self._total:
            text = Upstream.too_many_waiting("The gateway (all clients together)", self._total, "the gateway")
        else:
            return None
        return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)
