"""A pydantic-ai agent over 133 tools, through toolscout's toolset (bridge style).

    python examples/pydantic_ai_agent.py                       # a scripted model: runs offline
    python examples/pydantic_ai_agent.py --real "What time is it in Tokyo?"   # a real model

With --real, TOOLSCOUT_MODEL names the pydantic-ai model (default ``openai:gpt-4.1``; the
provider's key comes from its usual environment variable, e.g. OPENAI_API_KEY).
"""

from __future__ import annotations

import json
import os
import sys

from demo_catalog import demo_scout
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models import Model
from pydantic_ai.models.function import AgentInfo, FunctionModel

from toolscout.integrations.pydantic_ai import ScoutToolset

SCRIPT = [
    ("tool_search", {"query": "current time in a time zone"}),
    ("tool_call", {"name": "time__get_current_time", "arguments": {"timezone": "Asia/Tokyo"}}),
]


def scripted_model() -> FunctionModel:
    """Searches, calls the time tool through the bridge, then answers with the tool's result."""

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        results = [part for message in messages for part in message.parts if isinstance(part, ToolReturnPart)]
        if len(results) < len(SCRIPT):
            name, arguments = SCRIPT[len(results)]
            print(f"model -> {name} {json.dumps(arguments)}", file=sys.stderr)
            return ModelResponse(parts=[ToolCallPart(name, json.dumps(arguments))])
        return ModelResponse(parts=[TextPart(f"It is {results[-1].content} now.")])

    return FunctionModel(respond)


def main(argv: list[str]) -> int:
    real = "--real" in argv
    prompt = " ".join(arg for arg in argv if arg != "--real") or "What time is it in Tokyo?"
    model: Model | str = os.environ.get("TOOLSCOUT_MODEL", "openai:gpt-4.1") if real else scripted_model()
    agent = Agent(model, toolsets=[ScoutToolset(demo_scout().session("demo"))])
    print(agent.run_sync(prompt).output)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
