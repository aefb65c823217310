"""Token cost of a catalog with and without deferral (what `toolscout inspect` reports)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass

from ._scope import Scope
from ._settings import ScoutSettings, Style
from ._tokens import TokenCounter, tool_tokens
from ._types import JsonObject
from .catalog import Catalog, ToolSpec
from .disclosure import Assembly
from .disclosure._internal import assemble, plan_turn
from .offload import OffloadSettings
from .offload._internal import offload_tools

__all__ = ["CostReport", "NamespaceCost", "measure_cost"]


@dataclass(frozen=True, slots=True, kw_only=True)
class NamespaceCost:
    """The cost of one namespace's tools."""

    namespace: str | None
    """The namespace (None: tools without one)."""
    tools: int
    """How many tools it has."""
    full_tokens: int
    """Tokens of its tools' full definitions."""


@dataclass(frozen=True, slots=True, kw_only=True)
class CostReport:
    """First-turn token cost of a catalog under each disclosure style."""

    tools: int
    """Tools in the catalog."""
    full_tokens: int
    """Tokens of every tool definition sent in full (no deferral)."""
    bridge_tokens: int
    """Tokens of the first-turn tools array in bridge style (core tools + the three bridge tools)."""
    reveal_tokens: int
    """Tokens of the first-turn tools array in reveal style with deferred tools hidden."""
    stub_tokens: int
    """Tokens of the first-turn tools array in reveal style with name + description stubs."""
    guidance_tokens: int
    """Tokens of the bridge-style system-prompt guidance (catalog listing included)."""
    listing_level: str
    """How detailed the guidance's catalog listing is within its budget."""
    counter: str
    """The token estimate used."""
    namespaces: tuple[NamespaceCost, ...]
    """Per-namespace cost, largest first."""
    offload_budget_tokens: int | None = None
    """Results costing more than this many tokens are offloaded (None: offloading is off)."""
    offload_tools_tokens: int = 0
    """Tokens the offload tools add to every turn's tools array while offloading is on."""

    @property
    def saving(self) -> float:
        """Bridge style's first-turn saving on the tools array, as a fraction of `full_tokens`."""
        return 1 - self.bridge_tokens / self.full_tokens if self.full_tokens else 0.0

    def to_json(self) -> JsonObject:
        """The report as JSON (keys: tools, full_tokens, bridge_tokens, stub_tokens, saving, ...)."""
        data = dataclasses.asdict(self)
        data["saving"] = round(self.saving, 4)
        data["saving_with_guidance"] = (
            round(1 - (self.bridge_tokens + self.guidance_tokens) / self.full_tokens, 4) if self.full_tokens else 0.0
        )
        data["namespaces"] = [dataclasses.asdict(item) for item in self.namespaces]
        return data


def measure_cost(
    catalog: Catalog,
    *,
    core: Iterable[str] = (),
    settings: ScoutSettings | None = None,
    counter: TokenCounter,
    offload: OffloadSettings | None = None,
) -> CostReport:
    """Measure the first-turn cost of `catalog` sent in full and in each style (deferral forced on).

    `offload` (default: `OffloadSettings()`) gives the reported offload budget.
    """
    offload = offload or OffloadSettings()
    base = (settings or ScoutSettings()).model_copy(update={"mode": "on", "pre_discovered": ()})
    core_names = frozenset(core)

    plan = plan_turn(catalog, core=core_names, settings=base, counter=counter, scope=Scope())

    def first_turn(style: Style, stubs: bool) -> Assembly:
        # Style and stubs shape only the assembly (`ASSEMBLY_ONLY_SETTINGS`): one plan serves all three.
        return assemble(plan, settings=base.model_copy(update={"style": style, "reveal_stubs": stubs}))

    bridge = first_turn("bridge", False)
    groups: dict[str | None, list[ToolSpec]] = {}
    for tool in catalog:
        groups.setdefault(tool.namespace, []).append(tool)
    namespaces = sorted(
        (
            NamespaceCost(namespace=name, tools=len(tools), full_tokens=_tokens(tools, counter))
            for name, tools in groups.items()
        ),
        key=lambda item: (-item.full_tokens, item.namespace or ""),
    )
    return CostReport(
        tools=len(catalog),
        full_tokens=_tokens(catalog, counter),
        bridge_tokens=_tokens(bridge.tools, counter),
        reveal_tokens=_tokens(first_turn("reveal", False).tools, counter),
        stub_tokens=_tokens(first_turn("reveal", True).tools, counter),
        guidance_tokens=counter.count(bridge.guidance),
        listing_level=bridge.listing.level,
        counter=counter.name,
        namespaces=tuple(namespaces),
        offload_budget_tokens=offload.budget_tokens if offload.enabled else None,
        offload_tools_tokens=_tokens(offload_tools(), counter) if offload.enabled else 0,
    )


def _tokens(tools: Iterable[ToolSpec], counter: TokenCounter) -> int:
    return sum(tool_tokens(tool, counter) for tool in tools)
