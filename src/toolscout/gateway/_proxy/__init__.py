"""What the gateway offers downstream besides search: upstream resources and prompts, capabilities, wire shapes."""

from __future__ import annotations

from ._capabilities import offered_capabilities
from ._prompts import PromptProxy
from ._resources import ResourceProxy
from ._wire import call_result, mcp_tool, upstream_result

__all__ = [
    "call_result",
    "mcp_tool",
    "offered_capabilities",
    "PromptProxy",
    "ResourceProxy",
    "upstream_result",
]
