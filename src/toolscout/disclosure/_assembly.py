"""Assemble the tools array and guidance for one turn.

Array order is always: core tools (then toolscout's own offload tools, when given), other
tools sent in full, auto-pinned tools (those the learning scope keeps calling), the bridge tools,
then discovered tools in discovery order (pre-discovered first). Discoveries only append, so the
array's prefix stays byte-stable across a session (auto-pinned tools change only when the scope's use
does). Stubs (reveal style with ``reveal_stubs``) come last, after the discovered tools.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar, cast

from .._clipping import clip, one_line
from .._policy import Activation, Classification, classify, decide_activation
from .._scope import Scope
from .._settings import BridgeNames, ScoutSettings, Style
from .._texts import Bridge, Guidance
from .._tokens import TokenCounter
from .._types import JsonObject
from ..catalog import Catalog, ToolSpec
from ._bridge import bridge_tools
from ._collisions import deconflict
from ._guidance import render_guidance
from ._listing import Listing, render_listing

__all__ = ["ASSEMBLY_ONLY_SETTINGS", "Assembly", "TurnPlan", "assemble", "plan_turn", "plans_alike"]

_STUB_DESCRIPTION_CHARS = 200
_T = TypeVar("_T")


@dataclass(frozen=True, slots=True, kw_only=True)
class TurnPlan:
    """Everything decided about one turn before rendering: the scoped catalog and its policy.

    The name sets are computed once per plan (a plan is cached per catalog and scope), so rendering a
    turn costs time linear in the catalog, however often it asks.
    """

    catalog: Catalog
    """The live catalog, bridge tools removed and tools named like one renamed (the full catalog, not scoped)."""
    scoped: Catalog
    """The part of `catalog` the session may use."""
    classification: Classification
    """The scoped catalog split by policy."""
    activation: Activation
    """Whether deferral is active, and which tools are deferred."""
    listing: Listing
    """The catalog listing of the deferred tools (rendered once per plan: it depends on nothing else)."""
    search_listing: Listing = Listing(text="", level="none", tokens=0)
    """The listing appended to the search tool's description (``search_listing_tokens``)."""
    deferred: frozenset[str] = field(init=False)
    """Names deferred this turn."""
    hidden: tuple[ToolSpec, ...] = field(init=False)
    """The deferred tools, in catalog order (what the listing lists and searches find)."""
    core: frozenset[str] = field(init=False)
    """Names of the core tools (a scope never removes them)."""
    pinned: frozenset[str] = field(init=False)
    """Names of the pinned (never deferred) tools in scope: always in the array, called directly."""
    _derived: dict[Hashable, object] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        deferred = frozenset(self.activation.deferred)
        object.__setattr__(self, "deferred", deferred)
        object.__setattr__(self, "hidden", tuple(tool for tool in self.scoped if tool.name in deferred))
        object.__setattr__(self, "core", frozenset(tool.name for tool in self.classification.core))
        object.__setattr__(self, "pinned", frozenset(tool.name for tool in self.classification.pinned))
        object.__setattr__(self, "_derived", {})

    def derived(self, key: Hashable, build: Callable[[], _T]) -> _T:
        """What `build` computes from this plan, computed once per `key` (provider name maps, listings)."""
        try:
            return cast(_T, self._derived[key])
        except KeyError:
            value = self._derived[key] = build()
            return value


@dataclass(frozen=True, slots=True, kw_only=True)
class Assembly:
    """The tools array and guidance for one turn."""

    tools: tuple[ToolSpec, ...]
    """The tools to send, in array order, as `ToolSpec` records (`definitions` is the JSON-ready form)."""
    guidance: str
    """System-prompt text for the disclosure style ("" when nothing is deferred)."""
    style: Style
    """The disclosure style used."""
    activation: Activation
    """Why deferral is (in)active this turn."""
    discovered: tuple[str, ...]
    """Deferred tools sent in full because they were (pre-)discovered, in discovery order."""
    presearched: tuple[str, ...] = ()
    """Deferred tools sent in full this turn only, because a search of the user's message was confident in them
    (after the discovered ones; never stored as discoveries)."""
    auto_pinned: tuple[str, ...] = ()
    """Deferred tools sent in full from the first turn, as pinned tools are, because the session's learning scope
    keeps calling them (``learning.auto_pin_*``); before the bridge tools."""
    listing: Listing
    """The catalog listing embedded in the guidance."""
    stubs: tuple[str, ...] = ()
    """Tools sent as name + description stubs (reveal style with stubs): listed, but their schema not loaded."""

    @property
    def names(self) -> tuple[str, ...]:
        """The names in the tools array, in order."""
        return tuple(tool.name for tool in self.tools)

    @property
    def definitions(self) -> list[JsonObject]:
        """The tools array as JSON-ready ``{name, description, parameters}`` objects (`ToolSpec.to_definition`).

        A provider's own request shape (OpenAI, Anthropic, Gemini) is `toolscout.providers`' ``render``.
        """
        return [tool.to_definition() for tool in self.tools]

    @property
    def loaded(self) -> frozenset[str]:
        """The tools the model has with their full schema this turn (the array minus the stubs)."""
        return frozenset(self.names).difference(self.stubs)


