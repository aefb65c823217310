"""System-prompt guidance for each disclosure style."""

from __future__ import annotations

from .._settings import Style
from .._texts import Guidance
from ._listing import Listing

__all__ = ["render_guidance"]


def render_guidance(style: Style, listing: Listing) -> str:
    """The guidance text for `style`, followed by the catalog listing when there is one."""
    head = Guidance.BRIDGE if style == "bridge" else Guidance.REVEAL
    if listing.level == "none":
        return head
    return f"{head}\n\n{Guidance.LISTING_HEADER}\n{listing.text}"
