"""What an agent-loop helper returns for one user turn, and the loop every helper runs."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ..._scout import ScoutSession
from ...dispatch import ToolOutcome
from .. import NameMap, ProviderCall, StyleChoice, dispatch_call
from .._internal import Rendering, as_json

__all__ = ["ToolLoop", "TurnResult", "call_sdk", "run_tool_loop", "user_texts"]


@dataclass(frozen=True, slots=True, kw_only=True)
class TurnResult:
    """The end of one user turn."""

    text: str
    """The model's final text (the last text it wrote when the step limit stopped the turn)."""
    messages: list[object]
    """The conversation after the turn, as JSON: pass it as the next turn's messages."""
    steps: int
    """How many model requests the turn took."""
    outcomes: tuple[ToolOutcome, ...]
    """Every tool call dispatched in the turn, in order."""
    stopped: Literal["answer", "step_limit"]
    """Why the turn ended: the model answered without calling tools, or the step limit was reached."""
    choice: StyleChoice
    """The disclosure style used, and why."""


def _never(response: object) -> bool:
    return False


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolLoop:
    """One API's part in `run_tool_loop`: how a step is rendered, sent and read, and how the history grows."""

    render: Callable[[list[object]], Rendering[Any]]
    """This step's rendering, given the history so far."""
    request: Callable[[list[object], str], dict[str, object]]
    """The SDK ``create`` arguments for this step, given the history and the system prompt (toolscout adds
    ``tools``, and the prompt under `prompt_field`)."""
    prompt: str | None
    """The caller's own system prompt (or instructions); toolscout's guidance follows it."""
    prompt_field: str | None
    """The ``create`` argument the system prompt goes in (None: `request` places it)."""
    replied: Callable[[object], Sequence[object]]
    """The history items a response adds (the assistant's turn)."""
    answered: Callable[[list[object]], Sequence[object]]
    """The history items the step's formatted results add."""
    parse_calls: Callable[[object, NameMap], list[ProviderCall]]
    """The adapter's `parse_calls`."""
    format_result: Callable[[ToolOutcome, ProviderCall, Rendering[Any]], object]
    """The adapter's `format_result`."""
    answer_text: Callable[[object], str]
    """The adapter's `answer_text`."""
    discoveries: Callable[[object, NameMap], tuple[str, ...]] | None = None
    """Native search run by the provider: the tools a response loaded (recorded in the session)."""
    paused: Callable[[object], bool] = _never
    """True for a response without calls that asks to be sent again (Anthropic's ``pause_turn``)."""


async def run_tool_loop(
    session: ScoutSession,
    loop: ToolLoop,
    *,
    create: Callable[..., object],
    history: list[object],
    choice: StyleChoice,
    max_steps: int,
) -> TurnResult:
    """Call the model, run its tool calls through `session`, and repeat until it answers or `max_steps` is reached."""
    outcomes: list[ToolOutcome] = []
    text = ""
    for step in range(1, max_steps + 1):
        rendering = loop.render(history)
        prompt = "\n\n".join(part for part in (loop.prompt, rendering.guidance) if part)
        request = loop.request(history, prompt)
        if "tools" in rendering.fields:
            request["tools"] = rendering.fields["tools"]
        if prompt and loop.prompt_field is not None:
            request[loop.prompt_field] = prompt
        response = as_json(await call_sdk(create, request))
        history = [*history, *loop.replied(response)]
        found = loop.discoveries(response, rendering.names) if loop.discoveries is not None else ()
        if found:
            session.scout.store.discover(session.session_id, [name for name in found if name in rendering.deferred])
        text = loop.answer_text(response) or text
        calls = loop.parse_calls(response, rendering.names)
        if not calls:
            if loop.paused(response):
                continue
            return TurnResult(
                text=text, messages=history, steps=step, outcomes=tuple(outcomes), stopped="answer", choice=choice
            )
        results: list[object] = []
        for call in calls:
            outcome = await dispatch_call(session, call, rendering.names)
            outcomes.append(outcome)
            results.append(loop.format_result(outcome, call, rendering))
        history = [*history, *loop.answered(results)]
    return TurnResult(
        text=text, messages=history, steps=max_steps, outcomes=tuple(outcomes), stopped="step_limit", choice=choice
    )


async def call_sdk(create: Callable[..., object], request: dict[str, object]) -> object:
    """Call an SDK ``create`` method, sync or async, with `request` as keyword arguments."""
    response = create(**request)
    if inspect.isawaitable(response):
        response = await response
    return response


_TEXT_BLOCKS = frozenset({"text", "input_text"})


def user_texts(messages: Sequence[object]) -> list[str]:
    """The text of each user message in `messages` (JSON messages or input items of any provider), oldest first.

    A user message is one with ``role: user``; its text is a string content or its text blocks
    (``text``, ``input_text``) joined. Tool results sent in a user message (Anthropic) have no text
    and are skipped.
    """
    texts: list[str] = []
    for message in messages:
        if not isinstance(message, dict) or message.get("role") != "user":
            continue
        content = message.get("content")
        if isinstance(content, list):
            content = "\n".join(
                str(block.get("text", ""))
                for block in content
                if isinstance(block, dict) and block.get("type") in _TEXT_BLOCKS
            )
        if isinstance(content, str) and content.strip():
            texts.append(content)
    return texts
