"""The one validation path of every setting: pydantic errors become a `ConfigError` naming key, limit and source."""

from __future__ import annotations

import math
import os
import typing
from collections.abc import Callable, Iterable, Mapping
from contextvars import ContextVar
from typing import Any, ClassVar, TypeVar

from pydantic import BaseModel, BeforeValidator, ConfigDict, ValidationError
from pydantic_core import ErrorDetails

from ._close import did_you_mean
from ._errors import ConfigError

__all__ = [
    "ENV_PREFIX",
    "CheckedModel",
    "Finite",
    "NoBool",
    "Switch",
    "checked_init",
    "config_error",
    "read_switch",
    "unknown_setting",
    "validate_section",
]

ENV_PREFIX = "TOOLSCOUT_"
"""Environment variables ``TOOLSCOUT_<KEY>`` (nested keys joined by ``__``) override settings."""

_ModelT = TypeVar("_ModelT", bound=BaseModel)
_validating: ContextVar[bool] = ContextVar("toolscout_validating", default=False)
"""True while a settings model is validated, so the models inside it leave errors to the outer one."""


def _not_bool(value: object) -> object:
    if isinstance(value, bool):
        raise ValueError("must be a number, not true/false")
    return value


def _finite(value: object) -> object:
    _not_bool(value)
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError("must be a finite number")
    if isinstance(value, str) and value.strip().lower() in ("inf", "+inf", "-inf", "infinity", "nan"):
        raise ValueError("must be a finite number")
    return value


_SWITCH_WORDS = dict.fromkeys(("true", "1", "yes", "on"), True) | dict.fromkeys(("false", "0", "no", "off"), False)


def read_switch(value: object) -> object:
    """`value` as a boolean when it is a switch word (``true``, ``off``, ``1``...), else as given."""
    if isinstance(value, str) and value.strip().lower() in _SWITCH_WORDS:
        return _SWITCH_WORDS[value.strip().lower()]
    return value


NoBool = BeforeValidator(_not_bool)
"""Marks a numeric field that refuses booleans (``port: true`` is an error, not 1)."""
Finite = BeforeValidator(_finite)
"""Marks a float field that refuses booleans, infinities and NaN."""
Switch = BeforeValidator(read_switch)
"""Marks a strict boolean that also reads the words an environment variable carries (``true``, ``off``, ``1``)."""

_TYPES: dict[str, str] = {
    "missing": "this setting is required; add it",
    "string_type": "must be a string (quote it)",
    "string_too_short": "must not be empty",
    "bool_type": "must be true or false",
    "bool_parsing": "must be true or false",
    "float_type": "must be a number",
    "float_parsing": "must be a number",
    "finite_number": "must be a finite number",
    "int_type": "must be a whole number",
    "int_parsing": "must be a whole number",
    "int_from_float": "must be a whole number",
    "too_short": "must not be empty",
    "dict_type": "must be an object (a table in TOML)",
    "tuple_type": "must be a list",
    "list_type": "must be a list",
}
_PATTERN_HINTS: dict[str, str] = {
    "url": "must be an http:// or https:// URL",
    "separator": "must be 1-8 characters from letters, digits, '_', '.', ':' and '-'",
}
_LIMITS: dict[str, tuple[str, str]] = {
    "greater_than": ("gt", "must be greater than {}"),
    "greater_than_equal": ("ge", "must be at least {}"),
    "less_than": ("lt", "must be less than {}"),
    "less_than_equal": ("le", "must be at most {}"),
    "string_too_long": ("max_length", "must be at most {} characters"),
    "too_long": ("max_length", "must have at most {} items"),
    "string_pattern_mismatch": ("pattern", "must match the pattern {}"),
}


class CheckedModel(BaseModel):
    """A frozen settings model that code builds directly: a bad value is a `ConfigError` there too.

    ``Model(key=value)`` runs the same validation as a config file, and its first error becomes a
    `ConfigError` naming the key (under `section`) and the limit it broke.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)
    section: ClassVar[str] = ""
    """The dotted key errors are named under (``""``: the field's own name)."""

    def __init__(self, **data: Any) -> None:
        """Validate `data`.

        Raises:
            ConfigError: The first invalid key, what is wrong with it and the limit it broke.
        """
        checked_init(lambda: super(CheckedModel, self).__init__(**data), type(self), self.section)


def checked_init(init: Callable[[], None], model: type[BaseModel], section: str) -> None:
    """Run a model's `init`; its first validation error becomes a `ConfigError` under `section`.

    Inside the validation of an outer model, errors are left to it (its error names the whole key).

    Raises:
        ConfigError: The first invalid key, what is wrong with it and the limit it broke.
    """
    if _validating.get():
        init()
        return
    token = _validating.set(True)
    try:
        init()
    except ValidationError as exc:
        raise config_error(exc, model, section, source=None) from None
    finally:
        _validating.reset(token)


def validate_section(
    model: type[_ModelT],
    data: Mapping[str, object],
    key: str,
    *,
    source: str | None = None,
    build: Callable[[Mapping[str, object]], _ModelT] | None = None,
) -> _ModelT:
    """Validate `data` as `model` (or with `build`); the first error becomes a `ConfigError`.

    Args:
        model: The settings model.
        data: The raw section (a decoded JSON or TOML table).
        key: The dotted key of the section, e.g. ``toolscout`` (``""`` for top-level settings).
        source: Where `data` came from (a file path), named in the error.
        build: How to build the model from `data` (default: ``model.model_validate``); settings
            models that read environment overrides are built by calling them.

    Raises:
        ConfigError: The key, what is wrong with it and the limit it broke, and its source.
    """
    token = _validating.set(True)
    try:
        return build(data) if build is not None else model.model_validate(data)
    except ValidationError as exc:
        raise config_error(exc, model, key, source=source) from None
    finally:
        _validating.reset(token)


def config_error(exc: ValidationError, model: type[BaseModel], key: str, *, source: str | None) -> ConfigError:
    """The `ConfigError` for the first error of `exc` (validating `model` as section `key`)."""
    error = exc.errors(include_input=False, include_url=False)[0]
    # Drop the validator tags pydantic adds for unions and wrapped validators ("function-after[...]").
    loc = [part for part in error["loc"] if part != "__root__" and not ("[" in str(part) or "(" in str(part))]
    path = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in loc).lstrip(".")
    dotted = f"{key}.{path}" if key and path and not path.startswith("[") else f"{key}{path}"
    message = _message(error, model, loc)
    env = ENV_PREFIX + "__".join(str(part) for part in loc).upper() if loc else None
    if env is not None and env in os.environ:
        message += f" (from the environment variable {env})"
    elif source is not None:
        message += f" (in {source})"
    return ConfigError(message, key=dotted or "settings")


