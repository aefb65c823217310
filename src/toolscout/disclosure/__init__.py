"""Disclosure: what the model is sent each turn (tools array, bridge tools, guidance, catalog listing)."""

from ._assembly import Assembly, TurnPlan, assemble, plan_turn
from ._bridge import bridge_tools
from ._listing import Listing, ListingLevel, render_listing

__all__ = [
    "assemble",
    "Assembly",
    "bridge_tools",
    "Listing",
    "ListingLevel",
    "plan_turn",
    "render_listing",
    "TurnPlan",
]
