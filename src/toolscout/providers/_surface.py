"""What one request offers the model, before any provider format: the `Surface`.

Client-side styles (bridge, reveal) take the core's `Assembly` as it is. The native style
declares every deferred tool for the provider to load on demand; the non-deferred part of the
array is the same head as the client-side styles (core, then pinned tools), then the search tool,
then *carried* tools: discoveries the conversation history does not already load (for example
after a change of provider), sent in full. Within a conversation the history carries what the
provider's search loaded, so the native array stays the same from step to step.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Literal, TypeAlias

from .._errors import ConfigError
from .._scout import ScoutSession
from .._settings import BridgeNames
from .._texts import Bridge, Guidance
from ..catalog import ToolSpec
from ..disclosure import Assembly
from ..disclosure._internal import Listing, bridge_tools, render_guidance, render_listing
from ._names import NameMap, NameRules

__all__ = [
    "Provider",
    "ProviderStyle",
    "Surface",
    "build_surface",
    "name_map",
    "native_search_tool",
    "surface_guidance",
]

ProviderStyle: TypeAlias = Literal["bridge", "reveal", "native"]
"""`bridge` / `reveal`: toolscout's client-side styles; `native`: the provider's deferred loading."""
Provider: TypeAlias = str
"""A registered provider API's name (``openai-chat``, ``openai-responses``, ``anthropic``, ``gemini``, or
one registered with `register_provider`)."""


def native_search_tool(names: BridgeNames) -> ToolSpec:
    """The search tool in native style (Anthropic's client-side search with tool_reference results)."""
    return dataclasses.replace(bridge_tools("reveal", names)[0], description=Bridge.SEARCH_NATIVE)


@dataclass(frozen=True, slots=True, kw_only=True)
class Surface:
    """The tools one request offers, in array order, split by role."""

    style: ProviderStyle
    """The disclosure style rendered."""
    active: bool
    """False when deferral is inactive this turn: every tool is in `head` and nothing is searched."""
    head: tuple[ToolSpec, ...]
    """Tools sent in full before the bridge or search tool: core tools, then pinned ones."""
    bridge: tuple[ToolSpec, ...]
    """toolscout's bridge tools (client-side styles; empty in native style)."""
    loaded: tuple[ToolSpec, ...]
    """Tools sent in full after the bridge or search tool, in discovery order (reveal discoveries and
    stubs; native: pre-discovered and carried tools)."""
    deferred: tuple[ToolSpec, ...]
    """Native style: tools declared for the provider to load on demand, in catalog order."""
    searchable: tuple[ToolSpec, ...]
    """Every deferred tool (what the guidance lists), in catalog order."""
    assembly: Assembly
    """The core's assembly for this turn."""

    @property
    def fixed(self) -> tuple[ToolSpec, ...]:
        """The part of the array that never changes within a session (head and bridge tools)."""
        return self.head + self.bridge


def build_surface(
    session: ScoutSession, style: ProviderStyle, *, loaded_elsewhere: Collection[str] | None = None
) -> Surface:
    """Split this turn's tools for `style`.

    Args:
        session: The toolscout session.
        style: The disclosure style; a client-side style must be the ToolScout's configured one,
            because dispatch answers searches in that style.
        loaded_elsewhere: Native style: tool names the conversation history already loads (tool
            references, search outputs). Discoveries outside it are carried in full. None (no
            history known) carries every discovery.

    Raises:
        ConfigError: A client-side style other than the ToolScout's configured style.
    """
    scout = session.scout
    assembly = session.assemble()
    if style != "native" and style != scout.settings.style:
        raise ConfigError(
            f"this ToolScout answers searches in {scout.settings.style!r} style; render {scout.settings.style!r} "
            f"or 'native', or create the ToolScout with ScoutSettings(style={style!r})",
            key="style",
        )
    tools = assembly.tools
    bridge = scout.settings.bridge_names.all
    cut = next((i for i, tool in enumerate(tools) if tool.name in bridge), len(tools))
    head = tools[:cut]
    end = cut
    while end < len(tools) and tools[end].name in bridge:
        end += 1
    plan = scout.plan(session.scope)
    searchable = plan.hidden
    if style != "native" or not assembly.activation.active:
        return Surface(
            style=style,
            active=assembly.activation.active,
            head=head,
            bridge=tools[cut:end],
            loaded=tools[end:],
            deferred=(),
            searchable=searchable,
            assembly=assembly,
        )
    discovered: Sequence[str] = session.discovered
    if loaded_elsewhere is not None:
        discovered = [name for name in discovered if name not in loaded_elsewhere]
    carried: dict[str, ToolSpec] = {}
    for name in (*scout.settings.pre_discovered, *discovered, *assembly.presearched):
        tool = plan.scoped.get(name)
        if tool is not None and name in plan.deferred:
            carried.setdefault(name, tool)
    return Surface(
        style=style,
        active=True,
        head=head,
        bridge=(),
        loaded=tuple(carried.values()),
        deferred=tuple(tool for tool in searchable if tool.name not in carried),
        searchable=searchable,
        assembly=assembly,
    )


def surface_guidance(
    surface: Surface, session: ScoutSession, names: NameMap, *, hosted: bool, listing: bool = True
) -> str:
    """The system-prompt guidance for `surface`, naming tools as the provider sees them.

    Args:
        surface: The surface rendered.
        session: Its session (for the listing budget and token counter).
        names: The provider's name map.
        hosted: Native style: True when the provider runs the search, False when toolscout's
            ``tool_search`` does.
        listing: Native style: append the catalog listing (leave it out where the provider
            already shows the deferred tools' names).
    """
    if not surface.active:
        return ""
    scout = session.scout
    settings = scout.settings
    budget = settings.listing_budget_tokens if listing or surface.style != "native" else 0
    plan = scout.plan(session.scope)

    def listing_for_provider() -> Listing:
        if budget == settings.listing_budget_tokens and all(names.get(tool.name) == tool.name for tool in plan.hidden):
            return plan.listing  # the provider takes every name as it is
        return render_listing(plan.hidden, budget_tokens=budget, counter=scout.counter, names=names)

    rendered = plan.derived(("listing", names.rules, names.bridge, budget), listing_for_provider)
    bridge = settings.bridge_names
    if surface.style != "native":
        text = render_guidance(surface.style, rendered, bridge)
    else:
        text = Guidance.NATIVE_HOSTED if hosted else Guidance.native_client(bridge)
        if rendered.level != "none":
            where = Guidance.HOSTED_SEARCH if hosted else bridge.search
            text = f"{text}\n\n{Guidance.listing_header(where)}\n{rendered.text}"
    offered = surface.assembly.presearched
    if not offered:
        return text
    return f"{text}\n\n{Guidance.presearched(', '.join(names.to_provider(name) for name in offered))}"


def name_map(session: ScoutSession, rules: NameRules) -> NameMap:
    """The name map of `session`'s live catalog (plus the bridge tools) for a provider."""
    plan = session.scout.plan(session.scope)
    bridge = session.scout.settings.bridge_names
    key = (plan.catalog.fingerprint, rules, bridge)
    found = _NAME_MAPS.get(key)
    if found is None:
        found = NameMap([*(tool.name for tool in plan.catalog), *bridge.all], rules, bridge=bridge)
        with _NAME_MAPS_LOCK:
            _NAME_MAPS[key] = found
            while len(_NAME_MAPS) > _NAME_MAPS_CACHED:
                _NAME_MAPS.pop(next(iter(_NAME_MAPS)))
    return found


# Name maps depend on the catalog's names only: every scout and scope over one catalog shares them.
_NAME_MAPS: dict[tuple[str, NameRules, BridgeNames], NameMap] = {}
_NAME_MAPS_LOCK = threading.Lock()
_NAME_MAPS_CACHED = 32