ASSEMBLY_ONLY_SETTINGS = frozenset({"style", "reveal_stubs", "pre_discovered", "presearch"})
"""The settings only `assemble` reads: `plan_turn` plans alike for settings that differ in nothing else."""


def plans_alike(one: ScoutSettings, other: ScoutSettings) -> bool:
    """Whether `plan_turn` plans every catalog, core and scope alike under `one` and `other`."""
    exclude = set(ASSEMBLY_ONLY_SETTINGS)
    return one.model_dump(exclude=exclude) == other.model_dump(exclude=exclude)


def plan_turn(
    catalog: Catalog,
    *,
    core: frozenset[str],
    settings: ScoutSettings,
    counter: TokenCounter,
    scope: Scope,
    context_overrides: dict[str, int] | None = None,
) -> TurnPlan:
    """Classify the live catalog for one turn and decide activation.

    A catalog tool named like a bridge tool is renamed (`deconflict`; `ToolScout` does it when the
    catalog is set, and reports it).
    """
    live = deconflict(catalog, settings.bridge_names).catalog
    scoped = scope.filter(live, keep=core)
    classification = classify(scoped, core=core, never_defer=settings.never_defer)
    activation = decide_activation(classification, settings, counter, context_overrides=context_overrides)
    deferred = frozenset(activation.deferred)
    hidden = [tool for tool in scoped if tool.name in deferred]
    listing = render_listing(hidden, budget_tokens=settings.listing_budget_tokens, counter=counter)
    search_listing = render_listing(hidden, budget_tokens=settings.search_listing_tokens, counter=counter)
    return TurnPlan(
        catalog=live,
        scoped=scoped,
        classification=classification,
        activation=activation,
        listing=listing,
        search_listing=search_listing,
    )


def assemble(
    plan: TurnPlan,
    *,
    settings: ScoutSettings,
    discovered: Sequence[str] = (),
    own_tools: Sequence[ToolSpec] = (),
    presearched: Sequence[str] = (),
    auto_pinned: Sequence[str] = (),
) -> Assembly:
    """Render the tools array and guidance for `plan`, given the session's discoveries.

    `auto_pinned` (deferred tools the learning scope keeps calling) are sent in full right after the tools
    sent in full, before the bridge tools; a name not deferred in `plan` (out of scope, or listed already) is
    left out.
    `presearched` (deferred tools a search of the user's message found) are sent in full after the
    discovered tools, for this turn, and the guidance names them in one line. `own_tools` (toolscout's
    offload tools) are listed like core tools: right after the core tools while deferral is active,
    after the catalog's tools while it is not.
    """
    activation = plan.activation
    if not activation.active:
        return Assembly(
            tools=(*plan.scoped.tools, *own_tools),
            guidance="",
            style=settings.style,
            activation=activation,
            discovered=(),
            listing=Listing(text="", level="none", tokens=0),
        )
    deferred = plan.deferred
    in_full = plan.derived(
        "in full",
        lambda: tuple(tool for tool in plan.scoped if tool.name not in deferred and tool.name not in plan.core),
    )
    pins = {name: plan.scoped[name] for name in auto_pinned if name in deferred}
    first = [*plan.classification.core, *own_tools, *in_full, *pins.values()]
    shown_order = list(settings.pre_discovered)
    if settings.style == "reveal":
        shown_order += discovered
    shown: dict[str, ToolSpec] = {}
    for name in shown_order:
        tool = plan.scoped.get(name)
        if tool is not None and name in deferred and name not in shown and name not in pins:
            shown[name] = tool
    offered: list[str] = []
    for name in presearched:
        tool = plan.scoped.get(name)
        if tool is not None and name in deferred and name not in shown and name not in pins:
            shown[name] = tool
            offered.append(name)
    names = settings.bridge_names
    bridge = bridge_tools(settings.style, names, reveal_call=settings.reveal_call_tool)
    if plan.search_listing.level != "none":
        described = f"{bridge[0].description}\n\n{Bridge.LISTING_HEADER}\n{plan.search_listing.text}"
        bridge = (dataclasses.replace(bridge[0], description=described), *bridge[1:])
    tools = [*first, *bridge, *shown.values()]
    stubs: list[ToolSpec] = []
    if settings.style == "reveal" and settings.reveal_stubs:
        every = plan.derived(("stubs", names), lambda: tuple(_stub(tool, names) for tool in plan.hidden))
        stubs = [stub for stub in every if stub.name not in shown and stub.name not in pins]
    tools += stubs
    guidance = render_guidance(settings.style, plan.listing, names)
    if offered:
        guidance = f"{guidance}\n\n{Guidance.presearched(', '.join(offered))}"
    return Assembly(
        tools=tuple(tools),
        guidance=guidance,
        style=settings.style,
        activation=activation,
        discovered=tuple(name for name in shown if name not in offered),
        listing=plan.listing,
        stubs=tuple(tool.name for tool in stubs),
        presearched=tuple(offered),
        auto_pinned=tuple(pins),
    )


def _stub(tool: ToolSpec, names: BridgeNames) -> ToolSpec:
    description = clip(one_line(tool.description), _STUB_DESCRIPTION_CHARS) + Bridge.stub_note(names)
    return ToolSpec(
        name=tool.name,
        description=description.strip(),
        namespace=tool.namespace,
        title=tool.title,
        annotations=tool.annotations,
        defer=tool.defer,
    )
