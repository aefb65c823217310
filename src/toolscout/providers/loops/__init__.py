"""Tool-loop helpers for the official SDKs (extras ``toolscout[openai]`` and ``toolscout[anthropic]``).

Import the module you need: `toolscout.providers.loops.anthropic_loop` or
`toolscout.providers.loops.openai_loop`; each raises `ImportError` naming the extra when its SDK
is missing.
"""

from ._turn import TurnResult

__all__ = [
    "TurnResult",
]
