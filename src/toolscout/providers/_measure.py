"""How big a rendered request is: bytes on the wire, and what the model actually reads up front.

Native deferred loading sends every definition but keeps deferred ones out of the model's
context: Anthropic hides a deferred tool completely until it is loaded; OpenAI's hosted search
shows a deferred function's name and description, and only the name and description of a
namespace. `context_tokens` estimates that visible part; `request_tokens` counts the whole
toolscout-owned part of the request.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass

from .._tokens import TokenCounter
from ._calls import Rendering
from ._registry import get_provider

__all__ = ["PayloadSize", "measure_rendering"]


@dataclass(frozen=True, slots=True, kw_only=True)
class PayloadSize:
    """Token counts of one rendering (tools array plus guidance)."""

    request_tokens: int
    """Tokens of the request fields as sent (deferred definitions included)."""
    context_tokens: int
    """Tokens the model reads before any search (deferred definitions left out as the provider does)."""
    declared: int
    """Function tools declared (namespace members counted, search tools not)."""
    deferred: int
    """Of those, how many are declared deferred."""


def measure_rendering(rendering: Rendering[object], counter: TokenCounter) -> PayloadSize:
    """Measure `rendering` with `counter`."""
    fields = rendering.fields if isinstance(rendering.fields, Mapping) else {}
    visible: dict[str, object] = dict(fields)
    tools = fields.get("tools")
    declared = deferred = 0
    if isinstance(tools, list):
        shown: list[object] = []
        for tool in tools:
            if not isinstance(tool, Mapping):
                continue
            members = [item for item in tool.get("tools", ()) if isinstance(item, Mapping)]
            if tool.get("type") == "namespace":
                declared += len(members)
                deferred += sum(1 for item in members if item.get("defer_loading"))
                shown.append({key: tool[key] for key in ("type", "name", "description") if key in tool})
                continue
            declarations = tool.get("functionDeclarations")
            if isinstance(declarations, list):
                declared += len(declarations)
            elif tool.get("type") == "function" or "input_schema" in tool:
                declared += 1
            if not tool.get("defer_loading"):
                shown.append(tool)
                continue
            deferred += 1
            if get_provider(rendering.provider).deferred_summaries:
                shown.append({key: tool[key] for key in ("type", "name", "description") if key in tool})
        visible["tools"] = shown
    return PayloadSize(
        request_tokens=counter.count(json.dumps(fields, ensure_ascii=False)),
        context_tokens=counter.count(json.dumps(visible, ensure_ascii=False)),
        declared=declared,
        deferred=deferred,
    )
