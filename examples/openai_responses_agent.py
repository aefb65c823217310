"""An OpenAI Responses agent over 133 tools with toolscout: hosted tool search on gpt-5.4 and later.

    export OPENAI_API_KEY=...               # OPENAI_BASE_URL overrides the endpoint
    python examples/openai_responses_agent.py "What time is it in Tokyo?"

TOOLSCOUT_MODEL picks the model (default gpt-5.4); TOOLSCOUT_SEARCH=client lets toolscout rank
instead of OpenAI. Older models get the bridge style.
"""

from __future__ import annotations

import os
import sys

import anyio
import openai
from demo_catalog import demo_scout

from toolscout.providers.loops.openai_loop import run_responses_turn


async def chat(prompt: str) -> str:
    scout = demo_scout()
    model = os.environ.get("TOOLSCOUT_MODEL", "gpt-5.4")
    search = "client" if os.environ.get("TOOLSCOUT_SEARCH") == "client" else "hosted"
    async with openai.AsyncOpenAI() as client:
        result = await run_responses_turn(
            scout.session("demo"), client, [{"role": "user", "content": prompt}], model=model, search=search
        )
    print(f"[{result.choice.style}: {result.choice.reason}; {result.steps} steps]", file=sys.stderr)
    return result.text


def main(argv: list[str]) -> int:
    print(anyio.run(chat, " ".join(argv) or "What time is it in Tokyo?"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
