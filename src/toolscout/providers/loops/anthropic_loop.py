"""Run one user turn's tool loop with the official ``anthropic`` SDK (extra ``toolscout[anthropic]``)."""

from __future__ import annotations

from collections.abc import Sequence

try:
    import anthropic
except ImportError as exc:  # the optional `anthropic` extra
    raise ImportError("the anthropic SDK is not installed; run: pip install 'toolscout[anthropic]'") from exc

from ..._scout import ScoutSession
from .. import anthropic as adapter
from .. import choose_style
from .._internal import ProviderStyle, as_json
from ._turn import ToolLoop, TurnResult, run_tool_loop, user_texts

__all__ = ["run_anthropic_turn"]


async def run_anthropic_turn(
    session: ScoutSession,
    client: anthropic.Anthropic | anthropic.AsyncAnthropic,
    messages: Sequence[object],
    *,
    model: str,
    max_tokens: int = 4096,
    system: str | None = None,
    style: ProviderStyle | None = None,
    search: adapter.AnthropicSearch = "hybrid",
    cache: bool = False,
    max_steps: int = 8,
    **request: object,
) -> TurnResult:
    """Call the model, run its tool calls through `session`, and repeat until it answers.

    Each step renders the tools afresh from the session, so discoveries made in earlier turns or
    with another provider are available here too (the session store is the source of truth).

    Args:
        session: The toolscout session.
        client: An ``anthropic.Anthropic`` or ``anthropic.AsyncAnthropic`` client.
        messages: The conversation so far, ending with the user's message (dicts or SDK objects).
        model: The model id.
        max_tokens: ``max_tokens`` for each request.
        system: Your system prompt; toolscout's guidance is appended to it.
        style: Force a disclosure style (default: native where the model supports it, else the
            ToolScout's style).
        search: Native style: ``hybrid`` (toolscout's ranking), ``bm25`` or ``regex`` (server-side).
        cache: Put a prompt-cache breakpoint after the session-constant tools.
        max_steps: The most model requests in this turn.
        **request: Further ``messages.create`` arguments (``temperature``, ``extra_headers``, ...).
    """
    session = session.with_user_messages(user_texts([as_json(message) for message in messages]))
    choice = choose_style(model, "anthropic", client_style=session.scout.settings.style, override=style)
    loop = ToolLoop(
        render=lambda history: adapter.render(session, style=choice.style, search=search, history=history, cache=cache),
        request=lambda history, prompt: {"model": model, "max_tokens": max_tokens, "messages": history, **request},
        prompt=system,
        prompt_field="system",
        replied=lambda response: [{"role": "assistant", "content": _content(response)}],
        answered=lambda results: [{"role": "user", "content": results}],
        parse_calls=adapter.parse_calls,
        format_result=adapter.format_result,
        answer_text=adapter.answer_text,
        discoveries=adapter.discoveries,
        paused=lambda response: isinstance(response, dict) and response.get("stop_reason") == "pause_turn",
    )
    history: list[object] = [as_json(message) for message in messages]
    return await run_tool_loop(
        session, loop, create=client.messages.create, history=history, choice=choice, max_steps=max_steps
    )


def _content(response: object) -> object:
    return response.get("content", []) if isinstance(response, dict) else []
