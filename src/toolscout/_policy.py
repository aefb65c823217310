"""Deferral policy: which tools may be deferred, and whether deferral is active this turn."""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Set
from dataclasses import dataclass

from ._context_windows import context_window
from ._settings import DeferralMode, ScoutSettings
from ._tokens import TokenCounter, tool_tokens
from .catalog import Catalog, ToolSpec

__all__ = ["Activation", "Classification", "classify", "decide_activation"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Classification:
    """A catalog split by deferral policy (each part in catalog order)."""

    core: tuple[ToolSpec, ...]
    """Core tools: never deferred, by construction."""
    pinned: tuple[ToolSpec, ...]
    """Tools whose policy or the never-defer list keeps them in full."""
    deferrable: tuple[ToolSpec, ...]
    """Tools that may be deferred (`auto` and `always` policy)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Activation:
    """Whether deferral is active for one assembly, and why."""

    active: bool
    """True when some tools are deferred this turn."""
    mode: DeferralMode
    """The configured mode."""
    reason: str
    """One sentence saying why deferral is (in)active."""
    deferred: tuple[str, ...]
    """Names deferred this turn, in catalog order."""
    deferrable_count: int
    """How many tools may be deferred."""
    deferrable_tokens: int
    """Estimated tokens of the deferrable tools' definitions."""
    threshold_tokens: int | None
    """`auto`: the token threshold in force (None in other modes)."""
    threshold_tools: int | None
    """`auto`: the tool-count threshold in force."""
    context_window: int | None
    """The model's context window used for the threshold, when known."""
    token_counter: str
    """Which token estimate was used (``chars/4`` or a tokenizer name)."""


def classify(catalog: Catalog, *, core: Set[str], never_defer: Iterable[str] = ()) -> Classification:
    """Split `catalog` into core, pinned and deferrable tools."""
    patterns = tuple(never_defer)
    core_tools: list[ToolSpec] = []
    pinned: list[ToolSpec] = []
    deferrable: list[ToolSpec] = []
    for tool in catalog:
        if tool.name in core:
            core_tools.append(tool)
        elif tool.defer == "never" or any(fnmatch.fnmatchcase(tool.name, pattern) for pattern in patterns):
            pinned.append(tool)
        else:
            deferrable.append(tool)
    return Classification(core=tuple(core_tools), pinned=tuple(pinned), deferrable=tuple(deferrable))


def decide_activation(
    classification: Classification,
    settings: ScoutSettings,
    counter: TokenCounter,
    *,
    context_overrides: dict[str, int] | None = None,
) -> Activation:
    """Decide, afresh, which deferrable tools are deferred this turn.

    `off` defers nothing. `on` defers every deferrable tool. `auto` defers tools with the
    `always` policy, and every deferrable tool once their definitions reach
    `threshold_pct` of the model's context window (or `fallback_threshold_tokens` when the
    window is unknown) or their count reaches `threshold_tools`; a threshold set to None
    never decides.
    """
    tools = classification.deferrable
    tokens = sum(tool_tokens(tool, counter) for tool in tools)
    window = settings.context_window or context_window(settings.model, context_overrides)

    def result(active: bool, reason: str, deferred: tuple[str, ...], threshold: int | None) -> Activation:
        return Activation(
            active=active,
            mode=settings.mode,
            reason=reason,
            deferred=deferred,
            deferrable_count=len(tools),
            deferrable_tokens=tokens,
            threshold_tokens=threshold,
            threshold_tools=settings.threshold_tools if settings.mode == "auto" else None,
            context_window=window,
            token_counter=counter.name,
        )

    if settings.mode == "off":
        return result(False, "tool search is off", (), None)
    if not tools:
        return result(False, "no tool is deferrable", (), None)
    every = tuple(tool.name for tool in tools)
    if settings.mode == "on":
        return result(
            True, f"tool search is on: {len(tools)} deferrable tools (~{tokens} tokens) are deferred", every, None
        )
    threshold: int | None = None
    below: list[str] = []
    if settings.threshold_pct is not None:
        threshold = (
            int(window * settings.threshold_pct / 100) if window is not None else settings.fallback_threshold_tokens
        )
        basis = (
            f"{settings.threshold_pct:g}% of a {window}-token context window"
            if window is not None
            else "the fallback for an unknown context window"
        )
        if tokens >= threshold:
            why = f"auto: ~{tokens} tokens of deferrable schemas reach the threshold of {threshold} ({basis})"
            return result(True, why, every, threshold)
        below.append(f"~{tokens} tokens of deferrable schemas are below the threshold of {threshold} ({basis})")
    if settings.threshold_tools is not None:
        if len(tools) >= settings.threshold_tools:
            why = f"auto: {len(tools)} deferrable tools reach the tool-count threshold of {settings.threshold_tools}"
            return result(True, why, every, threshold)
        below.append(f"{len(tools)} tools are below the tool-count threshold of {settings.threshold_tools}")
    below_text = "auto: " + (
        " and ".join(below) if below else "no threshold is set (threshold_pct and threshold_tools are null)"
    )
    always = tuple(tool.name for tool in tools if tool.defer == "always")
    if always:
        why = f"{below_text}; the {len(always)} tools with policy 'always' are deferred"
        return result(True, why, always, threshold)
    return result(False, below_text, (), threshold)
