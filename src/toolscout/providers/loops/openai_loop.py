"""Run one user turn's tool loop with the official ``openai`` SDK (extra ``toolscout[openai]``).

`run_responses_turn` drives the Responses API (native tool search where the model has it);
`run_chat_turn` drives Chat Completions (client-side styles).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

try:
    import openai
except ImportError as exc:  # the optional `openai` extra
    raise ImportError("the openai SDK is not installed; run: pip install 'toolscout[openai]'") from exc

from ..._scout import ScoutSession
from ..._types import JsonObject
from ...dispatch._call import ToolOutcome
from .. import openai_chat, openai_responses
from .._auto import choose_style
from .._calls import dispatch_call
from .._json import as_json, dicts
from .._surface import ProviderStyle
from ._turn import TurnResult, call_sdk

__all__ = ["run_chat_turn", "run_responses_turn"]

Client = openai.OpenAI | openai.AsyncOpenAI


async def run_responses_turn(
    session: ScoutSession,
    client: Client,
    input: Sequence[object],
    *,
    model: str,
    instructions: str | None = None,
    style: ProviderStyle | None = None,
    search: openai_responses.ResponsesSearch = "hosted",
    max_steps: int = 8,
    **request: object,
) -> TurnResult:
    """Call the model through the Responses API, run its tool calls through `session`, repeat until it answers.

    The conversation is sent in full each step (no ``previous_response_id``), so it can move to
    another provider at any time; the session store carries the discoveries.

    Args:
        session: The toolscout session.
        client: An ``openai.OpenAI`` or ``openai.AsyncOpenAI`` client.
        input: The input items so far, ending with the user's message (dicts or SDK objects).
        model: The model id.
        instructions: Your instructions; toolscout's guidance is appended to them.
        style: Force a disclosure style (default: native on gpt-5.4 and later, else the ToolScout's style).
        search: Native style: ``hosted`` (OpenAI searches) or ``client`` (toolscout searches).
        max_steps: The most model requests in this turn.
        **request: Further ``responses.create`` arguments.
    """
    choice = choose_style(model, "openai-responses", client_style=session.scout.settings.style, override=style)
    history: list[object] = [as_json(item) for item in input]
    outcomes: list[ToolOutcome] = []
    create: Callable[..., object] = client.responses.create
    text = ""
    for step in range(1, max_steps + 1):
        rendering = openai_responses.render(session, style=choice.style, search=search, history=history)
        fields: dict[str, object] = {"model": model, "input": history, **request}
        if "tools" in rendering.fields:
            fields["tools"] = rendering.fields["tools"]
        prompt = "\n\n".join(part for part in (instructions, rendering.guidance) if part)
        if prompt:
            fields["instructions"] = prompt
        response = as_json(await call_sdk(create, fields))
        history = [*history, *dicts(response, "output")]
        found = openai_responses.discoveries(response, rendering.names)
        if found:
            session.scout.store.discover(session.session_id, [name for name in found if name in rendering.deferred])
        text = openai_responses.answer_text(response) or text
        calls = openai_responses.parse_calls(response, rendering.names)
        if not calls:
            return TurnResult(
                text=text, messages=history, steps=step, outcomes=tuple(outcomes), stopped="answer", choice=choice
            )
        for call in calls:
            outcome = await dispatch_call(session, call, rendering.names)
            outcomes.append(outcome)
            history.append(openai_responses.format_result(outcome, call, rendering))
    return TurnResult(
        text=text, messages=history, steps=max_steps, outcomes=tuple(outcomes), stopped="step_limit", choice=choice
    )


async def run_chat_turn(
    session: ScoutSession,
    client: Client,
    messages: Sequence[object],
    *,
    model: str,
    system: str | None = None,
    style: ProviderStyle | None = None,
    max_steps: int = 8,
    **request: object,
) -> TurnResult:
    """Call the model through Chat Completions, run its tool calls through `session`, repeat until it answers.

    Args:
        session: The toolscout session.
        client: An ``openai.OpenAI`` or ``openai.AsyncOpenAI`` client (or one pointed at any
            OpenAI-compatible endpoint through ``base_url``).
        messages: The conversation so far without a system message, ending with the user's message.
        model: The model id.
        system: Your system prompt; toolscout's guidance is appended, and the two go first as one
            system message (not stored in the returned messages).
        style: ``bridge`` or ``reveal`` (default: the ToolScout's style).
        max_steps: The most model requests in this turn.
        **request: Further ``chat.completions.create`` arguments.
    """
    choice = choose_style(model, "openai-chat", client_style=session.scout.settings.style, override=style)
    history: list[object] = [as_json(message) for message in messages]
    outcomes: list[ToolOutcome] = []
    create: Callable[..., object] = client.chat.completions.create
    text = ""
    for step in range(1, max_steps + 1):
        rendering = openai_chat.render(session, style=choice.style)
        prompt = "\n\n".join(part for part in (system, rendering.guidance) if part)
        lead: list[object] = [{"role": "system", "content": prompt}] if prompt else []
        fields: dict[str, object] = {"model": model, "messages": [*lead, *history], **request}
        if "tools" in rendering.fields:
            fields["tools"] = rendering.fields["tools"]
        response = as_json(await call_sdk(create, fields))
        calls = openai_chat.parse_calls(response, rendering.names)
        text = openai_chat.answer_text(response) or text
        history.append(_assistant_message(response))
        if not calls:
            return TurnResult(
                text=text, messages=history, steps=step, outcomes=tuple(outcomes), stopped="answer", choice=choice
            )
        for call in calls:
            outcome = await dispatch_call(session, call, rendering.names)
            outcomes.append(outcome)
            history.append(openai_chat.format_result(outcome, call, rendering))
    return TurnResult(
        text=text, messages=history, steps=max_steps, outcomes=tuple(outcomes), stopped="step_limit", choice=choice
    )


def _assistant_message(response: object) -> JsonObject:
    """The assistant message to keep in the history: role, text and tool calls only."""
    choices = dicts(response, "choices")
    message = as_json(choices[0].get("message")) if choices else {}
    out: JsonObject = {"role": "assistant"}
    if isinstance(message, dict):
        if isinstance(message.get("content"), str):
            out["content"] = message["content"]
        calls = dicts(message, "tool_calls")
        if calls:
            out["tool_calls"] = [
                {key: call[key] for key in ("id", "type", "function") if key in call} for call in calls
            ]
    if "content" not in out and "tool_calls" not in out:
        out["content"] = ""
    return out
