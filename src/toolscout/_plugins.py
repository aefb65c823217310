"""Plug-ins from installed packages, and the names registered at each plug-in point a setting names.

An installed package plugs in through the entry-point group ``toolscout.plugins`` (`PLUGIN_GROUP`): each
entry point names a module, whose import registers what it brings (``register_engine``,
``register_reranker``, ``register_embedder``, ``register_authenticator``, ``register_language``, …), or a
function called with no arguments that does. `load_plugins` loads them all once, on first need: when a
`ToolScout` is made, when the ``toolscout`` command starts, and when a setting names something not
registered. A plug-in that fails is logged as a warning naming it and left out; the others still load.

Each registry lives with what it registers (search engines in ``search/_engines.py``, expanders in
``search/_expanders.py``, …) and hands this module a function that lists its names, so the settings
check a value such as ``search_mode`` against the live registry without importing the packages
above them (the layers of ``docs/ARCHITECTURE.md``). The registries do this when their packages are
imported, which importing ``toolscout`` does.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import entry_points
from types import ModuleType
from typing import Literal, TypeAlias

__all__ = [
    "PLUGIN_GROUP",
    "PluginFailure",
    "PluginPoint",
    "check_registered",
    "load_plugins",
    "plugin_names",
    "provide_names",
]

logger = logging.getLogger("toolscout.plugins")

PLUGIN_GROUP = "toolscout.plugins"
"""The entry-point group an installed package declares its plug-ins in."""


@dataclass(frozen=True, slots=True)
class PluginFailure:
    """A plug-in that failed to load, and why."""

    name: str
    """The entry point's name."""
    target: str
    """What it points to (``module`` or ``module:function``)."""
    distribution: str
    """The installed package that declares it."""
    error: str
    """The exception, as ``Type: message``."""


_LOAD_LOCK = threading.RLock()
_loaded = False
_failures: list[PluginFailure] = []

PluginPoint: TypeAlias = Literal[
    "search_mode", "embeddings.backend", "search_expanders", "search_rerank.reranker", "search_calibrator"
]
"""The settings keys whose values are registered names."""

_LISTERS: dict[PluginPoint, Callable[[], tuple[str, ...]]] = {}


def provide_names(point: PluginPoint, lister: Callable[[], tuple[str, ...]]) -> None:
    """Make `lister` the source of the names registered at `point` (called once by the point's registry)."""
    _LISTERS[point] = lister


def load_plugins() -> tuple[PluginFailure, ...]:
    """Load every plug-in of `PLUGIN_GROUP` the first time it is called; the plug-ins that failed, each call.

    A plug-in's import (or its function) that raises is logged as a warning naming the plug-in, its target
    and its package, and left out; the others load. A plug-in that calls this while loading gets the
    failures so far (it is never loaded twice).
    """
    global _loaded
    with _LOAD_LOCK:
        if not _loaded:
            _loaded = True
            for point in entry_points(group=PLUGIN_GROUP):
                try:
                    loaded = point.load()
                    if callable(loaded) and not isinstance(loaded, ModuleType):
                        loaded()
                except Exception as exc:  # a broken plug-in is reported and left out, never fatal to the others
                    package = point.dist.name if point.dist is not None else "an unknown package"
                    failure = PluginFailure(point.name, point.value, package, f"{type(exc).__name__}: {exc}")
                    _failures.append(failure)
                    logger.warning(
                        "toolscout plug-in %r (%s, from %s) failed to load and is left out: %s",
                        failure.name,
                        failure.target,
                        failure.distribution,
                        failure.error,
                    )
        return tuple(_failures)


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
        load_plugins()  # a plug-in may register it: settings can be made before anything else loaded them
        known = (*also, *plugin_names(point))
    if value not in known:
        raise ValueError(f"unknown {what} {value!r}; use one of: {', '.join(known) or 'none is registered'}")
    return value
