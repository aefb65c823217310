"""OpenAI Chat Completions: ``tools: [{"type": "function", "function": {...}}]``; client-side styles only.

Chat Completions has no deferred loading or hosted tool search, so only the bridge and reveal
styles render here; the guidance goes in a system message.
"""

from __future__ import annotations

from typing import Literal, Required, TypedDict

from .._scout import ScoutSession
from .._types import JsonObject
from ..catalog import ToolSpec
from ..dispatch import ToolOutcome
from ._calls import ProviderCall, Rendering, parsed_call, result_text
from ._frame import client_frame
from ._json import as_json, dicts
from ._names import OPENAI_NAMES, NameMap
from ._registry import Adapter
from ._surface import ProviderStyle, surface_guidance

__all__ = [
    "ChatFields",
    "ChatFunction",
    "ChatSystemMessage",
    "ChatTool",
    "ChatToolMessage",
    "answer_text",
    "format_result",
    "parse_calls",
    "render",
]


class ChatFunction(TypedDict, total=False):
    """A function definition (``FunctionDefinition``)."""

    name: Required[str]
    description: str
    parameters: JsonObject


class ChatTool(TypedDict):
    """A function tool (``ChatCompletionFunctionToolParam``)."""

    type: Literal["function"]
    function: ChatFunction


class ChatSystemMessage(TypedDict):
    """The system message carrying the guidance."""

    role: Literal["system"]
    content: str


class ChatToolMessage(TypedDict):
    """A tool result message (``ChatCompletionToolMessageParam``)."""

    role: Literal["tool"]
    tool_call_id: str
    content: str


class ChatFields(TypedDict, total=False):
    """The request fields toolscout sets: ``tools`` and a leading system message."""

    tools: list[ChatTool]
    messages: list[ChatSystemMessage]


def render(session: ScoutSession, *, style: ProviderStyle | None = None) -> Rendering[ChatFields]:
    """Render this turn's tools and guidance for Chat Completions.

    Args:
        session: The toolscout session.
        style: ``bridge`` or ``reveal`` (default: the ToolScout's configured style).

    Raises:
        ConfigError: `style` is ``native`` (Chat Completions has no tool search) or differs from
            the ToolScout's configured style.
    """
    frame = client_frame(
        session,
        style,
        OPENAI_NAMES,
        no_native="OpenAI Chat Completions has no native tool search; render 'bridge' or 'reveal', "
        "or use the Responses API (openai-responses) for native tool search",
    )
    surface, names = frame.surface, frame.names
    guidance = surface_guidance(surface, session, names, hosted=False)
    fields: ChatFields = {}
    tools = [function_tool(tool, names) for tool in (*surface.fixed, *surface.loaded)]
    if tools:
        fields["tools"] = tools
    if guidance:
        fields["messages"] = [{"role": "system", "content": guidance}]
    return frame.rendering("openai-chat", fields, guidance)


def function_tool(tool: ToolSpec, names: NameMap) -> ChatTool:
    """One tool as a Chat Completions function tool."""
    function: ChatFunction = {"name": names.to_provider(tool.name), "description": tool.description}
    function["parameters"] = tool.parameters
    return {"type": "function", "function": function}


def parse_calls(response: object, names: NameMap) -> list[ProviderCall]:
    """The function calls in a ``chat.completion`` response (its first choice)."""
    choices = dicts(response, "choices")
    if not choices:
        return []
    message = as_json(choices[0].get("message"))
    calls: list[ProviderCall] = []
    for item in dicts(message, "tool_calls"):
        function = as_json(item.get("function"))
        if item.get("type", "function") == "function" and isinstance(function, dict):
            calls.append(parsed_call(function.get("name"), function.get("arguments"), item.get("id"), names))
    return calls


def format_result(outcome: ToolOutcome, call: ProviderCall, rendering: Rendering[ChatFields]) -> ChatToolMessage:
    """The ``tool`` message answering `call` (errors arrive as their structured JSON)."""
    return {"role": "tool", "tool_call_id": call.call_id or "", "content": result_text(outcome, rendering.names)}


def answer_text(response: object) -> str:
    """The assistant's text in a ``chat.completion`` response ("" when there is none)."""
    choices = dicts(response, "choices")
    message = as_json(choices[0].get("message")) if choices else None
    content = message.get("content") if isinstance(message, dict) else None
    return content if isinstance(content, str) else ""


ADAPTER = Adapter(
    name="openai-chat",
    names=OPENAI_NAMES,
    renderer=render,
    parse_calls=parse_calls,
    format_result=format_result,
    answer_text=answer_text,
)
"""The OpenAI Chat Completions adapter (registered as ``openai-chat``)."""
