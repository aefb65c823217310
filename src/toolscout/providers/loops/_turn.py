"""What an agent-loop helper returns for one user turn."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from ...dispatch._call import ToolOutcome
from .._auto import StyleChoice

__all__ = ["TurnResult", "call_sdk"]


@dataclass(frozen=True, slots=True, kw_only=True)
class TurnResult:
    """The end of one user turn."""

    text: str
    """The model's final text (the last text it wrote when the step limit stopped the turn)."""
    messages: list[object]
    """The conversation after the turn, as JSON: pass it as the next turn's messages."""
    steps: int
    """How many model requests the turn took."""
    outcomes: tuple[ToolOutcome, ...]
    """Every tool call dispatched in the turn, in order."""
    stopped: Literal["answer", "step_limit"]
    """Why the turn ended: the model answered without calling tools, or the step limit was reached."""
    choice: StyleChoice
    """The disclosure style used, and why."""


async def call_sdk(create: Callable[..., object], request: dict[str, object]) -> object:
    """Call an SDK ``create`` method, sync or async, with `request` as keyword arguments."""
    response = create(**request)
    if inspect.isawaitable(response):
        response = await response
    return response
