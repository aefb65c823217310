"""LangChain / LangGraph: tools over one `ScoutSession` (extra ``toolscout[langchain]``).

LangChain v1's agent takes toolscout as its middleware, which sets each model call's tools and
guidance from the session's turn and registers every tool the session may be offered:

```python
from langchain.agents import create_agent
from toolscout.integrations.langchain import ScoutMiddleware

agent = create_agent(chat_model, system_prompt="...", middleware=[ScoutMiddleware(scout.session("chat-1"))])
```

A graph of your own binds the turn's tools before every model call:

```python
from langgraph.prebuilt import ToolNode
from toolscout.integrations.langchain import ScoutTools

tools = ScoutTools(scout.session("chat-1"))
executor = ToolNode(tools.all())              # can run every tool the session may be offered
model.bind_tools(tools.for_turn())            # bind afresh before every model call
SystemMessage(tools.guidance())               # how to find tools, what exists
```

LangGraph's older prebuilt agent (deprecated in favour of ``create_agent``) still works with `model`,
a dynamic model that binds this turn's tools before every model call, and `all`:
``create_react_agent(tools.model(chat_model), tools.all(), prompt=tools.guidance())``.

`for_turn` is this turn's tools array, so the reveal style works when the model is bound before
each call (a tool found with ``tool_search`` is bound from the next call on). In the reveal style,
an agent that can never use a found tool is told so by its ``tool_search`` (``reveal_unreachable``,
also logged): one whose model was bound once to a turn's tools (``create_agent(chat_model,
tools.for_turn())``), or one whose executor holds only a turn's tools
(``create_react_agent(tools.model(chat_model), tools.for_turn())``). The setting
``reveal_call_tool`` lists ``tool_call`` too, which makes both work. `all` holds one tool per name
the session may be offered, built when it is called (call it again after `ToolScout.set_tools`).
Every call goes through `ScoutSession.dispatch`: refusals come back as structured error text,
never as exceptions.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, NoReturn

import anyio
from langchain.agents.middleware import AgentMiddleware, ModelRequest, ModelResponse
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from langchain_core.runnables import Runnable
from langchain_core.runnables.config import var_child_runnable_config
from langchain_core.tools import BaseTool, StructuredTool

from .._scout import ScoutSession
from .._texts import Dispatch
from ..catalog import ToolSpec
from ..disclosure._internal import bridge_tools
from ..dispatch import ToolError
from ._checks import require_session

__all__ = ["ScoutMiddleware", "ScoutTools"]

logger = logging.getLogger("toolscout")


def _in_graph() -> bool:
    """Whether this runs inside a LangGraph graph's step (a node, or a tool its `ToolNode` runs)."""
    config = var_child_runnable_config.get()
    return config is not None and "langgraph_step" in (config.get("metadata") or {})


class ScoutTools:
    """LangChain tools over one `ScoutSession`."""

    def __init__(self, session: ScoutSession) -> None:
        """Wrap `session`; tools are built once per name and reused.

        Raises:
            TypeError: `session` is not a `ScoutSession` (a `ToolScout`, say).
        """
        self.session = require_session(session, "ScoutTools")
        self._built: dict[tuple[str, bool], tuple[ToolSpec, BaseTool]] = {}
        self._bound_in_graph = False

    def for_turn(self, user_messages: Sequence[str] = ()) -> list[BaseTool]:
        """The tools to bind to the model for its next call, in toolscout's order.

        `user_messages` (the user's turns, oldest first) are pre-searched when ``presearch`` is on. Its
        search tool is one of its own: run by a graph's executor in the reveal style, it refuses,
        since that executor holds a turn's tools and either its model never re-read them (bound once)
        or a found tool could not run there.
        """
        self._bound_in_graph = self._bound_in_graph or _in_graph()
        search = self.session.scout.settings.bridge_names.search
        turn = self.session.with_user_messages(user_messages).assemble()
        return [self._tool(spec, from_turn=spec.name == search) for spec in turn.tools]

    def all(self) -> list[BaseTool]:
        """One tool per name the session may be offered (core, bridge, offload and catalog tools)."""
        scout = self.session.scout
        own = scout.offload.tools if scout.offload is not None else ()
        bridge = bridge_tools(
            scout.settings.style, scout.settings.bridge_names, reveal_call=scout.settings.reveal_call_tool
        )
        specs = {spec.name: spec for spec in (*own, *bridge, *scout.catalog)}
        return [self._tool(spec) for spec in specs.values()]

    def model(self, chat_model: BaseChatModel) -> Callable[..., Runnable[LanguageModelInput, AIMessage]]:
        """`chat_model` bound to this turn's tools before every call: LangGraph's dynamic model.

        ``create_react_agent(tools.model(chat_model), tools.all())`` re-binds at every step, so a
        tool revealed by ``tool_search`` is offered to the model from its next call on. LangChain
        v1's ``create_agent`` takes the chat model itself and `ScoutMiddleware` instead.
        """
        return _DynamicModel(self, chat_model)

    def guidance(self, user_messages: Sequence[str] = ()) -> str:
        """The system-prompt guidance of this turn (`user_messages`: as `for_turn`'s)."""
        return self.session.with_user_messages(user_messages).assemble().guidance

    def _tool(self, spec: ToolSpec, *, from_turn: bool = False) -> BaseTool:
        built = self._built.get((spec.name, from_turn))
        if built is not None and built[0] == spec:
            return built[1]
        run = self._runner(spec.name, from_turn=from_turn)

        def run_sync(**arguments: Any) -> str:
            return anyio.run(lambda: run(**arguments))

        tool = StructuredTool(
            name=spec.name,
            description=spec.description or spec.name,
            args_schema=spec.parameters,
            coroutine=run,
            func=run_sync,
        )
        self._built[(spec.name, from_turn)] = (spec, tool)
        return tool

    def _runner(self, name: str, *, from_turn: bool) -> Callable[..., Awaitable[str]]:
        async def run(**arguments: Any) -> str:
            if from_turn and self._reveal_lost():
                return self._unreachable().to_text()
            outcome = await self.session.dispatch(name, arguments)
            return outcome.to_text()

        return run

    def _reveal_lost(self) -> bool:
        """Reveal style, a turn's search run by a graph's executor: the executor or the model holds one turn's tools."""
        settings = self.session.scout.settings
        return settings.style == "reveal" and not settings.reveal_call_tool and _in_graph()

    def _unreachable(self) -> ToolError:
        names = self.session.scout.settings.bridge_names
        message = Dispatch.reveal_unrunnable(names) if self._bound_in_graph else Dispatch.reveal_unreachable(names)
        error = ToolError(
            code="reveal_unreachable", message=message, hint=Dispatch.REBUILD_AGENT_HINT, tool=names.search
        )
        logger.warning("ScoutTools: %s", error.message)
        return error


