"""The result-transform stage and handler-returned errors of `run_resolution` (used by offloading)."""

import dataclasses
import time

import pytest

from toolscout import ToolCall, ToolError, ToolOutcome, ToolSpec
from toolscout.dispatch._run import run_resolution

pytestmark = pytest.mark.anyio

TOOL = ToolSpec(name="fetch", description="Fetch a page.")
CALL = ToolCall(session_id="s", name="fetch", arguments={}, tool=TOOL, bridged=False)


async def run(handler, **options):
    return await run_resolution(
        CALL, requested="fetch", arguments={}, handler_for=lambda name: handler, started=time.perf_counter(), **options
    )


async def test_the_transform_rewrites_the_outcome_before_after_call_hooks():
    seen: list[ToolOutcome] = []

    async def shorten(call, outcome):
        return dataclasses.replace(outcome, content=f"{call.name}: {len(outcome.content)} chars")

    outcome = await run(lambda call: "x" * 100, transform=shorten, after_call=[seen.append])
    assert outcome.content == "fetch: 100 chars"
    assert seen[0].content == "fetch: 100 chars"


async def test_a_failing_transform_fails_closed_with_a_structured_error():
    async def broken(call, outcome):
        raise ValueError("bad")

    outcome = await run(lambda call: "secret" * 1000, transform=broken)
    assert outcome.error.code == "tool_failed"
    assert outcome.error.tool_ran is True
    assert "secret" not in outcome.to_text()


async def test_a_handler_may_return_a_tool_error():
    error = ToolError(code="output_expired", message="gone", hint="call it again", tool="fetch")
    outcome = await run(lambda call: error)
    assert outcome.is_error
    assert outcome.content == error.to_json()
