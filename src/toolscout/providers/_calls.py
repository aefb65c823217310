"""Provider-neutral tool calls: what the adapters parse out of a response and hand to dispatch.

The model only ever sees provider names (`NameMap`); here they are mapped back before dispatch,
including the names inside ``tool_call``, ``tool_describe`` and ``tool_search`` (``names``)
arguments, and mapped forward again in the answers of ``tool_search`` / ``tool_describe`` and in error candidates.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from typing import Generic, Literal, TypeAlias, TypeVar

from .._scout import ScoutSession
from ..dispatch import ToolOutcome
from ._json import text_of
from ._names import NameMap
from ._surface import Provider, ProviderStyle, Surface

__all__ = [
    "CallKind",
    "NativeSearch",
    "ProviderCall",
    "Rendering",
    "dispatch_call",
    "found_tools",
    "parsed_call",
    "presented",
    "result_text",
]

CallKind: TypeAlias = Literal["tool", "search"]
"""`tool`: an ordinary function call; `search`: a client-executed native search (OpenAI ``tool_search_call``)."""
NativeSearch: TypeAlias = Literal["hybrid", "bm25", "regex", "hosted", "client"]
"""Native search variants: Anthropic `hybrid` (toolscout's tool_search answering with tool_reference
blocks), `bm25` / `regex` (Anthropic's server-side search); OpenAI Responses `hosted` / `client`."""

FieldsT = TypeVar("FieldsT", covariant=True)


@dataclass(frozen=True, slots=True, kw_only=True)
class Rendering(Generic[FieldsT]):
    """One request's toolscout-owned fields for one provider, and what is needed to read the reply."""

    provider: Provider
    """The provider API rendered for."""
    style: ProviderStyle
    """The disclosure style rendered."""
    search: NativeSearch | None
    """Native style: which search runs (None for client-side styles)."""
    fields: FieldsT
    """Exactly the request fields toolscout sets: the tools array and the system slot with the guidance."""
    guidance: str
    """The guidance text (also inside `fields`; empty when nothing is deferred)."""
    names: NameMap
    """The provider's name map."""
    surface: Surface
    """What was rendered, before the provider format."""
    preloaded: frozenset[str] = frozenset()
    """Native style: tool names the conversation history already loads (toolscout names)."""

    @property
    def deferred(self) -> frozenset[str]:
        """Tool names declared deferred (native style)."""
        return frozenset(tool.name for tool in self.surface.deferred)


@dataclass(frozen=True, slots=True, kw_only=True)
class ProviderCall:
    """One tool call parsed out of a provider response."""

    name: str
    """The toolscout tool name (mapped back from the provider name)."""
    provider_name: str
    """The name exactly as the model wrote it."""
    arguments: object
    """The arguments: a JSON object, or the raw JSON text some providers send."""
    call_id: str | None
    """The provider's id for the call, echoed in the result."""
    kind: CallKind = "tool"
    """Whether this is a function call or a client-executed native search."""
    namespace: str | None = None
    """OpenAI Responses: the namespace the function was called in."""


def parsed_call(
    name: object, arguments: object, call_id: object, names: NameMap, *, namespace: object = None
) -> ProviderCall:
    """A function call as a response carries it, its name mapped back to toolscout's (non-strings read as none)."""
    written = text_of(name) or ""
    return ProviderCall(
        name=names.to_tool(written),
        provider_name=written,
        arguments=arguments,
        call_id=text_of(call_id),
        namespace=text_of(namespace),
    )


async def dispatch_call(session: ScoutSession, call: ProviderCall, names: NameMap) -> ToolOutcome:
    """Run one parsed call through `session.dispatch` (never raises for bad model input)."""
    if call.kind == "search":
        return await session.dispatch(names.bridge.search, _search_arguments(call.arguments), call_id=call.call_id)
    arguments = call.arguments
    if call.name in names.bridge.all and names.renamed:
        arguments = _unmap_arguments(call.name, arguments, names)
    return await session.dispatch(call.name, arguments, call_id=call.call_id)


def presented(outcome: ToolOutcome, names: NameMap) -> object:
    """The outcome's content with tool names as the provider knows them."""
    if not names.renamed:
        return outcome.content
    if outcome.answer is not None:
        return outcome.answer.renamed(names.to_provider).to_json()
    if outcome.error is not None and outcome.error.candidates:  # content is the error's JSON
        candidates = tuple(names.to_provider(name) for name in outcome.error.candidates)
        return dataclasses.replace(outcome.error, candidates=candidates).to_json()
    return outcome.content


def result_text(outcome: ToolOutcome, names: NameMap) -> str:
    """The outcome as text for the model, tool names as the provider knows them."""
    if not names.renamed:
        return outcome.to_text()  # the text the outcome holds, written once
    content = presented(outcome, names)
    return content if isinstance(content, str) else json.dumps(content, ensure_ascii=False, default=str)


def found_tools(outcome: ToolOutcome, names: NameMap) -> tuple[str, ...]:
    """The tool names a successful search (``names.bridge.search``) answer lists, best first."""
    if outcome.answer is None or outcome.name != names.bridge.search:
        return ()
    return outcome.answer.names


def _unmap_arguments(tool: str, arguments: object, names: NameMap) -> object:
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except (json.JSONDecodeError, RecursionError):
            return arguments  # dispatch reports the bad JSON
    if not isinstance(arguments, dict):
        return arguments
    out = dict(arguments)
    bridge = names.bridge
    if tool == bridge.call and isinstance(out.get("name"), str):
        out["name"] = names.to_tool(out["name"])
    if tool in (bridge.describe, bridge.search):
        for key in ("names", "name") if tool == bridge.describe else ("names",):
            value = out.get(key)
            if isinstance(value, str):
                out[key] = names.to_tool(value)
            elif isinstance(value, list):
                out[key] = [names.to_tool(item) if isinstance(item, str) else item for item in value]
    return out


def _search_arguments(arguments: object) -> object:
    """Accept the shapes clients send to a search tool: ``query``, ``goal`` or ``paths``."""
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except (json.JSONDecodeError, RecursionError):
            return arguments
    if not isinstance(arguments, dict) or isinstance(arguments.get("query"), str):
        return arguments
    out = {key: value for key, value in arguments.items() if key == "limit"}
    goal = arguments.get("goal")
    paths = arguments.get("paths")
    if isinstance(goal, str):
        out["query"] = goal
    elif isinstance(paths, list):
        out["query"] = " ".join(item for item in paths if isinstance(item, str))
    return out
