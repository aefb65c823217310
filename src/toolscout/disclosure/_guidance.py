"""System-prompt guidance for each disclosure style."""

from __future__ import annotations

from .._settings import Style
from ._listing import Listing

__all__ = ["render_guidance"]

_BRIDGE = (
    "Some of your tools are not in your tool list; they are found on demand. "
    "When you need a capability you do not see, call tool_search with a few keywords (service + action), "
    "then tool_describe to read the parameters, then tool_call to run the tool. "
    "A tool found this way exists even though it is not listed. "
    "Never conclude a capability is missing before searching for it."
)
_REVEAL = (
    "Some of your tools are not in your tool list; they are found on demand. "
    "When you need a capability you do not see, call tool_search with a few keywords (service + action); "
    "the tools it returns are added to your tool list and you call them directly from your next step. "
    "Never conclude a capability is missing before searching for it."
)


def render_guidance(style: Style, listing: Listing) -> str:
    """The guidance text for `style`, followed by the catalog listing when there is one."""
    head = _BRIDGE if style == "bridge" else _REVEAL
    if listing.level == "none":
        return head
    return f"{head}\n\nTools available through tool_search:\n{listing.text}"
