"""A Chat Completions agent over 133 tools with toolscout's client-side reveal style.

Works with any OpenAI-compatible endpoint (vLLM, Ollama, LiteLLM, ...):

    export OPENAI_API_KEY=...               # OPENAI_BASE_URL overrides the endpoint
    python examples/openai_chat_agent.py "What time is it in Tokyo?"

TOOLSCOUT_MODEL picks the model (default gpt-4.1).
"""

from __future__ import annotations

import os
import sys

import anyio
import openai
from demo_catalog import demo_scout

from toolscout.providers.loops.openai_loop import run_chat_turn


async def chat(prompt: str) -> str:
    scout = demo_scout(style="reveal")
    model = os.environ.get("TOOLSCOUT_MODEL", "gpt-4.1")
    async with openai.AsyncOpenAI() as client:
        result = await run_chat_turn(scout.session("demo"), client, [{"role": "user", "content": prompt}], model=model)
    print(f"[{result.choice.style}: {result.choice.reason}; {result.steps} steps]", file=sys.stderr)
    return result.text


def main(argv: list[str]) -> int:
    print(anyio.run(chat, " ".join(argv) or "What time is it in Tokyo?"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
