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
`scout_tools` again after the catalog changes (`ToolScout.set_tools`). With ``presearch`` on,
each turn is pre-searched from the user messages of the run's input.

MCP servers you would pass as ``mcp_servers`` go behind toolscout in-process with
`scout_mcp_servers` (no gateway to run): connect them, then give the agent the session's tools,
named ``<server>__<tool>`` as the gateway names them::

    async with MCPServerStdio(params={"command": "mcp-server-time"}, name="time") as time_server:
        session = await scout_mcp_servers([time_server])
        agent = Agent(name="a", instructions=scout_instructions(session), tools=scout_tools(session))

Under the default settings (``mode="auto"``) fewer than 30 tools (``threshold_tools``) whose
definitions stay under 10 % of the model's context window (``threshold_pct``) are sent in full,
with no ``tool_search`` and no instructions; `scout_mcp_servers` logs so at INFO on the
``toolscout`` logger, and ``ScoutSettings(mode="on")`` defers them whatever their number.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from agents import AgentBase, FunctionTool, RunContextWrapper, Tool
from agents.mcp import MCPServer
from agents.tool_context import ToolContext
from mcp_types import TextContent

from .._scout import ScoutSession, ToolScout
from .._settings import ScoutSettings
from ..catalog import ToolSpec
from ..catalog._internal import NAMESPACE_SEPARATOR
from ..disclosure._internal import bridge_tools
from ..dispatch import ToolCall
from ..providers._internal import OPENAI_NAMES, as_json, provider_name
from ..providers.loops._internal import user_texts
from ._checks import note_sent_in_full, require_session

__all__ = ["scout_instructions", "scout_mcp_servers", "scout_tools"]


class _Offered:
    """The names the session offers this turn, recomputed only when its discoveries or the user's turns change."""

    def __init__(self, session: ScoutSession) -> None:
        self._session = session
        self._key: tuple[str, tuple[str, ...], tuple[str, ...]] | None = None
        self._names: frozenset[str] = frozenset()

    def names(self, context: RunContextWrapper[Any]) -> frozenset[str]:
        said = _user_turns(context)
        key = (self._session.scout.catalog.fingerprint, self._session.discovered, said)
        if key != self._key:
            self._names = frozenset(self._session.with_user_messages(said).assemble().names)
            self._key = key
        return self._names


def _user_turns(context: RunContextWrapper[Any]) -> tuple[str, ...]:
    """The user's messages in the run's input (what pre-search reads), oldest first."""
    return tuple(user_texts([as_json(item) for item in context.turn_input]))


def scout_tools(session: ScoutSession) -> list[Tool]:
    """One `FunctionTool` per tool `session` may be offered, enabled while its turn offers it.

    Raises:
        TypeError: `session` is not a `ScoutSession` (a `ToolScout`, say).
    """
    session = require_session(session, "scout_tools")
    offered = _Offered(session)
    scout = session.scout
    own = scout.offload.tools if scout.offload is not None else ()
    bridge = bridge_tools(
        scout.settings.style, scout.settings.bridge_names, reveal_call=scout.settings.reveal_call_tool
    )
    candidates = {tool.name: tool for tool in (*own, *bridge, *scout.catalog)}
    return [_function_tool(session, tool, offered) for tool in candidates.values()]


def scout_instructions(session: ScoutSession) -> Callable[[RunContextWrapper[Any], AgentBase[Any]], str]:
    """Dynamic agent instructions: the guidance of the session's current turn.

    Raises:
        TypeError: `session` is not a `ScoutSession` (a `ToolScout`, say).
    """
    session = require_session(session, "scout_instructions")

    def instructions(context: RunContextWrapper[Any], agent: AgentBase[Any]) -> str:
        return session.with_user_messages(_user_turns(context)).assemble().guidance

    return instructions


def _function_tool(session: ScoutSession, tool: ToolSpec, offered: _Offered) -> FunctionTool:
    async def invoke(context: ToolContext[Any], arguments: str) -> str:
        outcome = await session.dispatch(tool.name, arguments, call_id=context.tool_call_id)
        return outcome.to_text()

    def enabled(context: RunContextWrapper[Any], agent: AgentBase[Any]) -> bool:
        return tool.name in offered.names(context)

    return FunctionTool(
        name=provider_name(tool.name, OPENAI_NAMES),
        description=tool.description,
        params_json_schema=tool.parameters,
        on_invoke_tool=invoke,
        strict_json_schema=False,
        is_enabled=enabled,
    )


async def scout_mcp_servers(
    servers: Sequence[MCPServer],
    *,
    settings: ScoutSettings | None = None,
    session_id: str = "default",
    core: Sequence[str] = (),
    namespaced: bool = True,
) -> ScoutSession:
    """A session over the tools of connected MCP servers, each call run on its own server.

    Each tool is named ``<server>__<tool>`` (the server's ``name``), as the gateway names an
    upstream's tools, so servers offering the same tool combine; `core` takes those names. With
    ``namespaced=False`` the tools keep their servers' names (the server is still their
    ``ToolSpec.namespace``) and two servers offering one name are a `CatalogError` naming it. A
    tool's result reaches the model as its text (all text parts joined) or, otherwise, as the MCP
    result's JSON. Logs at INFO when the settings send every tool in full (no ``tool_search``).

    Raises:
        TypeError: `servers` is not a sequence of the Agents SDK's MCP servers.
        CatalogError: Two tools share a name (servers with one name, or ``namespaced=False``).
    """
    if isinstance(servers, MCPServer) or not all(isinstance(server, MCPServer) for server in servers):
        raise TypeError(
            "scout_mcp_servers takes a list of connected Agents SDK MCP servers (MCPServerStdio, "
            f"MCPServerStreamableHttp, ...): scout_mcp_servers([server, ...]), got {type(servers).__name__}"
        )
    routes: dict[str, tuple[MCPServer, str]] = {}
    specs: list[ToolSpec] = []
    for server in servers:
        for tool in await server.list_tools():
            name = f"{server.name}{NAMESPACE_SEPARATOR}{tool.name}" if namespaced else tool.name
            routes.setdefault(name, (server, tool.name))
            specs.append(
                ToolSpec(
                    name=name,
                    description=tool.description or "",
                    parameters=dict(tool.input_schema),
                    namespace=server.name,
                )
            )

    async def run(call: ToolCall) -> object:
        server, own = routes[call.name]
        result = await server.call_tool(own, dict(call.arguments))
        texts = [part.text for part in result.content if isinstance(part, TextContent)]
        if not result.is_error and texts and len(texts) == len(result.content):
            return "\n".join(texts)
        return result.model_dump(mode="json", by_alias=True, exclude_none=True)

    scout = ToolScout(specs, core=core, settings=settings or ScoutSettings(), executor=run)
    note_sent_in_full(scout, "scout_mcp_servers")
    return scout.session(session_id)
