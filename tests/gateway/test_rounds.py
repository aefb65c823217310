"""`InputRounds`: 2026-07-28 calls waiting for their client, bounded per token without hurting other tokens."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from mcp_types import (
    CallToolResult,
    CreateMessageRequest,
    CreateMessageRequestParams,
    InputRequiredResult,
    SamplingMessage,
    TextContent,
)

from toolscout.gateway._upstream._rounds import Exchange, InputRounds

pytestmark = pytest.mark.anyio

_QUESTION = CreateMessageRequest(
    params=CreateMessageRequestParams(
        messages=[SamplingMessage(role="user", content=TextContent(type="text", text="hi?"))], max_tokens=5
    )
)


def _done(text: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)])


async def _asks(exchange: Exchange) -> CallToolResult:
    """A call whose server asks the client something and waits for the answer."""
    answer: Any = await exchange.ask(_QUESTION)
    return _done(str(answer))


async def test_a_token_past_its_share_is_refused_and_never_cancels_another_tokens_call() -> None:
    rounds = InputRounds(timeout_s=60, per_token=256)
    finish = anyio.Event()
    victim: list[CallToolResult | InputRequiredResult] = []

    async def slow(exchange: Exchange) -> CallToolResult:
        await finish.wait()
        return _done("victim's result")

    async def victim_call() -> None:
        victim.append(await rounds.serve("victim-session", "victim", None, None, slow))

    with anyio.fail_after(30):
        async with anyio.create_task_group() as tasks:
            rounds.tasks = tasks
            tasks.start_soon(victim_call)
            await anyio.sleep(0.01)
            answers = [await rounds.serve("attacker-session", "attacker", None, None, _asks) for _ in range(1030)]
            finish.set()
            await anyio.sleep(0.05)
            tasks.cancel_scope.cancel()
    asked = [answer for answer in answers if isinstance(answer, InputRequiredResult)]
    refused = [answer for answer in answers if isinstance(answer, CallToolResult)]
    assert len(asked) == 256 and len(refused) == 1030 - 256
    assert refused[0].is_error and "max_waiting_calls_per_token" in str(refused[0].content[0])
    assert victim == [_done("victim's result")]


async def test_a_call_whose_client_stopped_waiting_frees_its_place_at_once() -> None:
    rounds = InputRounds(timeout_s=60, per_token=1)

    async def forever(exchange: Exchange) -> CallToolResult:
        await anyio.sleep_forever()
        raise AssertionError("unreachable")

    with anyio.fail_after(30):
        async with anyio.create_task_group() as tasks:
            rounds.tasks = tasks
            with anyio.move_on_after(0.1):  # the client drops its connection
                await rounds.serve("s", "ada", None, None, forever)
            assert rounds.held("ada") == 0
            again = await rounds.serve("s", "ada", None, None, _asks)
            tasks.cancel_scope.cancel()
    assert isinstance(again, InputRequiredResult)
