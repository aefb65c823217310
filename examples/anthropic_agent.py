"""A Claude agent over 133 tools with toolscout: native tool search where the model has it.

    export ANTHROPIC_API_KEY=...            # ANTHROPIC_BASE_URL overrides the endpoint
    python examples/anthropic_agent.py "What time is it in Tokyo?"

TOOLSCOUT_MODEL picks the model (default claude-sonnet-4-6, which gets native tool search with
toolscout's ranking behind it); older models get the bridge style.
"""

from __future__ import annotations

import os
import sys

import anthropic
import anyio
from demo_catalog import demo_scout

from toolscout.providers.loops.anthropic_loop import run_anthropic_turn


async def chat(prompt: str) -> str:
    scout = demo_scout()
    model = os.environ.get("TOOLSCOUT_MODEL", "claude-sonnet-4-6")
    async with anthropic.AsyncAnthropic() as client:
        result = await run_anthropic_turn(
            scout.session("demo"), client, [{"role": "user", "content": prompt}], model=model, cache=True
        )
    print(f"[{result.choice.style}: {result.choice.reason}; {result.steps} steps]", file=sys.stderr)
    return result.text


def main(argv: list[str]) -> int:
    print(anyio.run(chat, " ".join(argv) or "What time is it in Tokyo?"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
