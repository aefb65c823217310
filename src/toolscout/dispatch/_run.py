"""Run a resolved call: hooks first, then the handler; every failure becomes a `ToolError` result."""

from __future__ import annotations

import dataclasses
import inspect
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import TypeAlias

import anyio.to_thread

from .._clipping import clip
from .._texts import Dispatch
from .._types import JsonObject
from ._call import AfterCall, BeforeCall, BridgeAnswer, Handler, Resolution, ToolCall, ToolOutcome
from ._context import AnswerContext
from ._errors import ToolError

__all__ = ["ResultTransform", "run_resolution"]

logger = logging.getLogger("toolscout.dispatch")

ResultTransform: TypeAlias = Callable[[ToolCall, ToolOutcome], Awaitable[ToolOutcome]]
"""Rewrites a real tool's outcome before the after-call hooks and the model see it (e.g. offloading)."""


async def run_resolution(
    resolution: Resolution,
    *,
    requested: str,
    arguments: JsonObject,
    handler_for: Callable[[str], Handler | None],
    before_call: Sequence[BeforeCall] = (),
    after_call: Sequence[AfterCall] = (),
    transform: ResultTransform | None = None,
    started: float,
    call_id: str | None = None,
    revealed: tuple[str, ...] = (),
    context: AnswerContext | None = None,
) -> ToolOutcome:
    """Turn a `Resolution` into a finished `ToolOutcome`, running hooks and the handler.

    A handler may return a `ToolError` to report a structured failure. `transform` rewrites
    the outcome of every real tool call before the after-call hooks run. `revealed` holds the
    tools the call newly discovered, and `context` the host's additions to a bridge read's answer:
    the hooks see the outcome as it is returned, and a bridge answer is written to JSON once.
    """
    if isinstance(resolution, ToolError):
        outcome = _refusal(resolution, requested=requested, arguments=arguments, started=started, call_id=call_id)
    elif isinstance(resolution, BridgeAnswer):
        answer = resolution.answer if context is None else context.applied(resolution.answer, revealed=bool(revealed))
        outcome = ToolOutcome(
            name=resolution.name,
            requested=requested,
            arguments=resolution.arguments,
            content=answer.to_json(),
            revealed=revealed,
            answer=answer,
            latency_s=time.perf_counter() - started,
            call_id=call_id,
        )
    else:
        outcome = await _run_tool(
            resolution, requested=requested, handler=handler_for(resolution.name), before_call=before_call
        )
        if transform is not None:
            outcome = await _transformed(transform, resolution, outcome, requested)
        outcome = dataclasses.replace(outcome, revealed=revealed, latency_s=time.perf_counter() - started)
    _log(outcome)
    for hook in after_call:
        try:
            result = hook(outcome)
            if inspect.isawaitable(result):
                await result
        except Exception:  # a broken observer must not change the result the model gets
            logger.exception("after_call hook failed")
    return outcome


async def _run_tool(
    call: ToolCall, *, requested: str, handler: Handler | None, before_call: Sequence[BeforeCall]
) -> ToolOutcome:
    for hook in before_call:
        try:
            verdict = hook(call)
            if inspect.isawaitable(verdict):
                verdict = await verdict
        except Exception as exc:  # a failing guardrail fails closed
            logger.exception("before_call hook failed; refusing %s", call.name)
            verdict = f"a pre-call check failed ({type(exc).__name__})"
        if verdict is not None:
            error = ToolError(
                code="refused",
                message=Dispatch.refused(call.name, clip(str(verdict), 300)),
                hint=Dispatch.REFUSED_HINT,
                tool=call.name,
            )
            return _failed(call, requested, error)
    if handler is None:
        error = ToolError(
            code="not_executable",
            message=Dispatch.no_handler(call.name),
            hint=Dispatch.NO_HANDLER_HINT,
            tool=call.name,
        )
        return _failed(call, requested, error)
    try:
        if inspect.iscoroutinefunction(handler) or inspect.iscoroutinefunction(type(handler).__call__):
            result = await handler(call)  # type: ignore[misc]  # checked to be a coroutine function
        else:
            result = await anyio.to_thread.run_sync(handler, call)
            if inspect.isawaitable(result):
                result = await result
    except Exception as exc:
        logger.info("tool %s raised %s", call.name, type(exc).__name__, exc_info=True)
        error = ToolError(
            code="tool_failed",
            message=Dispatch.failed(call.name, type(exc).__name__, clip(str(exc), 500)),
            hint=Dispatch.FAILED_HINT,
            tool=call.name,
            tool_ran=True,
        )
        return _failed(call, requested, error)
    if isinstance(result, ToolError):
        return _failed(call, requested, result)
    return _outcome(call, requested, result, None)


async def _transformed(transform: ResultTransform, call: ToolCall, outcome: ToolOutcome, requested: str) -> ToolOutcome:
    try:
        return await transform(call, outcome)
    except Exception as exc:  # fail closed: an unprocessed result may be one the model must not get
        logger.exception("result transform failed for %s", call.name)
        error = ToolError(
            code="tool_failed",
            message=Dispatch.unprocessable(call.name, type(exc).__name__),
            hint=Dispatch.UNPROCESSABLE_HINT,
            tool=call.name,
            tool_ran=True,
        )
        return _failed(call, requested, error)


def _failed(call: ToolCall, requested: str, error: ToolError) -> ToolOutcome:
    return _outcome(call, requested, error.to_json(), error)


def _outcome(call: ToolCall, requested: str, content: object, error: ToolError | None) -> ToolOutcome:
    return ToolOutcome(
        name=call.name,
        requested=requested,
        arguments=call.arguments,
        content=content,
        error=error,
        bridged=call.bridged,
        call_id=call.call_id,
    )


def _refusal(
    error: ToolError, *, requested: str, arguments: JsonObject, started: float, call_id: str | None
) -> ToolOutcome:
    return ToolOutcome(
        name=error.tool or requested,
        requested=requested,
        arguments=arguments,
        content=error.to_json(),
        error=error,
        latency_s=time.perf_counter() - started,
        call_id=call_id,
    )


def _log(outcome: ToolOutcome) -> None:
    logger.info(
        "tool=%s requested=%s bridged=%s ok=%s code=%s latency_ms=%.2f",
        outcome.name,
        outcome.requested,
        outcome.bridged,
        outcome.error is None,
        outcome.error.code if outcome.error else "-",
        outcome.latency_s * 1000,
    )