class _DynamicModel:
    """LangGraph's dynamic model: called with the graph's state and runtime, it binds the turn's tools."""

    def __init__(self, tools: ScoutTools, chat_model: BaseChatModel) -> None:
        self._tools = tools
        self._chat_model = chat_model

    def __call__(self, state: object, runtime: object) -> Runnable[LanguageModelInput, AIMessage]:
        self._tools._bound_in_graph = True
        messages = state.get("messages", []) if isinstance(state, dict) else getattr(state, "messages", [])
        return self._chat_model.bind_tools(self._tools.for_turn(_human_texts(messages)))

    def bind_tools(self, *args: object, **kwargs: object) -> NoReturn:
        """LangChain v1's ``create_agent`` binds its model's tools itself: say what it takes instead."""
        raise TypeError(
            "tools.model(chat_model) is LangGraph's dynamic model for create_react_agent; LangChain's "
            "create_agent takes the chat model itself and toolscout as its middleware: "
            "create_agent(chat_model, middleware=[ScoutMiddleware(session)])"
        )


class ScoutMiddleware(AgentMiddleware):
    """toolscout as LangChain v1 agent middleware: ``create_agent(model, middleware=[ScoutMiddleware(session)])``.

    Before every model call it sets the call's tools to the session's turn (tools given to
    ``create_agent`` itself stay) and adds the turn's guidance to the system prompt; with
    ``presearch`` on, the turn is pre-searched from the conversation's latest `HumanMessage`. It registers
    one tool per name the session may be offered (`ScoutTools.all`, built here: make a new
    middleware after `ToolScout.set_tools`), each run through `ScoutSession.dispatch`.
    """

    def __init__(self, session: ScoutSession) -> None:
        """Serve `session`'s turns to the agent's model.

        Raises:
            TypeError: `session` is not a `ScoutSession` (a `ToolScout`, say).
        """
        super().__init__()
        self._scout_tools = ScoutTools(require_session(session, "ScoutMiddleware"))
        self.tools = self._scout_tools.all()

    @property
    def session(self) -> ScoutSession:
        """The session whose turns the model sees."""
        return self._scout_tools.session

    def wrap_model_call(
        self, request: ModelRequest[Any], handler: Callable[[ModelRequest[Any]], ModelResponse[Any]]
    ) -> ModelResponse[Any]:
        """Run the model call with this turn's tools and guidance."""
        return handler(self._turn(request))

    async def awrap_model_call(
        self, request: ModelRequest[Any], handler: Callable[[ModelRequest[Any]], Awaitable[ModelResponse[Any]]]
    ) -> ModelResponse[Any]:
        """Run the model call with this turn's tools and guidance."""
        return await handler(self._turn(request))

    def _turn(self, request: ModelRequest[Any]) -> ModelRequest[Any]:
        ours = {tool.name for tool in self.tools}
        others = [tool for tool in request.tools if not (isinstance(tool, BaseTool) and tool.name in ours)]
        said = _human_texts(request.messages)
        turn = self._scout_tools.for_turn(said)
        guidance = self._scout_tools.guidance(said)
        return request.override(tools=[*turn, *others], system_message=_with_guidance(request.system_message, guidance))


def _with_guidance(system: SystemMessage | None, guidance: str) -> SystemMessage | None:
    """`system` with `guidance` after it (the system prompt given to the agent comes first)."""
    if not guidance:
        return system
    if system is None:
        return SystemMessage(guidance)
    if isinstance(system.content, str):
        return SystemMessage(f"{system.content}\n\n{guidance}" if system.content else guidance)
    return SystemMessage([*system.content, {"type": "text", "text": guidance}])


def _human_texts(messages: object) -> list[str]:
    """The text of each `HumanMessage` in `messages`, oldest first (what pre-search reads)."""
    if not isinstance(messages, Sequence):
        return []
    return [message.text for message in messages if isinstance(message, HumanMessage) and message.text.strip()]
