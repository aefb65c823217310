"""Disclosure: what the model is sent each turn (tools array, bridge tools, guidance, catalog listing)."""

from ._assembly import Assembly, TurnPlan, assemble, plan_turn
from ._bridge import BRIDGE_NAMES, CALL, DESCRIBE, SEARCH, bridge_tools
from ._listing import Listing, ListingLevel, render_listing

__all__ = [
    "assemble",
    "Assembly",
    "BRIDGE_NAMES",
    "bridge_tools",
    "CALL",
    "DESCRIBE",
    "Listing",
    "ListingLevel",
    "plan_turn",
    "render_listing",
    "SEARCH",
    "TurnPlan",
]
