"""Turn a pydantic validation error into a `ConfigError` naming the key and the fix."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from .._errors import ConfigError

__all__ = ["validate_section"]

_ModelT = TypeVar("_ModelT", bound=BaseModel)

_FIXES: dict[str, str] = {
    "missing": "this setting is required; add it",
    "extra_forbidden": "unknown setting; remove it or check its spelling",
    "string_type": "must be a string (quote it)",
    "string_too_short": "must not be empty",
    "string_pattern_mismatch": "has the wrong form",
    "bool_type": "must be true or false",
    "bool_parsing": "must be true or false",
    "float_type": "must be a number",
    "float_parsing": "must be a number",
    "greater_than": "must be greater than 0",
    "greater_than_equal": "is too small",
    "less_than_equal": "is too large",
    "int_type": "must be a whole number",
    "int_parsing": "must be a whole number",
    "too_short": "must not be empty",
    "dict_type": "must be an object (a table in TOML)",
    "tuple_type": "must be a list",
    "literal_error": "is not one of the allowed values",
}
_PATTERN_HINTS: dict[str, str] = {
    "url": "must be an http:// or https:// URL",
    "separator": "must be 1-8 characters from letters, digits, '_', '.', ':' and '-'",
}


def validate_section(model: type[_ModelT], data: Mapping[str, object], key: str) -> _ModelT:
    """Validate `data` as `model`; the first error becomes a `ConfigError` for ``key`` plus its path."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        error = exc.errors(include_input=False, include_url=False)[0]
        path = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in error["loc"])
        field = next((str(part) for part in reversed(error["loc"]) if isinstance(part, str)), "")
        fix = _FIXES.get(error["type"], error["msg"])
        if error["type"] == "string_pattern_mismatch":
            fix = _PATTERN_HINTS.get(field, fix)
        elif error["type"] == "literal_error":
            fix = f"{fix}: {error['msg'].removeprefix('Input should be ')}"
        elif error["type"] == "value_error":
            fix = error["msg"].removeprefix("Value error, ")
        if error["type"] == "extra_forbidden":
            known = ", ".join(name for name in model.model_fields)
            fix = f"{fix} (known settings: {known})"
        raise ConfigError(fix, key=f"{key}{path}") from None
