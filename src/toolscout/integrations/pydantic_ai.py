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
the toolset's instructions. With ``presearch`` on, each turn is pre-searched from the run's latest
user prompt.

`ScoutedToolset` puts toolsets you already have (``MCPToolset``s, a ``FunctionToolset``, several
combined with ``CombinedToolset``) behind toolscout in-process, with no gateway to run::

    agent = Agent(model, toolsets=[ScoutedToolset(CombinedToolset([time_server, github_server]))])

Under the default settings (``mode="auto"``) fewer than 30 tools (``threshold_tools``) whose
definitions stay under 10 % of the model's context window (``threshold_pct``) are sent in full,
with no ``tool_search`` and no instructions; the ``toolscout`` logger says so at INFO, and
``ScoutSettings(mode="on")`` defers them whatever their number.

`ScoutSearch` is toolscout's search as the ``strategy`` of pydantic-ai's own ``ToolSearch``
capability, for agents that keep pydantic-ai's deferred tools (``defer_loading=True``); it is
not a toolset::

    agent = Agent(model, tools=[...], capabilities=[ToolSearch(strategy=ScoutSearch())])
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Sequence
from typing import Any

from pydantic_ai import RunContext
from pydantic_ai.messages import ModelRequest, UserPromptPart
from pydantic_ai.tools import ToolDefinition
from pydantic_ai.toolsets import AbstractToolset, ToolsetTool, WrapperToolset
from pydantic_core import SchemaValidator, core_schema

from .._scout import ScoutSession, ToolScout
from .._settings import ScoutSettings
from ..catalog import ToolSpec
from ..catalog._internal import canonical_json
from ..disclosure import Assembly
from ..dispatch import ToolCall
from ._checks import note_sent_in_full, require_session

__all__ = ["ScoutSearch", "ScoutToolset", "ScoutedToolset"]

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

        Raises:
            TypeError: `session` is not a `ScoutSession` (a `ToolScout`, or a toolset: see `ScoutedToolset`).
        """
        other = (
            f"{type(session).__name__} is a pydantic-ai toolset: put it behind toolscout with ScoutedToolset(toolset)"
            if isinstance(session, AbstractToolset)
            else ""
        )
        self.session = require_session(session, "ScoutToolset", other=other)
        self._id = id
        self._max_retries = max_retries

    @property
    def id(self) -> str | None:
        """The toolset's id, if one was given."""
        return self._id

    async def get_instructions(self, ctx: RunContext[Any]) -> str | None:
        """The guidance of this turn: how to find tools and what exists."""
        return self._turn(ctx).guidance or None

    async def get_tools(self, ctx: RunContext[Any]) -> dict[str, ToolsetTool[Any]]:
        """This turn's tools array, in toolscout's order."""
        return {tool.name: self._toolset_tool(tool) for tool in self._turn(ctx).tools}

    def _turn(self, ctx: RunContext[Any]) -> Assembly:
        """The session's turn, pre-searched (``presearch``) from the user prompts of the run's messages."""
        return self.session.with_user_messages(_user_prompts(ctx)).assemble()

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


