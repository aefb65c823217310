"""System-prompt guidance for each disclosure style."""

from __future__ import annotations

from .._settings import BridgeNames, Style
from .._texts import Guidance
from ._listing import Listing

__all__ = ["render_guidance"]


def render_guidance(style: Style, listing: Listing, names: BridgeNames) -> str:
    """The guidance text for `style`, followed by the catalog listing when there is one."""
    head = Guidance.bridge(names) if style == "bridge" else Guidance.reveal(names)
    if listing.level == "none":
        return head
    return f"{head}\n\n{Guidance.listing_header(names.search)}\n{listing.text}"
