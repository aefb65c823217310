"""Between toolscout's records and the MCP wire: `ToolSpec` → `Tool`, `ToolOutcome` → `CallToolResult`."""

from __future__ import annotations

from mcp_types import SERVER_INFO_META_KEY, CallToolResult, TextContent, Tool, ToolAnnotations

from ..._settings import BridgeNames
from ...catalog import ToolSpec
from ...dispatch import ToolOutcome
from ...offload._internal import OFFLOAD_NAMES

__all__ = ["call_result", "mcp_tool"]

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


def call_result(outcome: ToolOutcome) -> CallToolResult:
    """The result the client gets: an upstream's own result unchanged, anything else as JSON text."""
    content = outcome.content
    if isinstance(content, CallToolResult):
        if content.meta and SERVER_INFO_META_KEY in content.meta:
            # The upstream's identity stamp would claim the gateway is that server.
            meta = {key: value for key, value in content.meta.items() if key != SERVER_INFO_META_KEY}
            return content.model_copy(update={"meta": meta or None})
        return content
    # An offloaded result is a stub dict; it keeps the upstream's own error flag.
    return _text(outcome.to_text(), is_error=outcome.is_error or outcome.tool_reported_error)


def _text(text: str, *, is_error: bool) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=is_error)