class ScoutSearch:
    """toolscout's search (fielded BM25, synonyms, typo tolerance, hybrid when installed) as a ``ToolSearch`` strategy.

    pydantic-ai calls it with the model's queries and the deferred tools' definitions; it answers
    with the matching names, best first, the queries' rankings interleaved. The index is built
    once per set of definitions (the deferred tools of one agent rarely change between requests).
    """

    def __init__(self, *, settings: ScoutSettings | None = None, limit: int = 10) -> None:
        """Configure the search.

        Args:
            settings: toolscout settings; ``search_mode`` and ``embeddings`` choose the engine.
            limit: The most names returned per query (``ToolSearch.max_results`` caps the total).
        """
        self._settings = settings or ScoutSettings()
        self._limit = limit
        self._scout: ToolScout | None = None
        self._definitions: tuple[tuple[str, str, str], ...] = ()

    def __call__(
        self,
        ctx: RunContext[Any],
        queries: Sequence[str] | None = None,
        tools: Sequence[ToolDefinition] | None = None,
    ) -> list[str]:
        """The names of the tools matching `queries`, best first.

        Raises:
            TypeError: Called as a toolset function (with the run context alone): it was given as a toolset.
        """
        if queries is None or tools is None:
            raise TypeError(
                "ScoutSearch is a strategy of pydantic-ai's ToolSearch capability, not a toolset: "
                "Agent(model, capabilities=[ToolSearch(strategy=ScoutSearch())]); toolscout's own tools are "
                "toolsets=[ScoutToolset(session)] or toolsets=[ScoutedToolset(toolset)]"
            )
        scout = self._scout_for(tools)
        index = scout.searcher()
        rankings = [
            [hit.name for hit in index.search(query, limit=self._limit, mode=scout.search_mode).hits]
            for query in queries
            if query.strip()
        ]
        names: list[str] = []
        for rank in range(self._limit):
            for ranking in rankings:
                if rank < len(ranking) and ranking[rank] not in names:
                    names.append(ranking[rank])
        return names

    def _scout_for(self, tools: Sequence[ToolDefinition]) -> ToolScout:
        definitions = tuple(
            (tool.name, tool.description or "", canonical_json(tool.parameters_json_schema)) for tool in tools
        )
        specs = [
            ToolSpec(name=tool.name, description=tool.description or "", parameters=tool.parameters_json_schema)
            for tool in tools
        ]
        if self._scout is None:
            self._scout = ToolScout(specs, settings=self._settings)
        elif definitions != self._definitions:
            self._scout.set_tools(specs)
        self._definitions = definitions
        return self._scout


_RUN_CONTEXT: contextvars.ContextVar[RunContext[Any]] = contextvars.ContextVar("toolscout_pydantic_ai_run_context")


