"""Disclosure: what the model is sent each turn (tools array, bridge tools, guidance, catalog listing)."""

from ._assembly import Assembly, TurnPlan

__all__ = [
    "Assembly",
    "TurnPlan",
]
