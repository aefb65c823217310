"""The names registered at each plug-in point that a setting names, for the settings to check.

Each registry lives with what it registers (search engines in ``search/_engines.py``, expanders in
``search/_expanders.py``, …) and hands this module a function that lists its names, so the settings
check a value such as ``search_mode`` against the live registry without importing the packages
above them (the layers of ``docs/ARCHITECTURE.md``). The registries do this when their packages are
imported, which importing ``toolscout`` does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal, TypeAlias

__all__ = ["PluginPoint", "check_registered", "plugin_names", "provide_names"]

PluginPoint: TypeAlias = Literal[
    "search_mode", "embeddings.backend", "search_expanders", "search_rerank.reranker", "search_calibrator"
]
"""The settings keys whose values are registered names."""

_LISTERS: dict[PluginPoint, Callable[[], tuple[str, ...]]] = {}


def provide_names(point: PluginPoint, lister: Callable[[], tuple[str, ...]]) -> None:
    """Make `lister` the source of the names registered at `point` (called once by the point's registry)."""
    _LISTERS[point] = lister


def plugin_names(point: PluginPoint) -> tuple[str, ...]:
    """The names registered at `point` now, in registration order."""
    lister = _LISTERS.get(point)
    return lister() if lister is not None else ()


def check_registered(point: PluginPoint, value: str, *, what: str, also: tuple[str, ...] = ()) -> str:
    """`value` when it is registered at `point` (or one of `also`, such as ``auto``).

    Raises:
        ValueError: Naming `what` was asked for and every name that would do.
    """
    known = (*also, *plugin_names(point))
    if value not in known:
        raise ValueError(f"unknown {what} {value!r}; use one of: {', '.join(known) or 'none is registered'}")
    return value