class ScoutedToolset(WrapperToolset[Any]):
    """A pydantic-ai toolset (MCP servers included) behind toolscout, in the same process.

    Before each model request the wrapped toolset is listed (an MCP server's own ``cache_tools``
    applies) and becomes the catalog of one `ToolScout`; the model sees that session's turn (the
    bridge or reveal tools, core and discovered tools) and every call is dispatched by toolscout,
    then run by the wrapped toolset.
    """

    def __init__(
        self,
        wrapped: AbstractToolset[Any],
        *,
        settings: ScoutSettings | None = None,
        session_id: str = "default",
        core: Sequence[str] = (),
    ) -> None:
        """Wrap `wrapped`.

        Args:
            wrapped: The toolset whose tools become toolscout's catalog.
            settings: toolscout settings (style, mode, search, ...).
            session_id: The session whose discoveries this toolset keeps.
            core: Tools always sent in full.

        Raises:
            TypeError: `wrapped` is not a pydantic-ai toolset (a list of them: combine them with ``CombinedToolset``).
        """
        _require_toolset(wrapped)
        super().__init__(wrapped)
        self._settings = settings or ScoutSettings()
        self._session_id = session_id
        self._core = tuple(core)
        self._listed: dict[str, ToolsetTool[Any]] = {}
        self._scout: ToolScout | None = None
        self._view: ScoutToolset | None = None

    @property
    def scout(self) -> ToolScout | None:
        """The `ToolScout` over the wrapped toolset's tools, once they have been listed."""
        return self._scout

    async def for_run(self, ctx: RunContext[Any]) -> AbstractToolset[Any]:
        """Keep this wrapper (its catalog and session) around the wrapped toolset's per-run form."""
        self.wrapped = await self.wrapped.for_run(ctx)
        return self

    async def for_run_step(self, ctx: RunContext[Any]) -> AbstractToolset[Any]:
        """Keep this wrapper around the wrapped toolset's per-step form."""
        self.wrapped = await self.wrapped.for_run_step(ctx)
        return self

    def visit_and_replace(
        self, visitor: Callable[[AbstractToolset[Any]], AbstractToolset[Any]]
    ) -> AbstractToolset[Any]:
        """Let `visitor` replace the wrapped toolsets, keeping this wrapper."""
        self.wrapped = self.wrapped.visit_and_replace(visitor)
        return self

    async def get_instructions(self, ctx: RunContext[Any]) -> str | None:
        """The guidance of this turn (how to find tools, what exists)."""
        if not self._listed:
            self._listed = await self.wrapped.get_tools(ctx)
        return await self._session_view(ctx).get_instructions(ctx)

    async def get_tools(self, ctx: RunContext[Any]) -> dict[str, ToolsetTool[Any]]:
        """This turn's tools over the wrapped toolset's current listing."""
        self._listed = await self.wrapped.get_tools(ctx)
        return await self._session_view(ctx).get_tools(ctx)

    async def call_tool(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[Any], tool: ToolsetTool[Any]
    ) -> Any:
        """Dispatch through toolscout; a real tool runs on the wrapped toolset."""
        token = _RUN_CONTEXT.set(ctx)
        try:
            return await self._session_view(ctx).call_tool(name, tool_args, ctx, tool)
        finally:
            _RUN_CONTEXT.reset(token)

    def _session_view(self, ctx: RunContext[Any]) -> ScoutToolset:
        specs = [
            ToolSpec(
                name=name,
                description=tool.tool_def.description or "",
                parameters=tool.tool_def.parameters_json_schema,
            )
            for name, tool in self._listed.items()
        ]
        if self._scout is None or self._view is None:
            self._scout = ToolScout(specs, core=self._core, settings=self._settings, executor=self._run)
            self._view = ScoutToolset(self._scout.session(self._session_id))
            note_sent_in_full(self._scout, "ScoutedToolset")
        elif [spec.fingerprint for spec in specs] != [spec.fingerprint for spec in self._scout.catalog]:
            self._scout.set_tools(specs)
            note_sent_in_full(self._scout, "ScoutedToolset")
        return self._view

    async def _run(self, call: ToolCall) -> Any:
        tool = self._listed[call.name]
        return await self.wrapped.call_tool(call.name, dict(call.arguments), _RUN_CONTEXT.get(), tool)


def _require_toolset(wrapped: object) -> None:
    """Refuse what `ScoutedToolset` cannot wrap, naming the call that takes it."""
    if isinstance(wrapped, AbstractToolset):
        return
    if isinstance(wrapped, list | tuple):
        raise TypeError(
            f"ScoutedToolset wraps one toolset, got a {type(wrapped).__name__} of {len(wrapped)}: combine them with "
            "ScoutedToolset(CombinedToolset([a, b])) (from pydantic_ai.toolsets import CombinedToolset)"
        )
    session = (
        "; a ToolScout's tools are ScoutToolset(scout.session('chat-1'))" if isinstance(wrapped, ToolScout) else ""
    )
    raise TypeError(
        f"ScoutedToolset wraps a pydantic-ai toolset (an MCPToolset, a FunctionToolset, ...), "
        f"got {type(wrapped).__name__}{session}"
    )


def _user_prompts(ctx: RunContext[Any]) -> list[str]:
    """The text of each user prompt in the run's messages (the run's own prompt last), oldest first."""
    texts: list[str] = []
    for message in ctx.messages:
        if not isinstance(message, ModelRequest):
            continue
        for part in message.parts:
            if isinstance(part, UserPromptPart):
                content = part.content
                text = content if isinstance(content, str) else "\n".join(c for c in content if isinstance(c, str))
                if text.strip():
                    texts.append(text)
    if isinstance(ctx.prompt, str) and ctx.prompt.strip() and (not texts or texts[-1] != ctx.prompt):
        texts.append(ctx.prompt)
    return texts
