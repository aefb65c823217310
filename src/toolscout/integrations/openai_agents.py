"""OpenAI Agents SDK: function tools over one `ScoutSession` (extra ``toolscout[openai-agents]``).

```python
from agents import Agent
from toolscout.integrations.openai_agents import scout_instructions, scout_tools

session = scout.session("chat-1")
agent = Agent(name="assistant", instructions=scout_instructions(session), tools=scout_tools(session))
```

The SDK keeps an agent's tool list fixed for a run, so every tool the session could be offered
is one `FunctionTool` whose ``is_enabled`` asks the session's current turn: the SDK checks it
before every model request, which makes the reveal style work (a tool found with
``tool_search`` is enabled from the next request on). Every call goes through
`ScoutSession.dispatch`; refusals come back to the model as structured error text. Call
`scout_tools` again after the catalog changes (`ToolScout.set_tools`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agents import AgentBase, FunctionTool, RunContextWrapper, Tool
from agents.tool_context import ToolContext

from .._scout import ScoutSession
from ..catalog import ToolSpec
from ..disclosure._bridge import bridge_tools
from ..providers import OPENAI_NAMES, provider_name

__all__ = ["scout_instructions", "scout_tools"]


class _Offered:
    """The names the session offers this turn, recomputed only when its discoveries change."""

    def __init__(self, session: ScoutSession) -> None:
        self._session = session
        self._key: tuple[str, tuple[str, ...]] | None = None
        self._names: frozenset[str] = frozenset()

    def names(self) -> frozenset[str]:
        key = (self._session.scout.catalog.fingerprint, self._session.discovered)
        if key != self._key:
            self._names = frozenset(self._session.assemble().names)
            self._key = key
        return self._names


def scout_tools(session: ScoutSession) -> list[Tool]:
    """One `FunctionTool` per tool `session` may be offered, enabled while its turn offers it."""
    offered = _Offered(session)
    scout = session.scout
    own = scout.offload.tools if scout.offload is not None else ()
    bridge = bridge_tools(scout.settings.style, scout.settings.bridge_names)
    candidates = {tool.name: tool for tool in (*own, *bridge, *scout.catalog)}
    return [_function_tool(session, tool, offered) for tool in candidates.values()]


def scout_instructions(session: ScoutSession) -> Callable[[RunContextWrapper[Any], AgentBase[Any]], str]:
    """Dynamic agent instructions: the guidance of the session's current turn."""

    def instructions(context: RunContextWrapper[Any], agent: AgentBase[Any]) -> str:
        return session.assemble().guidance

    return instructions


def _function_tool(session: ScoutSession, tool: ToolSpec, offered: _Offered) -> FunctionTool:
    async def invoke(context: ToolContext[Any], arguments: str) -> str:
        outcome = await session.dispatch(tool.name, arguments, call_id=context.tool_call_id)
        return outcome.to_text()

    def enabled(context: RunContextWrapper[Any], agent: AgentBase[Any]) -> bool:
        return tool.name in offered.names()

    return FunctionTool(
        name=provider_name(tool.name, OPENAI_NAMES),
        description=tool.description,
        params_json_schema=tool.parameters,
        on_invoke_tool=invoke,
        strict_json_schema=False,
        is_enabled=enabled,
    )