def _message(error: ErrorDetails, model: type[BaseModel], loc: list[int | str]) -> str:
    kind = error["type"]
    ctx: dict[str, Any] = dict(error.get("ctx") or {})
    if kind == "extra_forbidden":
        known = _known_keys(model, loc[:-1])
        close = did_you_mean(str(loc[-1]), known) if loc else None
        return unknown_setting(close, known)
    field = next((str(part) for part in reversed(loc) if isinstance(part, str)), "")
    if kind == "string_pattern_mismatch" and field in _PATTERN_HINTS:
        return _PATTERN_HINTS[field]
    if kind in _LIMITS:
        name, template = _LIMITS[kind]
        bounded = kind in ("greater_than", "greater_than_equal", "less_than", "less_than_equal")
        return template.format(ctx.get(name, "?")) + (_allowed_range(model, loc) if bounded else "")
    if kind == "literal_error":
        return f"must be one of {ctx.get('expected', '?')}"
    if kind in ("value_error", "assertion_error"):
        return str(error["msg"]).removeprefix("Value error, ").removeprefix("Assertion failed, ")
    return _TYPES.get(kind, str(error["msg"]))


def unknown_setting(close: str | None, known: Iterable[str]) -> str:
    """The message for an unknown key: the close one to use instead, or every known one."""
    if close is not None:
        return f"unknown setting; did you mean {close!r}?"
    return f"unknown setting; known settings: {', '.join(known)}"


def _known_keys(model: type[BaseModel], parents: list[int | str]) -> list[str]:
    """The keys of the (sub-)model at `parents` within `model`."""
    return sorted(getattr(_submodel(model, parents), "model_fields", {}))


def _submodel(model: type[BaseModel], parents: list[int | str]) -> Any:
    """The (sub-)model at `parents` within `model`, or None."""
    current: Any = model
    for part in parents:
        fields = getattr(current, "model_fields", None)
        field = fields.get(str(part)) if fields else None
        annotation = getattr(field, "annotation", None)
        if annotation is None and hasattr(current, "registered_model"):  # a section keyed by registered names
            annotation = current.registered_model(str(part))
        if annotation is None:
            return None
        current = next(
            (arg for arg in (annotation, *getattr(annotation, "__args__", ())) if hasattr(arg, "model_fields")), None
        )
        if current is None:
            return None
    return current


_BOUNDS: dict[str, str] = {"ge": "at least {}", "gt": "more than {}", "le": "at most {}", "lt": "less than {}"}


def _allowed_range(model: type[BaseModel], loc: list[int | str]) -> str:
    """`` (allowed: from 1 to 50)`` for a field bounded on both sides, else ``""``."""
    if not loc or not isinstance(loc[-1], str):
        return ""
    fields = getattr(_submodel(model, loc[:-1]), "model_fields", None)
    field = fields.get(loc[-1]) if fields else None
    if field is None:
        return ""
    metadata = list(field.metadata)
    for arg in typing.get_args(field.annotation):  # an optional field keeps its bounds inside the union
        metadata += [meta for item in typing.get_args(arg)[1:] for meta in getattr(item, "metadata", (item,))]
    bounds = {name: getattr(item, name) for item in metadata for name in _BOUNDS if hasattr(item, name)}
    bounds = {name: value for name, value in bounds.items() if value is not None}
    low = next((name for name in ("ge", "gt") if name in bounds), None)
    high = next((name for name in ("le", "lt") if name in bounds), None)
    if low is None or high is None:
        return ""
    if (low, high) == ("ge", "le"):
        return f" (allowed: from {bounds['ge']} to {bounds['le']})"
    return f" (allowed: {_BOUNDS[low].format(bounds[low])} and {_BOUNDS[high].format(bounds[high])})"
