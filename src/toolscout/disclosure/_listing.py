"""A compact, byte-stable listing of deferred tools for the system-prompt guidance.

The model must know what exists without seeing schemas. The listing is rendered at the
richest level that fits the token budget:

1. ``full``: per namespace, each tool with a one-line summary;
2. ``names``: per namespace, the tool names;
3. ``namespaces``: each namespace with its tool count;
4. ``count``: one line with the totals.

Output depends only on the set of tools (sorted by namespace, then name), so the bytes stay
identical while the catalog is unchanged, whatever order tools arrive in.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Literal, TypeAlias

from .._clipping import one_line, summary
from .._tokens import TokenCounter
from ..catalog import ToolSpec

__all__ = ["Listing", "ListingLevel", "render_listing"]

ListingLevel: TypeAlias = Literal["full", "names", "namespaces", "count", "none"]
_GENERAL = "general"
_SUMMARY_CHARS = 60
_PROBE_CHARS_PER_TOKEN = 16


@dataclass(frozen=True, slots=True, kw_only=True)
class Listing:
    """A rendered listing and the level it was rendered at."""

    text: str
    """The listing text (empty at level ``none``)."""
    level: ListingLevel
    """How detailed the listing is."""
    tokens: int
    """Its estimated size in tokens."""


def render_listing(
    tools: Iterable[ToolSpec],
    *,
    budget_tokens: int,
    counter: TokenCounter,
    names: Mapping[str, str] | None = None,
) -> Listing:
    """Render the richest listing of `tools` that fits `budget_tokens`.

    `names` maps a tool's name to the name to list it under (a provider's spelling); others keep theirs.
    """
    groups: dict[str, list[tuple[str, ToolSpec]]] = {}
    for tool in tools:
        name = tool.name if names is None else names.get(tool.name, tool.name)
        groups.setdefault(_namespace(tool.namespace or _GENERAL), []).append((name, tool))
    if not groups or budget_tokens <= 0:
        return Listing(text="", level="none", tokens=0)
    ordered = {key: sorted(groups[key], key=lambda item: item[0]) for key in sorted(groups)}
    total = sum(len(items) for items in ordered.values())
    for level, render in (("full", _full), ("names", _names), ("namespaces", _namespaces)):
        text = render(ordered)
        tokens = _tokens_within(text, budget_tokens, counter)
        if tokens is not None:
            return Listing(text=text, level=level, tokens=tokens)  # type: ignore[arg-type]  # literal from the tuple
    text = f"{total} tools in {len(ordered)} namespaces."
    return Listing(text=text, level="count", tokens=counter.count(text))


_Groups: TypeAlias = dict[str, list[tuple[str, ToolSpec]]]


def _full(groups: _Groups) -> str:
    lines: list[str] = []
    for namespace, tools in groups.items():
        lines.append(f"{namespace} ({len(tools)} tools):")
        for name, tool in tools:
            text = _summary(tool.description)
            lines.append(f"- {name}: {text}" if text else f"- {name}")
    return "\n".join(lines)


def _names(groups: _Groups) -> str:
    return "\n".join(
        f"{namespace} ({len(tools)} tools): {', '.join(name for name, _ in tools)}"
        for namespace, tools in groups.items()
    )


def _namespaces(groups: _Groups) -> str:
    return "; ".join(f"{namespace} ({len(tools)} tools)" for namespace, tools in groups.items())


def _tokens_within(text: str, budget: int, counter: TokenCounter) -> int | None:
    """`text`'s tokens when they fit `budget`, else None.

    A text far longer than the budget is first judged by a prefix cut after a line break: when the prefix
    alone is over, so is the text, and a listing of 10,000 tools is not counted whole three times a plan.
    """
    probe = _PROBE_CHARS_PER_TOKEN * (budget + 1)
    if len(text) > 2 * probe:
        cut = text.rfind("\n", 0, probe)
        if cut > 0 and counter.count(text[:cut]) > budget:
            return None
    tokens = counter.count(text)
    return tokens if tokens <= budget else None


@functools.lru_cache(maxsize=1024)
def _namespace(namespace: str) -> str:
    return one_line(namespace)


@functools.lru_cache(maxsize=1 << 16)
def _summary(description: str) -> str:
    """A description's listing line (cached: every plan of an unchanged catalog lists the same tools)."""
    return summary(description, _SUMMARY_CHARS)
