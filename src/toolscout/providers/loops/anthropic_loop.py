"""Run one user turn's tool loop with the official ``anthropic`` SDK (extra ``toolscout[anthropic]``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

try:
    import anthropic
except ImportError as exc:  # the optional `anthropic` extra
    raise ImportError("the anthropic SDK is not installed; run: pip install 'toolscout[anthropic]'") from exc

from ..._scout import ScoutSession
from ...dispatch._call import ToolOutcome
from .. import anthropic as adapter
from .._auto import choose_style
from .._calls import dispatch_call
from .._json import as_json
from .._surface import ProviderStyle
from ._turn import TurnResult, call_sdk

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
    choice = choose_style(model, "anthropic", client_style=session.scout.settings.style, override=style)
    history: list[object] = [as_json(message) for message in messages]
    outcomes: list[ToolOutcome] = []
    create: Callable[..., object] = client.messages.create
    text = ""
    for step in range(1, max_steps + 1):
        rendering = adapter.render(session, style=choice.style, search=search, history=history, cache=cache)
        fields: dict[str, object] = {"model": model, "max_tokens": max_tokens, "messages": history, **request}
        if "tools" in rendering.fields:
            fields["tools"] = rendering.fields["tools"]
        prompt = "\n\n".join(part for part in (system, rendering.guidance) if part)
        if prompt:
            fields["system"] = prompt
        response = as_json(await call_sdk(create, fields))
        content = response.get("content", []) if isinstance(response, dict) else []
        history = [*history, {"role": "assistant", "content": content}]
        found = adapter.discoveries(response, rendering.names)
        if found:
            session.scout.store.discover(session.session_id, [name for name in found if name in rendering.deferred])
        text = adapter.answer_text(response) or text
        calls = adapter.parse_calls(response, rendering.names)
        if not calls:
            if isinstance(response, dict) and response.get("stop_reason") == "pause_turn":
                continue
            return TurnResult(
                text=text, messages=history, steps=step, outcomes=tuple(outcomes), stopped="answer", choice=choice
            )
        results: list[object] = []
        for call in calls:
            outcome = await dispatch_call(session, call, rendering.names)
            outcomes.append(outcome)
            results.append(adapter.format_result(outcome, call, rendering))
        history = [*history, {"role": "user", "content": results}]
    return TurnResult(
        text=text, messages=history, steps=max_steps, outcomes=tuple(outcomes), stopped="step_limit", choice=choice
    )
