"""OpenAI Responses: flat function tools, and native tool search.

Native style has two variants:

- ``hosted`` (default): ``{"type": "tool_search"}`` and every deferred function declared with
  ``defer_loading: true``, grouped into one ``namespace`` tool per server (tools without a
  namespace stay top-level functions). OpenAI runs the search (``gpt-5.4`` and later).
- ``client``: ``{"type": "tool_search", "execution": "client"}``; the model emits a
  ``tool_search_call``, toolscout ranks, and answers with a ``tool_search_output`` carrying the
  full definitions. Deferred tools are not declared at all.

Loaded tools are injected at the end of the context by the API, so the tools array stays the
same from step to step.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Literal, TypeAlias

from .._clipping import clip
from .._scout import ScoutSession
from .._texts import Bridge
from .._types import JsonObject
from ..catalog import ToolSpec
from ..dispatch import ToolOutcome
from ._calls import ProviderCall, Rendering, found_tools, parsed_call, result_text
from ._frame import native_frame
from ._json import as_json, dicts, text_of
from ._names import OPENAI_NAMES, NameMap
from ._registry import Adapter
from ._responses_types import (
    FunctionCallOutput,
    Namespace,
    ResponsesFields,
    ResponsesFunction,
    ResponsesTool,
    ToolSearch,
    ToolSearchOutput,
)
from ._surface import ProviderStyle, native_search_tool, surface_guidance

__all__ = [
    "FunctionCallOutput",
    "Namespace",
    "ResponsesFields",
    "ResponsesSearch",
    "ResponsesFunction",
    "ResponsesTool",
    "ToolSearch",
    "ToolSearchOutput",
    "answer_text",
    "discoveries",
    "format_result",
    "parse_calls",
    "referenced",
    "render",
]

ResponsesSearch: TypeAlias = Literal["hosted", "client"]
_VARIANTS: tuple[ResponsesSearch, ...] = ("hosted", "client")
_NAMESPACE_DESCRIPTION_CHARS = 300


def _client_search_parameters(default_limit: int) -> JsonObject:
    """The parameters of the client-executed ``tool_search`` (its ``limit`` defaults to `default_limit`)."""
    return {
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": Bridge.NATIVE_QUERY},
            "limit": {"type": "integer", "description": Bridge.native_limit(default_limit)},
        },
        "required": ["query"],
        "additionalProperties": False,
    }


def render(
    session: ScoutSession,
    *,
    style: ProviderStyle | None = None,
    search: ResponsesSearch = "hosted",
    history: Iterable[object] | None = None,
) -> Rendering[ResponsesFields]:
    """Render this turn's ``tools`` and ``instructions`` for the Responses API.

    Args:
        session: The toolscout session.
        style: ``bridge``, ``reveal`` or ``native`` (default: the ToolScout's configured style).
        search: Native style: ``hosted`` (OpenAI searches) or ``client`` (toolscout searches).
        history: Native style: the input items so far; discoveries their ``tool_search_output``
            items do not already load are sent in full. None sends every discovery in full.

    Raises:
        ConfigError: An unknown `search`, or a client-side style other than the ToolScout's.
    """
    frame = native_frame(
        session, style, OPENAI_NAMES, search=search, variants=_VARIANTS, history=history, referenced=referenced
    )
    surface, names, native = frame.surface, frame.names, frame.native
    # Hosted search shows each namespace's description (which names its tools): no listing needed.
    guidance = surface_guidance(surface, session, names, hosted=search == "hosted", listing=search == "client")
    tools: list[ResponsesTool] = [function_tool(tool, names) for tool in surface.fixed]
    if native and search == "hosted":
        tools.append({"type": "tool_search"})
    elif native:
        tools.append(
            {
                "type": "tool_search",
                "execution": "client",
                "description": native_search_tool(names.bridge).description,
                "parameters": _client_search_parameters(session.scout.settings.search_default_limit),
            }
        )
    tools += [function_tool(tool, names) for tool in surface.loaded]
    if native and search == "hosted":
        tools += _grouped(surface.deferred, names)
    fields: ResponsesFields = {}
    if tools:
        fields["tools"] = tools
    if guidance:
        fields["instructions"] = guidance
    return frame.rendering("openai-responses", fields, guidance, search=search)


def function_tool(tool: ToolSpec, names: NameMap, *, defer: bool = False) -> ResponsesFunction:
    """One tool as a Responses function tool (``defer_loading: true`` when `defer`)."""
    out: ResponsesFunction = {
        "type": "function",
        "name": names.to_provider(tool.name),
        "description": tool.description,
        "parameters": tool.parameters,
        "strict": False,
    }
    if defer:
        out["defer_loading"] = True
    return out


def parse_calls(response: object, names: NameMap) -> list[ProviderCall]:
    """The calls toolscout must answer: ``function_call`` items and client ``tool_search_call`` items."""
    calls: list[ProviderCall] = []
    for item in dicts(response, "output"):
        kind = item.get("type")
        if kind == "function_call":
            call = parsed_call(
                item.get("name"), item.get("arguments"), item.get("call_id"), names, namespace=item.get("namespace")
            )
            calls.append(call)
        elif kind == "tool_search_call" and item.get("execution") == "client":
            calls.append(
                ProviderCall(
                    name=names.bridge.search,
                    provider_name="tool_search",
                    arguments=item.get("arguments"),
                    call_id=text_of(item.get("call_id")),
                    kind="search",
                )
            )
    return calls


def discoveries(response: object, names: NameMap) -> tuple[str, ...]:
    """Tool names (toolscout names) that hosted tool search loaded in a response, in order."""
    return tuple(dict.fromkeys(names.to_tool(name) for name in _loaded(dicts(response, "output"))))


def referenced(items: Iterable[object]) -> frozenset[str]:
    """Provider tool names loaded by ``tool_search_output`` items anywhere in the input."""
    return frozenset(_loaded([item for item in (as_json(item) for item in items) if isinstance(item, dict)]))


def format_result(
    outcome: ToolOutcome, call: ProviderCall, rendering: Rendering[ResponsesFields]
) -> FunctionCallOutput | ToolSearchOutput:
    """The input item answering `call`.

    A client ``tool_search_call`` gets a ``tool_search_output`` with the full definitions of the
    deferred tools found (none when the search failed or found nothing new); a function call gets a
    ``function_call_output`` whose text carries the structured error on failure.
    """
    if call.kind == "search":
        plan_tools = {tool.name: tool for tool in rendering.surface.deferred}
        tools = [
            function_tool(plan_tools[name], rendering.names, defer=True)
            for name in found_tools(outcome, rendering.names)
            if name in plan_tools and name not in rendering.preloaded
        ]
        return {
            "type": "tool_search_output",
            "execution": "client",
            "call_id": call.call_id,
            "status": "completed",
            "tools": tools,
        }
    return {
        "type": "function_call_output",
        "call_id": call.call_id or "",
        "output": result_text(outcome, rendering.names),
    }


def answer_text(response: object) -> str:
    """The output text of a Responses response (its ``message`` items), joined."""
    return "".join(
        text
        for item in dicts(response, "output")
        if item.get("type") == "message"
        for part in dicts(item, "content")
        if part.get("type") == "output_text" and (text := text_of(part.get("text")))
    )


def _grouped(tools: tuple[ToolSpec, ...], names: NameMap) -> list[ResponsesTool]:
    """Deferred functions, one ``namespace`` per server in catalog order; tools without one stay top-level."""
    groups: dict[str | None, list[ToolSpec]] = {}
    order: list[ToolSpec | str] = []
    for tool in tools:
        if tool.namespace is None:
            order.append(tool)
            continue
        if tool.namespace not in groups:
            order.append(tool.namespace)
        groups.setdefault(tool.namespace, []).append(tool)
    out: list[ResponsesTool] = []
    for entry in order:
        if isinstance(entry, ToolSpec):
            out.append(function_tool(entry, names, defer=True))
            continue
        members = groups[entry]
        listed = ", ".join(_short(names.to_provider(tool.name), names.to_provider(entry)) for tool in members)
        out.append(
            {
                "type": "namespace",
                "name": names.to_provider(entry),
                "description": clip(f"{entry} tools: {listed}", _NAMESPACE_DESCRIPTION_CHARS),
                "tools": [function_tool(tool, names, defer=True) for tool in members],
            }
        )
    return out


def _short(name: str, namespace: str) -> str:
    """`name` without a leading ``namespace`` and separator (``github__create_issue`` → ``create_issue``)."""
    if name.startswith(namespace):
        rest = name[len(namespace) :].lstrip("_.:-/")
        if rest and rest != name[len(namespace) :]:
            return rest
    return name


def _loaded(items: list[JsonObject]) -> list[str]:
    names: list[str] = []
    for item in items:
        if item.get("type") != "tool_search_output":
            continue
        for tool in dicts(item, "tools"):
            members = dicts(tool, "tools") if tool.get("type") == "namespace" else [tool]
            names += [name for member in members if (name := text_of(member.get("name")))]
    return names


_GPT = re.compile(r"gpt-(?P<major>\d+)(?:\.(?P<minor>\d+))?(?:-.*)?")


def supports_native(model: str) -> bool:
    """True for GPT models with tool search on the Responses API: 5.4 and later."""
    match = _GPT.fullmatch(model)
    return match is not None and (int(match["major"]), int(match["minor"] or 0)) >= (5, 4)


ADAPTER = Adapter(
    name="openai-responses",
    names=OPENAI_NAMES,
    native_search=_VARIANTS,
    supports_native=supports_native,
    renderer=render,
    parse_calls=parse_calls,
    format_result=format_result,
    answer_text=answer_text,
    deferred_summaries=True,
)
"""The OpenAI Responses adapter (registered as ``openai-responses``)."""
