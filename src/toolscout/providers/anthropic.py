"""Anthropic Messages: ``input_schema`` tools, and native tool search with ``defer_loading``.

Native style declares every deferred tool with ``defer_loading: true`` after the non-deferred
ones, and one search tool that is never deferred:

- ``hybrid`` (default): toolscout's own ``tool_search`` as a custom tool; its ``tool_result``
  holds ``tool_reference`` blocks, which the API expands into the referenced definitions.
- ``bm25`` / ``regex``: Anthropic's server-side ``tool_search_tool_{bm25,regex}_20251119``.

Either way the tools array stays the same from step to step (the API loads discovered tools
inline, so the prompt cache holds). ``cache_control`` only ever sits on the last tool of the
session-constant head, never on a deferred tool.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Literal, Required, TypeAlias, TypedDict

from .._scout import ScoutSession
from .._types import JsonObject
from ..catalog import ToolSpec
from ..dispatch import ToolOutcome
from ._calls import ProviderCall, Rendering, found_tools, parsed_call, result_text
from ._frame import native_frame
from ._json import as_json, dicts, text_of
from ._names import ANTHROPIC_NAMES, NameMap
from ._registry import Adapter
from ._surface import ProviderStyle, native_search_tool, surface_guidance

__all__ = [
    "AnthropicFields",
    "AnthropicSearch",
    "AnthropicTool",
    "AnthropicToolParam",
    "CacheControl",
    "ServerSearchTool",
    "TextBlock",
    "ToolReference",
    "ToolResult",
    "answer_text",
    "discoveries",
    "format_result",
    "parse_calls",
    "referenced",
    "render",
]

AnthropicSearch: TypeAlias = Literal["hybrid", "bm25", "regex"]
_VARIANTS: tuple[AnthropicSearch, ...] = ("hybrid", "bm25", "regex")
_SERVER_TOOLS: dict[str, tuple[Literal["tool_search_tool_bm25", "tool_search_tool_regex"], str]] = {
    "bm25": ("tool_search_tool_bm25", "tool_search_tool_bm25_20251119"),
    "regex": ("tool_search_tool_regex", "tool_search_tool_regex_20251119"),
}


class CacheControl(TypedDict):
    """A prompt-cache breakpoint."""

    type: Literal["ephemeral"]


class AnthropicTool(TypedDict, total=False):
    """A custom tool (``ToolParam``)."""

    name: Required[str]
    description: str
    input_schema: Required[JsonObject]
    defer_loading: bool
    cache_control: CacheControl


class ServerSearchTool(TypedDict, total=False):
    """Anthropic's server-side tool search (``ToolSearchToolBm25_20251119Param`` / ``...Regex...``)."""

    type: Required[str]
    name: Required[Literal["tool_search_tool_bm25", "tool_search_tool_regex"]]
    cache_control: CacheControl


AnthropicToolParam: TypeAlias = AnthropicTool | ServerSearchTool


class AnthropicFields(TypedDict, total=False):
    """The request fields toolscout sets: ``tools`` and ``system``."""

    tools: list[AnthropicToolParam]
    system: str


class ToolReference(TypedDict):
    """A ``tool_reference`` block inside a ``tool_result``."""

    type: Literal["tool_reference"]
    tool_name: str


class TextBlock(TypedDict):
    """A text block."""

    type: Literal["text"]
    text: str


class ToolResult(TypedDict, total=False):
    """A ``tool_result`` block (``ToolResultBlockParam``)."""

    type: Required[Literal["tool_result"]]
    tool_use_id: Required[str]
    content: Required[str | list[ToolReference]]
    is_error: bool


def render(
    session: ScoutSession,
    *,
    style: ProviderStyle | None = None,
    search: AnthropicSearch = "hybrid",
    history: Iterable[object] | None = None,
    cache: bool = False,
) -> Rendering[AnthropicFields]:
    """Render this turn's ``tools`` and ``system`` for the Messages API.

    Args:
        session: The toolscout session.
        style: ``bridge``, ``reveal`` or ``native`` (default: the ToolScout's configured style).
        search: Native style: ``hybrid`` (toolscout's search, ``tool_reference`` results), ``bm25`` or ``regex``.
        history: Native style: the conversation's messages so far; discoveries they do not already
            load are sent in full. None sends every discovery in full.
        cache: Put a ``cache_control`` breakpoint on the last tool of the session-constant head.

    Raises:
        ConfigError: An unknown `search`, or a client-side style other than the ToolScout's.
    """
    frame = native_frame(
        session, style, ANTHROPIC_NAMES, search=search, variants=_VARIANTS, history=history, referenced=referenced
    )
    surface, names = frame.surface, frame.names
    guidance = surface_guidance(surface, session, names, hosted=search != "hybrid")
    tools: list[AnthropicToolParam] = [custom_tool(tool, names) for tool in surface.fixed]
    if frame.native:
        if search == "hybrid":
            tools.append(custom_tool(native_search_tool(names.bridge), names))
        else:
            name, kind = _SERVER_TOOLS[search]
            tools.append({"type": kind, "name": name})
    if cache and tools:
        tools[-1]["cache_control"] = {"type": "ephemeral"}
    tools += [custom_tool(tool, names) for tool in surface.loaded]
    tools += [custom_tool(tool, names, defer=True) for tool in surface.deferred]
    fields: AnthropicFields = {}
    if tools:
        fields["tools"] = tools
    if guidance:
        fields["system"] = guidance
    return frame.rendering("anthropic", fields, guidance, search=search)


