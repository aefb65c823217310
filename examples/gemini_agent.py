"""A Gemini agent over 133 tools with toolscout, over plain HTTP (no SDK): generateContent + bridge style.

    export GEMINI_API_KEY=...               # GEMINI_BASE_URL overrides the endpoint
    python examples/gemini_agent.py "What time is it in Tokyo?"

TOOLSCOUT_MODEL picks the model (default gemini-2.5-flash).
"""

from __future__ import annotations

import os
import sys

import anyio
import httpx2
from demo_catalog import demo_scout

from toolscout.providers import dispatch_call, gemini

MAX_STEPS = 8


async def chat(prompt: str) -> str:
    session = demo_scout().session("demo")
    model = os.environ.get("TOOLSCOUT_MODEL", "gemini-2.5-flash")
    base = os.environ.get("GEMINI_BASE_URL", "https://generativelanguage.googleapis.com").rstrip("/")
    url = f"{base}/v1beta/models/{model}:generateContent"
    headers = {"x-goog-api-key": os.environ["GEMINI_API_KEY"]}
    contents: list[object] = [{"role": "user", "parts": [{"text": prompt}]}]
    async with httpx2.AsyncClient(timeout=120) as client:
        for step in range(1, MAX_STEPS + 1):
            rendering = gemini.render(session)
            reply = await client.post(url, headers=headers, json={"contents": contents, **rendering.fields})
            reply.raise_for_status()
            response = reply.json()
            calls = gemini.parse_calls(response, rendering.names)
            if not calls:
                print(f"[{rendering.style}; {step} steps]", file=sys.stderr)
                return gemini.answer_text(response)
            contents.append(response["candidates"][0]["content"])
            parts = [
                gemini.format_result(await dispatch_call(session, call, rendering.names), call, rendering)
                for call in calls
            ]
            contents.append({"role": "user", "parts": parts})
    return "(stopped: step limit)"


def main(argv: list[str]) -> int:
    print(anyio.run(chat, " ".join(argv) or "What time is it in Tokyo?"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
