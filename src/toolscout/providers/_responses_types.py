"""OpenAI Responses request and input-item payloads, as TypedDicts mirroring the SDK's param types."""

from __future__ import annotations

from typing import Literal, Required, TypeAlias, TypedDict

from .._types import JsonObject

__all__ = [
    "FunctionCallOutput",
    "Namespace",
    "ResponsesFields",
    "ResponsesFunction",
    "ResponsesTool",
    "ToolSearch",
    "ToolSearchOutput",
]


class ResponsesFunction(TypedDict, total=False):
    """A function tool (``FunctionToolParam``, or a namespace member)."""

    type: Required[Literal["function"]]
    name: Required[str]
    description: str
    parameters: Required[JsonObject]
    strict: Required[bool]
    defer_loading: bool


class Namespace(TypedDict):
    """A ``namespace`` tool grouping one server's functions (``NamespaceToolParam``)."""

    type: Literal["namespace"]
    name: str
    description: str
    tools: list[ResponsesFunction]


class ToolSearch(TypedDict, total=False):
    """The ``tool_search`` tool (``ToolSearchToolParam``)."""

    type: Required[Literal["tool_search"]]
    execution: Literal["server", "client"]
    description: str
    parameters: JsonObject


ResponsesTool: TypeAlias = ResponsesFunction | Namespace | ToolSearch


class ResponsesFields(TypedDict, total=False):
    """The request fields toolscout sets: ``tools`` and ``instructions``."""

    tools: list[ResponsesTool]
    instructions: str


class FunctionCallOutput(TypedDict):
    """A ``function_call_output`` input item."""

    type: Literal["function_call_output"]
    call_id: str
    output: str


class ToolSearchOutput(TypedDict):
    """A client ``tool_search_output`` input item with the loaded definitions."""

    type: Literal["tool_search_output"]
    execution: Literal["client"]
    call_id: str | None
    status: Literal["completed"]
    tools: list[ResponsesFunction]
