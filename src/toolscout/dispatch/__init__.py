"""Dispatch: every tool call from the model, resolved (bridge unwrapped, scope and schema checked) and run."""

from ._answers import FoundTool, LoadAnswer, NamespaceCount, SearchAnswer
from ._call import AfterCall, BeforeCall, BridgeAnswer, Handler, ToolCall, ToolOutcome
from ._errors import ErrorCode, ToolError

__all__ = [
    "AfterCall",
    "BeforeCall",
    "BridgeAnswer",
    "ErrorCode",
    "FoundTool",
    "Handler",
    "LoadAnswer",
    "NamespaceCount",
    "SearchAnswer",
    "ToolCall",
    "ToolError",
    "ToolOutcome",
]
