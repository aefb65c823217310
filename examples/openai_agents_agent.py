"""An OpenAI Agents SDK agent over 133 tools, through toolscout's function tools (reveal style).

    python examples/openai_agents_agent.py                     # a scripted model: runs offline
    OPENAI_API_KEY=... python examples/openai_agents_agent.py --real "What time is it in Tokyo?"

With --real, TOOLSCOUT_MODEL names the model (default ``gpt-4.1``).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator
from typing import Any

from agents import Agent, Model, ModelResponse, RunConfig, Runner, Usage
from demo_catalog import demo_scout
from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage, ResponseOutputText

from toolscout.integrations.openai_agents import scout_instructions, scout_tools

SCRIPT = [
    ("tool_search", {"query": "current time in a time zone"}),
    ("time__get_current_time", {"timezone": "Asia/Tokyo"}),
]


class ScriptedModel(Model):
    """Searches, calls the revealed time tool directly, then answers with its result."""

    def __init__(self) -> None:
        self.step = 0

    async def get_response(self, system_instructions, input, model_settings, tools, *args, **kwargs) -> ModelResponse:
        if self.step < len(SCRIPT):
            name, arguments = SCRIPT[self.step]
            self.step += 1
            print(f"model -> {name} {json.dumps(arguments)}", file=sys.stderr)
            call = ResponseFunctionToolCall(
                type="function_call", call_id=f"call_{self.step}", name=name, arguments=json.dumps(arguments)
            )
            return ModelResponse(output=[call], usage=Usage(requests=1), response_id=None)
        result = input[-1]["output"] if isinstance(input, list) else ""
        text = ResponseOutputText(type="output_text", text=f"It is {result} now.", annotations=[])
        message = ResponseOutputMessage(id="msg", type="message", role="assistant", status="completed", content=[text])
        return ModelResponse(output=[message], usage=Usage(requests=1), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        raise NotImplementedError("the scripted model does not stream")


def main(argv: list[str]) -> int:
    real = "--real" in argv
    prompt = " ".join(arg for arg in argv if arg != "--real") or "What time is it in Tokyo?"
    session = demo_scout(style="reveal").session("demo")
    model: Model | str = os.environ.get("TOOLSCOUT_MODEL", "gpt-4.1") if real else ScriptedModel()
    agent = Agent(name="assistant", instructions=scout_instructions(session), tools=scout_tools(session), model=model)
    result = Runner.run_sync(agent, prompt, run_config=RunConfig(tracing_disabled=not real))
    print(result.final_output)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
