"""Reading provider JSON (plain dicts, or SDK response objects) without trusting its shape."""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

from .._types import JsonObject

__all__ = ["as_json", "dicts", "text_of"]


def as_json(value: object) -> object:
    """`value` as plain JSON data: SDK (pydantic) objects are dumped, lists converted item by item."""
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return cast(Callable[..., object], dump)(mode="json", exclude_none=True)
    if isinstance(value, list | tuple):
        return [as_json(item) for item in value]
    return value


def dicts(value: object, key: str | None = None) -> list[JsonObject]:
    """The JSON objects in a list (``value[key]`` when `key` is given); anything else gives ``[]``."""
    value = as_json(value)
    if key is not None:
        value = value.get(key) if isinstance(value, dict) else None
    if not isinstance(value, list):
        return []
    return [cast(JsonObject, item) for item in (as_json(item) for item in value) if isinstance(item, dict)]


def text_of(value: object) -> str | None:
    """`value` when it is a string, else None."""
    return value if isinstance(value, str) else None
