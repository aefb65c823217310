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
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib.metadata import entry_points
from types import ModuleType
from typing import Any, ClassVar, Literal, Self, TypeAlias, cast

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ModelWrapValidatorHandler,
    ValidationError,
    create_model,
    model_validator,
)
from pydantic_core import InitErrorDetails, PydanticCustomError

from ._close import did_you_mean
from ._validation import unknown_setting

__all__ = [
    "PLUGIN_GROUP",
    "PluginFailure",
    "PluginPoint",
    "RegisteredSections",
    "SectionsPoint",
    "check_registered",
    "load_plugins",
    "plugin_names",
    "provide_names",
    "provide_sections",
    "sections_model",
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

SectionsPoint: TypeAlias = Literal["auth", "search_engines"]
"""The settings sections whose keys are registered names, each with the settings model registered with it."""

_SECTION_LISTERS: dict[SectionsPoint, Callable[[], Mapping[str, type[object]]]] = {}


def provide_names(point: PluginPoint, lister: Callable[[], tuple[str, ...]]) -> None:
    """Make `lister` the source of the names registered at `point` (called once by the point's registry)."""
    _LISTERS[point] = lister


def provide_sections(point: SectionsPoint, lister: Callable[[], Mapping[str, type[object]]]) -> None:
    """Make `lister` the source of the settings models registered at `point`, by key, in the order they apply."""
    _SECTION_LISTERS[point] = lister


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


class RegisteredSections(BaseModel):
    """A settings section whose keys are registered names, each validated by the model registered with it.

    A subclass names its `point`. Each validation asks that point's registry for its models (loading the
    plug-ins first when the section has a key not registered yet) and validates with a subclass holding one
    optional field per registered key, so a plug-in's section validates like a built-in one: an error names
    its key (``toolscout.auth.apikeys.ci``), and a key nothing registered is refused with the close one
    ("did you mean") or every one.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)
    point: ClassVar[SectionsPoint]
    """The registry whose names are this section's keys."""

    @model_validator(mode="wrap")
    @classmethod
    def _registered_now(cls, data: Any, handler: ModelWrapValidatorHandler[Self]) -> Self:
        if not isinstance(data, Mapping):
            return handler(data)
        models = _registered_models(cls.point)
        if any(key not in models for key in data):
            load_plugins()  # a plug-in may register the key: settings can be made before anything loaded them
            models = _registered_models(cls.point)
        for key, value in data.items():
            if key not in models:
                message = (
                    unknown_setting(did_you_mean(str(key), models), models)
                    if models
                    else "unknown setting; nothing registered has settings here"
                )
                error = InitErrorDetails(type=PydanticCustomError("unknown_setting", message), loc=(key,), input=value)
                raise ValidationError.from_exception_data(cls.__name__, [error])
        missing = {key: model for key, model in models.items() if key not in cls.model_fields}
        if not missing:
            return handler(data)
        return cast(Self, _with_sections(cls, missing).model_validate(data))

    @classmethod
    def registered_model(cls, key: str) -> type[object] | None:
        """The settings model registered for `key` now, None when none is."""
        return _registered_models(cls.point).get(key)

    def section(self, key: str) -> object | None:
        """The settings of `key` (an instance of its registered model), None when that section is not set."""
        return getattr(self, key) if key in type(self).model_fields else None


def _registered_models(point: SectionsPoint) -> Mapping[str, type[object]]:
    lister = _SECTION_LISTERS.get(point)
    return lister() if lister is not None else {}


_SectionsKey: TypeAlias = tuple[type[RegisteredSections], tuple[tuple[str, type[object]], ...]]
_SECTIONS_MODELS: dict[_SectionsKey, type[RegisteredSections]] = {}
_SECTIONS_LOCK = threading.Lock()


def sections_model(model: type[RegisteredSections]) -> type[RegisteredSections]:
    """`model` with one optional field per key registered at its point now (for the reference and static uses)."""
    return _with_sections(model, dict(_registered_models(model.point)))


def _with_sections(base: type[RegisteredSections], models: Mapping[str, type[object]]) -> type[RegisteredSections]:
    """A subclass of `base` with an optional field per one of `models` (made once per set of models)."""
    key = (base, tuple(models.items()))
    with _SECTIONS_LOCK:
        if key not in _SECTIONS_MODELS:
            fields: dict[str, Any] = {
                name: (model | None, Field(default=None, description=_summary(model))) for name, model in models.items()
            }
            _SECTIONS_MODELS[key] = create_model(
                base.__name__, __base__=base, __module__=base.__module__, __doc__=base.__doc__, **fields
            )
        return _SECTIONS_MODELS[key]


def _summary(model: type[object]) -> str:
    """The first paragraph of `model`'s docstring, on one line."""
    return " ".join((model.__doc__ or "").strip().split("\n\n")[0].split())
