"""pydantic-ai: a toolset that shows the model one `ScoutSession`'s turn (extra ``toolscout[pydantic-ai]``).

```python
from pydantic_ai import Agent
from toolscout.integrations.pydantic_ai import ScoutToolset

agent = Agent("openai:gpt-5", toolsets=[ScoutToolset(scout.session("chat-1"))])
```

The tools are assembled afresh before every model request, so the reveal style works: a tool
the model found with ``tool_search`` is in the next request's tool list. Every call goes through
`ScoutSession.dispatch`, so the bridge is unwrapped, scope and schema are checked, and a refusal
reaches the model as a structured error result, never as an exception. The style's guidance is
the toolset's instructions.
"""

from __future__ import annotations

from typing import Any

from pydantic_ai import RunContext
from pydantic_ai.tools import ToolDefinition
from pydantic_ai.toolsets import AbstractToolset, ToolsetTool
from pydantic_core import SchemaValidator, core_schema

from .._scout import ScoutSession
from ..catalog import ToolSpec

__all__ = ["ScoutToolset"]

# toolscout checks arguments against each tool's JSON Schema itself and answers the model with a
# structured error, so pydantic-ai passes them through as parsed JSON.
_PASS_THROUGH = SchemaValidator(schema=core_schema.any_schema())


class ScoutToolset(AbstractToolset[Any]):
    """The tools one `ScoutSession` offers this turn, as a pydantic-ai toolset."""

    def __init__(self, session: ScoutSession, *, id: str | None = None, max_retries: int = 1) -> None:
        """Wrap `session`.

        Args:
            session: The session whose turn the model sees and whose dispatch runs every call.
            id: The toolset's id (pydantic-ai needs one for durable execution).
            max_retries: Retries pydantic-ai allows when the model sends arguments that are not JSON.
        """
        self.session = session
        self._id = id
        self._max_retries = max_retries

    @property
    def id(self) -> str | None:
        """The toolset's id, if one was given."""
        return self._id

    async def get_instructions(self, ctx: RunContext[Any]) -> str | None:
        """The guidance of this turn: how to find tools and what exists."""
        return self.session.assemble().guidance or None

    async def get_tools(self, ctx: RunContext[Any]) -> dict[str, ToolsetTool[Any]]:
        """This turn's tools array, in toolscout's order."""
        return {tool.name: self._toolset_tool(tool) for tool in self.session.assemble().tools}

    async def call_tool(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[Any], tool: ToolsetTool[Any]
    ) -> Any:
        """Dispatch the call through the session; refusals come back as structured error content."""
        outcome = await self.session.dispatch(name, tool_args, call_id=ctx.tool_call_id)
        return outcome.content if outcome.error is None else outcome.to_text()

    def _toolset_tool(self, tool: ToolSpec) -> ToolsetTool[Any]:
        definition = ToolDefinition(
            name=tool.name, description=tool.description, parameters_json_schema=tool.parameters
        )
        return ToolsetTool(
            toolset=self, tool_def=definition, max_retries=self._max_retries, args_validator=_PASS_THROUGH
        )
