"""LangChain / LangGraph: tools over one `ScoutSession` (extra ``toolscout[langchain]``).

```python
from langgraph.prebuilt import ToolNode
from toolscout.integrations.langchain import ScoutTools

tools = ScoutTools(scout.session("chat-1"))
executor = ToolNode(tools.all())              # can run every tool the session may be offered
model.bind_tools(tools.for_turn())            # bind afresh before every model call
SystemMessage(tools.guidance())               # how to find tools, what exists
```

With LangGraph's prebuilt agent, pass `model` (a dynamic model that binds this turn's tools before
every model call) and `all`:

```python
from langgraph.prebuilt import create_react_agent

agent = create_react_agent(tools.model(chat_model), tools.all(), prompt=tools.guidance())
```

`for_turn` is this turn's tools array, so the reveal style works when the model is bound before
each call (a tool found with ``tool_search`` is bound from the next call on). A graph whose model
was bound once to a turn's tools (``create_react_agent(chat_model, tools.for_turn())``) never sees
a revealed tool: in the reveal style its ``tool_search`` refuses with a message naming `model` and
the bridge style (the setting ``reveal_call_tool`` lists ``tool_call`` too, which makes it work).
`all` holds one tool per name the session may be offered, for executors such as LangGraph's
``ToolNode`` that need every callable tool up front. Every call goes through
`ScoutSession.dispatch`: refusals come back as structured error text, never as exceptions.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage
from langchain_core.runnables import Runnable
from langchain_core.runnables.config import var_child_runnable_config
from langchain_core.tools import BaseTool, StructuredTool

from .._scout import ScoutSession
from .._texts import Dispatch
from ..catalog import ToolSpec
from ..disclosure import bridge_tools
from ..dispatch import ToolError

__all__ = ["ScoutTools"]

logger = logging.getLogger("toolscout")


def _in_graph() -> bool:
    """Whether this runs inside a LangGraph graph's step (a node, or a tool its `ToolNode` runs)."""
    config = var_child_runnable_config.get()
    return config is not None and "langgraph_step" in (config.get("metadata") or {})


class ScoutTools:
    """LangChain tools over one `ScoutSession`."""

    def __init__(self, session: ScoutSession) -> None:
        """Wrap `session`; tools are built once per name and reused."""
        self.session = session
        self._built: dict[tuple[str, bool], tuple[ToolSpec, BaseTool]] = {}
        self._bound_in_graph = False

    def for_turn(self) -> list[BaseTool]:
        """The tools to bind to the model for its next call, in toolscout's order.

        Its search tool is one of its own: run from a graph that never re-read the turn's tools (a model
        bound once) in the reveal style, it refuses, since nothing it finds could reach the model.
        """
        self._bound_in_graph = self._bound_in_graph or _in_graph()
        search = self.session.scout.settings.bridge_names.search
        return [self._tool(spec, from_turn=spec.name == search) for spec in self.session.assemble().tools]

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
        tool revealed by ``tool_search`` is offered to the model from its next call on.
        """

        def bound(state: object, runtime: object) -> Runnable[LanguageModelInput, AIMessage]:
            self._bound_in_graph = True
            return chat_model.bind_tools(self.for_turn())

        return bound

    def guidance(self) -> str:
        """The system-prompt guidance of this turn."""
        return self.session.assemble().guidance

    def _tool(self, spec: ToolSpec, *, from_turn: bool = False) -> BaseTool:
        built = self._built.get((spec.name, from_turn))
        if built is not None and built[0] == spec:
            return built[1]
        tool = StructuredTool(
            name=spec.name,
            description=spec.description or spec.name,
            args_schema=spec.parameters,
            coroutine=self._runner(spec.name, from_turn=from_turn),
            func=None,
        )
        self._built[(spec.name, from_turn)] = (spec, tool)
        return tool

    def _runner(self, name: str, *, from_turn: bool) -> Any:
        async def run(**arguments: Any) -> str:
            if from_turn and self._bound_once():
                return self._unreachable().to_text()
            outcome = await self.session.dispatch(name, arguments)
            return outcome.to_text()

        return run

    def _bound_once(self) -> bool:
        """Reveal style, run by a graph holding a turn's tools that never re-read them: no reveal reaches it."""
        settings = self.session.scout.settings
        return settings.style == "reveal" and not settings.reveal_call_tool and not self._bound_in_graph and _in_graph()

    def _unreachable(self) -> ToolError:
        names = self.session.scout.settings.bridge_names
        error = ToolError(
            code="reveal_unreachable",
            message=Dispatch.reveal_unreachable(names),
            hint=Dispatch.REBUILD_AGENT_HINT,
            tool=names.search,
        )
        logger.warning("ScoutTools: %s", error.message)
        return error
