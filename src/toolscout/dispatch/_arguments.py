"""Parse a model's tool-call arguments and validate them against the tool's JSON Schema."""

from __future__ import annotations

import json
import logging
from typing import Any, cast

from jsonschema import SchemaError, ValidationError
from jsonschema.exceptions import best_match
from jsonschema.validators import validator_for
from referencing import Registry
from referencing.exceptions import Unresolvable

from .._clipping import clip
from .._texts import Dispatch
from .._types import JsonObject
from ..catalog import ToolSpec
from ._errors import ToolError

__all__ = ["parse_arguments", "validate_arguments"]

logger = logging.getLogger("toolscout.dispatch")

_NO_RETRIEVAL: Registry[Any] = Registry()


def parse_arguments(raw: object, *, tool: str | None) -> JsonObject | ToolError:
    """Turn raw arguments into a JSON object.

    ``None``, blank strings and ``""`` mean no arguments; other strings are parsed as JSON.
    """
    if raw is None:
        return {}
    if isinstance(raw, str):
        if not raw.strip():
            return {}
        try:
            raw = json.loads(raw)
        except json.JSONDecodeError as exc:
            return ToolError(
                code="invalid_arguments_json",
                message=Dispatch.invalid_json(exc.msg, exc.lineno, exc.colno),
                hint=Dispatch.JSON_EXAMPLE,
                tool=tool,
            )
        except RecursionError:
            return _too_deep(tool)
    if not isinstance(raw, dict) or not all(isinstance(key, str) for key in raw):
        kind = "a list" if isinstance(raw, list) else type(raw).__name__
        return ToolError(
            code="arguments_not_object",
            message=Dispatch.not_object(kind),
            hint=Dispatch.OBJECT_EXAMPLE,
            tool=tool,
        )
    return cast(JsonObject, raw)


def validate_arguments(tool: ToolSpec, arguments: JsonObject) -> JsonObject | ToolError:
    """Check `arguments` against the tool's schema, coercing numeric/boolean strings where unambiguous.

    Validation fails open (the call goes ahead, with a logged warning) when the schema itself
    cannot be used, e.g. it refers to an external ``$ref``.
    """
    schema = tool.parameters
    arguments = _coerce_scalars(schema, arguments)
    try:
        validator = validator_for(schema)(schema, registry=_NO_RETRIEVAL)
        error = best_match(validator.iter_errors(cast(Any, arguments)))
    except (SchemaError, Unresolvable) as exc:
        logger.warning("schema of tool %r cannot be used for validation; calling without it: %s", tool.name, exc)
        return arguments
    except RecursionError:
        return _too_deep(tool.name)
    if error is None:
        return arguments
    return _describe(tool, error)


def _describe(tool: ToolSpec, error: ValidationError) -> ToolError:
    path = "/".join(str(part) for part in error.absolute_path)
    where = f"argument '{path}'" if path else "the arguments"
    details: JsonObject = {"path": path or "/", "constraint": str(error.validator)}
    if error.validator == "required":
        message = Dispatch.missing_argument(clip(error.message, 200))
        details["schema"] = tool.parameters
    elif error.validator == "additionalProperties":
        message = Dispatch.unexpected_argument(where, clip(error.message, 200))
        details["schema"] = tool.parameters
    else:
        message = Dispatch.invalid_argument(where, clip(error.message, 300))
        details["expected"] = clip(json.dumps(error.validator_value, ensure_ascii=False, default=str), 300)
    return ToolError(
        code="invalid_arguments",
        message=message,
        hint=Dispatch.FIX_ARGUMENTS,
        tool=tool.name,
        details=details,
    )


def _coerce_scalars(schema: JsonObject, arguments: JsonObject) -> JsonObject:
    """Convert top-level string values to integers, numbers or booleans when the schema asks for one."""
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return arguments
    coerced: JsonObject | None = None
    for key, value in arguments.items():
        spec = properties.get(key)
        if not isinstance(value, str) or not isinstance(spec, dict):
            continue
        converted = _convert(value.strip(), spec.get("type"))
        if converted is not None:
            coerced = dict(arguments) if coerced is None else coerced
            coerced[key] = converted
    return arguments if coerced is None else coerced


def _convert(text: str, declared: object) -> object | None:
    types = declared if isinstance(declared, list) else [declared]
    if "string" in types:
        return None
    if "integer" in types:
        try:
            return int(text)
        except ValueError:
            pass
    if "number" in types:
        try:
            number = float(text)
        except ValueError:
            pass
        else:
            return number if number == number and abs(number) != float("inf") else None
    if "boolean" in types and text.lower() in ("true", "false"):
        return text.lower() == "true"
    return None


def _too_deep(tool: str | None) -> ToolError:
    return ToolError(
        code="invalid_arguments",
        message=Dispatch.TOO_DEEP,
        hint=Dispatch.FLATTER,
        tool=tool,
    )
