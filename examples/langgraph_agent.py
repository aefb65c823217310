"""A LangChain v1 agent (``create_agent``) over 133 tools, toolscout as its middleware (reveal style).

    python examples/langgraph_agent.py                         # LangChain's fake chat model: runs offline
    OPENAI_API_KEY=... python examples/langgraph_agent.py --real "What time is it in Tokyo?"

With --real the model is ``langchain_openai.ChatOpenAI`` (install ``langchain-openai``);
TOOLSCOUT_MODEL names the model (default ``gpt-4.1``).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

import anyio
from demo_catalog import demo_scout
from langchain.agents import create_agent
from langchain_core.language_models import BaseChatModel
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, AnyMessage, HumanMessage

from toolscout.integrations.langchain import ScoutMiddleware


class ScriptedModel(GenericFakeChatModel):
    """LangChain's fake chat model; binding tools is a no-op because its replies are scripted."""

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> Any:
        return self


def scripted_model() -> BaseChatModel:
    def call(name: str, arguments: dict[str, Any]) -> AIMessage:
        return AIMessage("", tool_calls=[{"name": name, "args": arguments, "id": name, "type": "tool_call"}])

    replies = [
        call("tool_search", {"query": "current time in a time zone"}),
        call("time__get_current_time", {"timezone": "Asia/Tokyo"}),
        AIMessage("Here is the time in Tokyo (see the tool result above)."),
    ]
    return ScriptedModel(messages=iter(replies))


def real_model() -> BaseChatModel:
    import os

    from langchain_openai import ChatOpenAI  # type: ignore[import-not-found]

    return ChatOpenAI(model=os.environ.get("TOOLSCOUT_MODEL", "gpt-4.1"))  # type: ignore[no-any-return]


async def chat(prompt: str, model: BaseChatModel) -> list[AnyMessage]:
    middleware = ScoutMiddleware(demo_scout(style="reveal").session("demo"))
    agent = create_agent(model, system_prompt="Answer briefly.", middleware=[middleware])
    state = await agent.ainvoke({"messages": [HumanMessage(prompt)]})
    return list(state["messages"])


def main(argv: list[str]) -> int:
    real = "--real" in argv
    prompt = " ".join(arg for arg in argv if arg != "--real") or "What time is it in Tokyo?"
    messages = anyio.run(chat, prompt, real_model() if real else scripted_model())
    for message in messages[1:]:
        print(f"{message.type}: {message.content or message.tool_calls}", file=sys.stderr)  # type: ignore[attr-defined]
    print(messages[-1].content)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
