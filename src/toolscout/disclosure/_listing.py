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

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal, TypeAlias

from .._clipping import one_line, summary
from .._tokens import TokenCounter
from ..catalog import ToolSpec

__all__ = ["Listing", "ListingLevel", "render_listing"]

ListingLevel: TypeAlias = Literal["full", "names", "namespaces", "count", "none"]
_GENERAL = "general"
_SUMMARY_CHARS = 60


@dataclass(frozen=True, slots=True, kw_only=True)
class Listing:
    """A rendered listing and the level it was rendered at."""

    text: str
    """The listing text (empty at level ``none``)."""
    level: ListingLevel
    """How detailed the listing is."""
    tokens: int
    """Its estimated size in tokens."""


def render_listing(tools: Iterable[ToolSpec], *, budget_tokens: int, counter: TokenCounter) -> Listing:
    """Render the richest listing of `tools` that fits `budget_tokens`."""
    groups: dict[str, list[ToolSpec]] = {}
    for tool in tools:
        groups.setdefault(one_line(tool.namespace or _GENERAL), []).append(tool)
    if not groups or budget_tokens <= 0:
        return Listing(text="", level="none", tokens=0)
    ordered = {key: sorted(groups[key], key=lambda tool: tool.name) for key in sorted(groups)}
    total = sum(len(items) for items in ordered.values())
    for level, render in (("full", _full), ("names", _names), ("namespaces", _namespaces)):
        text = render(ordered)
        tokens = counter.count(text)
        if tokens <= budget_tokens:
            return Listing(text=text, level=level, tokens=tokens)  # type: ignore[arg-type]  # literal from the tuple
    text = f"{total} tools in {len(ordered)} namespaces."
    return Listing(text=text, level="count", tokens=counter.count(text))


def _full(groups: dict[str, list[ToolSpec]]) -> str:
    lines: list[str] = []
    for namespace, tools in groups.items():
        lines.append(f"{namespace} ({len(tools)} tools):")
        for tool in tools:
            text = summary(tool.description, _SUMMARY_CHARS)
            lines.append(f"- {tool.name}: {text}" if text else f"- {tool.name}")
    return "\n".join(lines)


def _names(groups: dict[str, list[ToolSpec]]) -> str:
    return "\n".join(
        f"{namespace} ({len(tools)} tools): {', '.join(tool.name for tool in tools)}"
        for namespace, tools in groups.items()
    )


def _namespaces(groups: dict[str, list[ToolSpec]]) -> str:
    return "; ".join(f"{namespace} ({len(tools)} tools)" for namespace, tools in groups.items())