def custom_tool(tool: ToolSpec, names: NameMap, *, defer: bool = False) -> AnthropicTool:
    """One tool as an Anthropic custom tool (``defer_loading: true`` when `defer`)."""
    out: AnthropicTool = {
        "name": names.to_provider(tool.name),
        "description": tool.description,
        "input_schema": tool.parameters,
    }
    if defer:
        out["defer_loading"] = True
    return out


def parse_calls(response: object, names: NameMap) -> list[ProviderCall]:
    """The client tool calls (``tool_use`` blocks) in a Messages response.

    Server-side search blocks (``server_tool_use``, ``tool_search_tool_result``) are run by the
    API and need no result; read what they loaded with `discoveries`.
    """
    return [
        parsed_call(block.get("name"), block.get("input"), block.get("id"), names)
        for block in dicts(response, "content")
        if block.get("type") == "tool_use"
    ]


def discoveries(response: object, names: NameMap) -> tuple[str, ...]:
    """Tool names (toolscout names) that server-side tool search loaded in a response, in order."""
    return tuple(dict.fromkeys(names.to_tool(name) for name in _references(dicts(response, "content"))))


def referenced(messages: Iterable[object]) -> frozenset[str]:
    """Provider tool names loaded by ``tool_reference`` blocks anywhere in a conversation."""
    found: set[str] = set()
    for message in messages:
        found.update(_references(dicts(as_json(message), "content")))
    return frozenset(found)


def format_result(outcome: ToolOutcome, call: ProviderCall, rendering: Rendering[AnthropicFields]) -> ToolResult:
    """The ``tool_result`` block answering `call`.

    In native hybrid style a successful ``tool_search`` answers with ``tool_reference`` blocks
    for the deferred tools it found; everything else answers with text, errors flagged.
    """
    result: ToolResult = {"type": "tool_result", "tool_use_id": call.call_id or "", "content": ""}
    search = rendering.names.bridge.search
    if rendering.search == "hybrid" and outcome.name == search and call.name == search:
        refs: list[ToolReference] = [
            {"type": "tool_reference", "tool_name": rendering.names.to_provider(name)}
            for name in found_tools(outcome, rendering.names)
            if name in rendering.deferred
        ]
        if refs:
            result["content"] = refs
            return result
    result["content"] = result_text(outcome, rendering.names)
    if outcome.is_error:
        result["is_error"] = True
    return result


def answer_text(response: object) -> str:
    """The text blocks of a Messages response, joined."""
    return "".join(
        text
        for block in dicts(response, "content")
        if block.get("type") == "text" and (text := text_of(block.get("text")))
    )


def _references(blocks: list[JsonObject]) -> list[str]:
    names: list[str] = []
    for block in blocks:
        kind = block.get("type")
        if kind == "tool_search_tool_result":
            content = block.get("content")
            refs = dicts(content, "tool_references") if isinstance(content, dict) else []
        elif kind == "tool_result":
            refs = dicts(block.get("content"))
        else:
            continue
        names += [
            name for ref in refs if ref.get("type") == "tool_reference" and (name := text_of(ref.get("tool_name")))
        ]
    return names


_CLAUDE = re.compile(r"claude-(?P<family>[a-z]+)-(?P<major>\d+)(?:-(?P<minor>\d{1,2})(?!\d))?(?:-.*)?")


def supports_native(model: str) -> bool:
    """True for Claude models with tool search: Opus, Sonnet and Haiku 4.5 and later, any 5+."""
    match = _CLAUDE.fullmatch(model)
    if match is None:
        return False
    version = (int(match["major"]), int(match["minor"] or 0))
    if match["family"] in ("opus", "sonnet", "haiku") and version < (5, 0):
        return version >= (4, 5)
    return version >= (5, 0)


ADAPTER = Adapter(
    name="anthropic",
    names=ANTHROPIC_NAMES,
    native_search=_VARIANTS,
    supports_native=supports_native,
    renderer=render,
    parse_calls=parse_calls,
    format_result=format_result,
    answer_text=answer_text,
)
"""The Anthropic Messages adapter (registered as ``anthropic``)."""
