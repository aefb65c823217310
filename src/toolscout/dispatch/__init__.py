"""Dispatch: every tool call from the model, resolved (bridge unwrapped, scope and schema checked) and run."""

from ._call import AfterCall, BeforeCall, BridgeAnswer, Handler, Resolution, ToolCall, ToolOutcome
from ._errors import ErrorCode, ToolError
from ._resolve import resolve_call
from ._run import ResultTransform, run_resolution

__all__ = [
    "AfterCall",
    "BeforeCall",
    "BridgeAnswer",
    "ErrorCode",
    "Handler",
    "Resolution",
    "resolve_call",
    "ResultTransform",
    "run_resolution",
    "ToolCall",
    "ToolError",
    "ToolOutcome",
]
