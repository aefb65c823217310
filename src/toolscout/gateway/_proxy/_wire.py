"""Between toolscout's records and the MCP wire: `ToolSpec` → `Tool`, `ToolOutcome` → `CallToolResult`.

An upstream's result is made the client's (`upstream_result`) when it comes back, before dispatch's observers see it.
"""

from __future__ import annotations

from mcp_types import SERVER_INFO_META_KEY, CallToolResult, TextContent, Tool, ToolAnnotations

from ..._settings import BridgeNames
from ...catalog import ToolSpec
from ...dispatch import ToolOutcome
from ...offload._internal import OFFLOAD_NAMES
from ._resources import namespaced_blocks

__all__ = ["call_result", "mcp_tool", "upstream_result"]

# The bridge reads only look into the catalog, the offload tools into stored outputs: claiming
# that is true. tool_call runs any tool, so it claims nothing and clients assume the worst.
_BRIDGE_READ = ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False)


def mcp_tool(spec: ToolSpec, bridge: BridgeNames, *, offloading: bool = False) -> Tool:
    """The MCP definition of `spec` (`bridge`: the bridge tools' names); an upstream's annotations pass through.

    While results may be offloaded, no output schema is sent: a stub has no structured
    content, and clients reject a result without it for a tool that declares one.
    """
    if spec.name in (bridge.search, bridge.describe, *OFFLOAD_NAMES) and spec.namespace is None:
        annotations: ToolAnnotations | None = _BRIDGE_READ
    else:
        annotations = ToolAnnotations.model_validate(spec.annotations) if spec.annotations is not None else None
    return Tool(
        name=spec.name,
        title=spec.title,
        description=spec.description,
        input_schema=spec.parameters,
        output_schema=None if offloading else spec.output_schema,
        annotations=annotations,
    )


def upstream_result(server: str, result: CallToolResult) -> CallToolResult:
    """An upstream's tool result as the client gets it: its resources named through the gateway, no server stamp.

    The executor returns it so, before dispatch's hooks and the activity log see the call.
    """
    update: dict[str, object] = {"content": namespaced_blocks(server, result.content)}
    if result.meta and SERVER_INFO_META_KEY in result.meta:
        # The upstream's identity stamp would claim the gateway is that server.
        update["meta"] = {key: value for key, value in result.meta.items() if key != SERVER_INFO_META_KEY} or None
    return result.model_copy(update=update)


def call_result(outcome: ToolOutcome) -> CallToolResult:
    """The result the client gets: an upstream's result as the executor returned it, anything else as JSON text."""
    content = outcome.content
    if isinstance(content, CallToolResult):
        return content
    # An offloaded result is a stub dict; it keeps the upstream's own error flag.
    return _text(outcome.to_text(), is_error=outcome.is_error or outcome.tool_reported_error)


def _text(text: str, *, is_error: bool) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=is_error)
