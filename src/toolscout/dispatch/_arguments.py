"""Parse a model's tool-call arguments and validate them against the tool's JSON Schema."""

from __future__ import annotations

import itertools
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

    Every violation is reported in one error (the most relevant first, at most `MAX_REPORTED`), so
    the model fixes them all in one round trip. Validation fails open (the call goes ahead, with a
    logged warning) when the schema itself cannot be used, e.g. it refers to an external ``$ref``.
    """
    schema = tool.parameters
    arguments = _coerce_scalars(schema, arguments)
    try:
        validator = validator_for(schema)(schema, registry=_NO_RETRIEVAL)
        errors = list(itertools.islice(validator.iter_errors(cast(Any, arguments)), _MAX_COLLECTED))
        first = best_match(errors)
    except (SchemaError, Unresolvable) as exc:
        logger.warning("schema of tool %r cannot be used for validation; calling without it: %s", tool.name, exc)
        return arguments
    except RecursionError:
        return _too_deep(tool.name)
    if first is None:
        return arguments
    others = sorted((error for error in errors if error is not first), key=_position)
    return _describe(tool, [first, *others][:MAX_REPORTED])


MAX_REPORTED = 10
"""The most schema violations one `invalid_arguments` error lists."""

_MAX_COLLECTED = 100  # iter_errors is lazy: a huge bad payload is not walked to its end


def _position(error: ValidationError) -> tuple[str, ...]:
    return tuple(str(part) for part in error.absolute_path)


def _describe(tool: ToolSpec, errors: list[ValidationError]) -> ToolError:
    """One error for all violations; its top-level `path` and `constraint` are the most relevant one's."""
    problems = [_problem(error) for error in errors]
    first = problems[0]
    details: JsonObject = {"path": first["path"], "constraint": first["constraint"]}
    if "expected" in first:
        details["expected"] = first["expected"]
    if any(item["constraint"] in ("required", "additionalProperties") for item in problems):
        details["schema"] = tool.parameters
    if len(problems) > 1:
        details["errors"] = cast(list[object], problems)
    messages = [problem["message"] for problem in problems]
    message = messages[0] if len(messages) == 1 else Dispatch.invalid_arguments(len(messages), " ".join(messages))
    return ToolError(
        code="invalid_arguments",
        message=message,
        hint=Dispatch.FIX_ARGUMENTS,
        tool=tool.name,
        details=details,
    )


def _problem(error: ValidationError) -> dict[str, str]:
    """One violation: where, which constraint, what the model reads, and what was expected."""
    path = "/".join(str(part) for part in error.absolute_path)
    where = f"argument '{path}'" if path else "the arguments"
    problem = {"path": path or "/", "constraint": str(error.validator)}
    if error.validator == "required":
        problem["message"] = Dispatch.missing_argument(clip(error.message, 200))
    elif error.validator == "additionalProperties":
        problem["message"] = Dispatch.unexpected_argument(where, clip(error.message, 200))
    else:
        problem["message"] = Dispatch.invalid_argument(where, clip(error.message, 300))
        problem["expected"] = clip(json.dumps(error.validator_value, ensure_ascii=False, default=str), 300)
    return problem


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
