"""A compact shape summary of a JSON value: top-level keys and types, array lengths, a clipped sample item."""

from __future__ import annotations

import json

from .._clipping import clip
from .._tokens import TokenCounter
from .._types import JsonObject

__all__ = ["json_shape"]

_MAX_FIELDS = 40
_ITEM_SCAN = 200


def json_shape(value: object, *, max_tokens: int, counter: TokenCounter) -> JsonObject:
    """Describe `value` in at most `max_tokens` tokens (less detail as the budget shrinks)."""
    for fields, items, chars, depth in ((_MAX_FIELDS, 3, 80, 4), (20, 2, 60, 3), (10, 1, 40, 2), (5, 1, 20, 1)):
        shape = _shape(value, fields=fields, items=items, chars=chars, depth=depth)
        if counter.count(json.dumps(shape, ensure_ascii=False, default=str)) <= max_tokens:
            return shape
    return {"type": _kind(value)}


def _shape(value: object, *, fields: int, items: int, chars: int, depth: int) -> JsonObject:
    if isinstance(value, dict):
        shape: JsonObject = {
            "type": "object",
            "keys": len(value),
            "fields": {clip(str(key), 60): _describe(item, chars) for key, item in list(value.items())[:fields]},
        }
        if len(value) > fields:
            shape["more_keys"] = len(value) - fields
        path, array = _largest_array(value)
        if array:
            shape["sample"] = {"path": f"{path}[0]", "value": _clipped(array[0], items, chars, depth, fields)}
        return shape
    if isinstance(value, list):
        shape = {"type": "array", "length": len(value), "items": _item_types(value)}
        keys = _common_keys(value)
        if keys:
            shape["item_keys"] = keys[:fields]
        if value:
            shape["sample"] = {"path": ".[0]", "value": _clipped(value[0], items, chars, depth, fields)}
        return shape
    return {"type": _kind(value), "value": _clipped(value, items, chars, depth, fields)}


def _kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def _describe(value: object, chars: int) -> str:
    if isinstance(value, list):
        types = _item_types(value)
        return f"array[{len(value)}]" + (f" of {'/'.join(types)}" if types else "")
    if isinstance(value, dict):
        return f"object with {len(value)} keys"
    if isinstance(value, str):
        return f"string: {json.dumps(clip(value, chars), ensure_ascii=False)}"
    return f"{_kind(value)}: {clip(json.dumps(value, default=str), chars)}"


def _item_types(values: list[object]) -> list[str]:
    return sorted({_kind(item) for item in values[:_ITEM_SCAN]})


def _common_keys(values: list[object]) -> list[str]:
    objects = [item for item in values[:_ITEM_SCAN] if isinstance(item, dict)]
    if not objects:
        return []
    seen: dict[str, None] = {}
    for item in objects:
        seen.update(dict.fromkeys(str(key) for key in item))
    return list(seen)


def _largest_array(value: dict[str, object]) -> tuple[str, list[object]]:
    best_path: str = ""
    best: list[object] = []
    for key, item in value.items():
        if isinstance(item, list) and len(item) > len(best):
            best_path, best = "." + key if key.isidentifier() else f".[{json.dumps(key)}]", item
    return best_path, best


def _clipped(value: object, items: int, chars: int, depth: int, fields: int) -> object:
    if isinstance(value, str):
        return clip(value, chars)
    if isinstance(value, list):
        if depth <= 0:
            return f"… array[{len(value)}]"
        kept = [_clipped(item, items, chars, depth - 1, fields) for item in value[:items]]
        return kept + ([f"… {len(value) - items} more"] if len(value) > items else [])
    if isinstance(value, dict):
        if depth <= 0:
            return f"… object with {len(value)} keys"
        out = {
            clip(str(key), 60): _clipped(item, items, chars, depth - 1, fields)
            for key, item in list(value.items())[:fields]
        }
        if len(value) > fields:
            out["…"] = f"{len(value) - fields} more keys"
        return out
    return value
