"""Run one user turn's tool loop with the official ``openai`` SDK (extra ``toolscout[openai]``).

`run_responses_turn` drives the Responses API (native tool search where the model has it);
`run_chat_turn` drives Chat Completions (client-side styles).
"""

from __future__ import annotations

from collections.abc import Sequence

try:
    import openai
except ImportError as exc:  # the optional `openai` extra
    raise ImportError("the openai SDK is not installed; run: pip install 'toolscout[openai]'") from exc

from ..._scout import ScoutSession
from ..._types import JsonObject
from .. import choose_style, openai_chat, openai_responses
from .._internal import ProviderStyle, as_json, dicts
from ._turn import ToolLoop, TurnResult, run_tool_loop, user_texts

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
    session = session.with_user_messages(user_texts([as_json(item) for item in input]))
    choice = choose_style(model, "openai-responses", client_style=session.scout.settings.style, override=style)
    loop = ToolLoop(
        render=lambda history: openai_responses.render(session, style=choice.style, search=search, history=history),
        request=lambda history, prompt: {"model": model, "input": history, **request},
        prompt=instructions,
        prompt_field="instructions",
        replied=lambda response: dicts(response, "output"),
        answered=lambda results: results,
        parse_calls=openai_responses.parse_calls,
        format_result=openai_responses.format_result,
        answer_text=openai_responses.answer_text,
        discoveries=openai_responses.discoveries,
    )
    history: list[object] = [as_json(item) for item in input]
    return await run_tool_loop(
        session, loop, create=client.responses.create, history=history, choice=choice, max_steps=max_steps
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
    session = session.with_user_messages(user_texts([as_json(message) for message in messages]))
    choice = choose_style(model, "openai-chat", client_style=session.scout.settings.style, override=style)

    def fields(history: list[object], prompt: str) -> dict[str, object]:
        lead: list[object] = [{"role": "system", "content": prompt}] if prompt else []
        return {"model": model, "messages": [*lead, *history], **request}

    loop = ToolLoop(
        render=lambda history: openai_chat.render(session, style=choice.style),
        request=fields,
        prompt=system,
        prompt_field=None,
        replied=lambda response: [_assistant_message(response)],
        answered=lambda results: results,
        parse_calls=openai_chat.parse_calls,
        format_result=openai_chat.format_result,
        answer_text=openai_chat.answer_text,
    )
    history: list[object] = [as_json(message) for message in messages]
    return await run_tool_loop(
        session, loop, create=client.chat.completions.create, history=history, choice=choice, max_steps=max_steps
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
