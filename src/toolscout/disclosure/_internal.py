"""The private face of `toolscout.disclosure`: what the rest of toolscout uses of it and users do not.

Users import from `toolscout.disclosure` (its `__all__`, pinned by `tests/public_api.json`). Other toolscout
packages, the tests and the benchmarks import these names from here: the one private module of a
package that code outside it may import (docs/ARCHITECTURE.md, "Rules"). `tests/internal_api.json`
pins this list, which may only shrink.
"""

from ._assembly import assemble, plan_turn, plans_alike
from ._bridge import bridge_tools
from ._collisions import deconflict
from ._guidance import render_guidance
from ._listing import Listing, render_listing

__all__ = [
    "assemble",
    "bridge_tools",
    "deconflict",
    "Listing",
    "plan_turn",
    "plans_alike",
    "render_guidance",
    "render_listing",
]
