"""Disclosure: what the model is sent each turn (tools array, bridge tools, guidance, catalog listing)."""

from ._assembly import Assembly, TurnPlan, assemble, plan_turn, plans_alike
from ._bridge import bridge_tools
from ._collisions import deconflict
from ._guidance import render_guidance
from ._listing import Listing, ListingLevel, render_listing

__all__ = [
    "assemble",
    "Assembly",
    "bridge_tools",
    "deconflict",
    "Listing",
    "ListingLevel",
    "plan_turn",
    "plans_alike",
    "render_guidance",
    "render_listing",
    "TurnPlan",
]
