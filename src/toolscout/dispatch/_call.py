"""What dispatch produces: a resolved `ToolCall`, a `BridgeAnswer`, or a finished `ToolOutcome`."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TypeAlias

from .._types import JsonObject
from ..catalog import ToolSpec
from ._answers import BridgeRead
from ._errors import ToolError

__all__ = ["AfterCall", "BeforeCall", "BridgeAnswer", "Handler", "Resolution", "ToolCall", "ToolOutcome", "json_text"]

json_text = json.JSONEncoder(ensure_ascii=False, default=str).encode
"""``json.dumps(value, ensure_ascii=False, default=str)``, its encoder made once instead of on every call."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolCall:
    """A call of a real tool, as hooks, guardrails, approvals and logs see it.

    A bridged call (through ``tool_call``) is already unwrapped here: `name` and `arguments`
    are the real tool's, and the arguments passed schema validation.
    """

    session_id: str
    """The session making the call."""
    name: str
    """The real tool's name."""
    arguments: JsonObject
    """Validated arguments."""
    tool: ToolSpec
    """The tool's record."""
    bridged: bool
    """True when the model called it through ``tool_call``."""
    call_id: str | None = None
    """The provider's id for this call, if given."""


@dataclass(frozen=True, slots=True, kw_only=True)
class BridgeAnswer:
    """A bridge read (``tool_search`` / ``tool_describe``) that toolscout answered itself."""

    session_id: str
    """The session making the call."""
    name: str
    """The bridge tool called."""
    arguments: JsonObject
    """The arguments as parsed."""
    answer: BridgeRead
    """The answer, as a record (`content` is its JSON)."""
    revealed: tuple[str, ...] = ()
    """Tools newly discovered by this read (reveal style: sent in full from the next assembly)."""
    call_id: str | None = None
    """The provider's id for this call, if given."""

    @property
    def content(self) -> JsonObject:
        """The answer for the model, as JSON."""
        return self.answer.to_json()


Resolution: TypeAlias = ToolCall | BridgeAnswer | ToolError
"""What a model's tool call resolves to before anything runs."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolOutcome:
    """The finished result of one dispatched tool call."""

    name: str
    """The real tool (or the bridge tool, for searches and describes; the requested name on refusal)."""
    requested: str
    """The name the model called (``tool_call`` for bridged calls)."""
    arguments: JsonObject
    """The real tool's arguments (the raw ones on refusal, when they parsed)."""
    content: object
    """The handler's return value, the bridge answer, or the error's JSON."""
    error: ToolError | None = None
    """Set when the call was refused or the tool failed."""
    bridged: bool = False
    """True when the call came through ``tool_call``."""
    revealed: tuple[str, ...] = ()
    """Tools newly discovered by this call."""
    answer: BridgeRead | None = None
    """A search or describe answer as a record (`content` is its JSON); None for every other outcome."""
    latency_s: float = 0.0
    """Wall time spent in dispatch, hooks and the handler."""
    call_id: str | None = None
    """The provider's id for this call, if given."""
    _text: str | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def found(self) -> tuple[JsonObject, ...]:
        """The tools a search or describe answer lists, best first (``name``, ``description``, ...); else empty."""
        return () if self.answer is None else tuple(tool.to_json() for tool in self.answer.tools)

    @property
    def is_error(self) -> bool:
        """True when the model should see this result flagged as an error."""
        return self.error is not None

    @property
    def tool_reported_error(self) -> bool:
        """True when the tool ran and its result says it failed.

        That is an MCP result's ``isError`` (an object's ``is_error``, a dict's ``isError``), also when
        kept in an offload stub (``tool_reported_error``).
        """
        content = self.content
        if self.error is not None:
            return False
        if isinstance(content, Mapping):
            return content.get("isError") is True or content.get("tool_reported_error") is True
        return getattr(content, "is_error", False) is True

    def to_text(self) -> str:
        """The result as text for the model: strings pass through, anything else becomes JSON.

        Written once, by the first to ask (the activity log, a hook, the gateway), and kept: every later
        reader gets the same text.
        """
        text = self._text
        if text is None:
            content = self.content
            text = content if isinstance(content, str) else json_text(content)
            object.__setattr__(self, "_text", text)  # a cache of a frozen record, not a change of it
        return text


Handler: TypeAlias = Callable[[ToolCall], object]
"""Runs a tool. May be sync or async (return an awaitable); its return value is the result."""
BeforeCall: TypeAlias = Callable[[ToolCall], "str | None | Awaitable[str | None]"]
"""Runs before a real tool runs (guardrail, approval). Return a reason string to refuse the call."""
AfterCall: TypeAlias = Callable[[ToolOutcome], "None | Awaitable[None]"]
"""Runs after every dispatched call, bridge reads and refusals included."""
