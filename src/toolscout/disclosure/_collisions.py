"""Catalog tools named like a bridge tool: toolscout's own are dropped, anyone else's are renamed.

The rule: a tool whose name is one of the configured bridge names (and is not toolscout's own bridge
tool, e.g. an assembled tools array fed back in) is renamed to the first free name of ``<name>_2``,
``<name>_3``, ... (free: no other tool and no bridge tool has it). The rename depends only on the
catalog's names, so it is the same in every process; the bridge tools keep their names, so a
session's earlier calls never change meaning when such a tool comes or goes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from .._settings import BridgeNames
from .._texts import Bridge
from ..catalog import Catalog, ToolSpec
from ..catalog._internal import canonical_json
from ._bridge import bridge_tools

__all__ = ["Deconflicted", "deconflict"]


@dataclass(frozen=True, slots=True)
class Deconflicted:
    """A catalog free of bridge names, and the tools renamed to get there."""

    catalog: Catalog
    """The catalog without toolscout's own bridge tools, colliding tools renamed (same order)."""
    renamed: Mapping[str, str] = field(default_factory=dict)
    """The name the model sees → the tool's own name, for each renamed tool."""


def deconflict(catalog: Catalog, names: BridgeNames) -> Deconflicted:
    """Apply the collision rule (module docs) to `catalog` for the bridge tools called `names`."""
    reserved = frozenset(names.all)
    if not any(tool.name in reserved for tool in catalog):
        return Deconflicted(catalog)
    own = frozenset(
        _content(tool)
        for style in ("bridge", "reveal")
        for reveal_call in (False, True)
        for tool in bridge_tools(style, names, reveal_call=reveal_call)
    )
    taken = {tool.name for tool in catalog} | reserved
    kept: list[ToolSpec] = []
    renamed: dict[str, str] = {}
    for tool in catalog:
        if tool.name not in reserved:
            kept.append(tool)
        elif _content(tool) not in own:
            new = next(f"{tool.name}_{n}" for n in range(2, len(taken) + 3) if f"{tool.name}_{n}" not in taken)
            taken.add(new)
            renamed[new] = tool.name
            kept.append(replace(tool, name=new))
    return Deconflicted(Catalog(kept), renamed)


def _content(tool: ToolSpec) -> str:
    """The tool's identity as a bridge tool: a listing appended to the search description does not count."""
    description = tool.description.split(f"\n\n{Bridge.LISTING_HEADER}\n", 1)[0]
    return canonical_json([tool.name, description, tool.parameters])
