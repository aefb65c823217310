"""Dispatch: every tool call from the model, resolved (bridge unwrapped, scope and schema checked) and run."""

from ._answers import BridgeRead, FoundTool, LoadAnswer, NamespaceCount, SearchAnswer, ServerNotReady
from ._call import AfterCall, BeforeCall, BridgeAnswer, Handler, Resolution, ToolCall, ToolOutcome
from ._errors import ErrorCode, ToolError
from ._resolve import resolve_call
from ._run import ResultTransform, run_resolution

__all__ = [
    "AfterCall",
    "BeforeCall",
    "BridgeAnswer",
    "BridgeRead",
    "ErrorCode",
    "FoundTool",
    "Handler",
    "LoadAnswer",
    "NamespaceCount",
    "Resolution",
    "resolve_call",
    "ResultTransform",
    "run_resolution",
    "SearchAnswer",
    "ServerNotReady",
    "ToolCall",
    "ToolError",
    "ToolOutcome",
]
