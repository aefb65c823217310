"""Regenerate the golden first-turn payloads: ``.venv/bin/python -m tests.golden.regen``.

Renders `catalog.json` (51 real tools dumped from six MCP servers) for every provider and style
with ``toolscout render --json`` and writes one file per pair; `test_payloads.py` compares them
byte for byte, so any change to what a model is sent shows up in review.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).parent
CATALOG = HERE / "catalog.json"
TOOLSCOUT = str(Path(sys.executable).with_name("toolscout"))
CASES = [
    ("openai-chat", "bridge", ()),
    ("openai-chat", "reveal", ()),
    ("openai-responses", "bridge", ()),
    ("openai-responses", "native", ("--search", "hosted")),
    ("openai-responses", "native", ("--search", "client")),
    ("anthropic", "bridge", ()),
    ("anthropic", "reveal", ()),
    ("anthropic", "native", ("--search", "hybrid")),
    ("anthropic", "native", ("--search", "bm25")),
    ("gemini", "bridge", ()),
    ("gemini", "reveal", ()),
]


def golden_name(provider: str, style: str, extra: tuple[str, ...]) -> str:
    """The golden file of one case."""
    variant = f"-{extra[1]}" if extra else ""
    return f"{provider}-{style}{variant}.json"


def render(provider: str, style: str, extra: tuple[str, ...]) -> str:
    """What ``toolscout render`` prints for one case (deferral forced on, the tokenizer-independent fields)."""
    command = [TOOLSCOUT, "render", str(CATALOG), "--provider", provider, "--style", style, "--mode", "on", "--json"]
    return subprocess.run([*command, *extra], check=True, capture_output=True, text=True).stdout


def main() -> None:
    """Rewrite every golden file."""
    for provider, style, extra in CASES:
        (HERE / golden_name(provider, style, extra)).write_text(render(provider, style, extra), encoding="utf-8")


if __name__ == "__main__":
    main()
