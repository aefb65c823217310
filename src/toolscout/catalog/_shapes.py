"""Read tool definitions in every common shape into `ToolSpec` records.

Shapes recognised (mixed freely in one list):

- OpenAI Chat: ``{"type": "function", "function": {"name", "description", "parameters"}}``
- OpenAI Responses: ``{"type": "function", "name", "description", "parameters"}``
- Anthropic: ``{"name", "description", "input_schema"}``
- MCP: ``{"name", "title", "description", "inputSchema", "outputSchema", "annotations", "_meta"}``
- Gemini: ``{"function_declarations": [...]}`` / ``{"functionDeclarations": [...]}``
- plain: ``{"name", "description", "parameters"}``
- containers: a list of any of the above, or an object with a ``tools`` list (an MCP
  ``tools/list`` result, a request body).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import cast

from jsonschema import SchemaError

from .._errors import CatalogError
from .._types import DeferPolicy, JsonObject
from ._schemas import check_schema
from ._spec import EMPTY_PARAMETERS, ToolSpec

__all__ = ["iter_tool_specs", "normalize_parameters"]

# Invisible (format, Unicode category Cf) characters are refused in names like control characters: bidi
# controls make a name read as another ("evil\u202etxt.exe" shows as "evilexe.txt"), zero-width ones make
# two names look the same.
INVISIBLE_CHARACTERS = (
    "\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890-\u0891\u08e2\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064"
    "\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U00013438\U0001bca0-\U0001bca3"
    "\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f"
)
"""A regex character class body of every format character (Cf) of Unicode 14."""
_NAME_RE = re.compile(f"[^\\s\\x00-\\x1f\\x7f-\\x9f{INVISIBLE_CHARACTERS}]{{1,256}}")
_GEMINI_KEYS = ("function_declarations", "functionDeclarations")
_GEMINI_JSON_SCHEMA_KEYS = ("parametersJsonSchema", "parameters_json_schema")  # REST and SDK spellings
# Keys whose values map property names to subschemas, and keys whose values are data, not schemas.
_SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions")
_DATA_KEYS = ("default", "enum", "const", "example", "examples")


def iter_tool_specs(value: object, *, namespace: str | None = None, position: str = "") -> Iterator[ToolSpec]:
    """Yield a `ToolSpec` for every tool definition found in `value`.

    Args:
        value: One definition, a list of definitions, or an object with a ``tools`` list.
        namespace: Namespace given to tools that do not carry their own.
        position: Where `value` sits, used in error messages (``tools[3]``; a top-level list's items are ``tools[i]``).

    Raises:
        CatalogError: A definition is malformed; the message names the tool and its position.
    """
    if isinstance(value, list):
        for index, item in enumerate(value):
            yield from iter_tool_specs(item, namespace=namespace, position=f"{position or 'tools'}[{index}]")
        return
    if not isinstance(value, dict):
        raise CatalogError(
            f"expected a tool definition object or a list of them, got {_kind(value)}", position=position or None
        )
    obj = cast(JsonObject, value)
    for key in _GEMINI_KEYS:
        if key in obj:
            declarations = obj[key]
            if not isinstance(declarations, list):
                raise CatalogError(f"'{key}' must be a list of function declarations", position=position or None)
            for index, item in enumerate(declarations):
                yield _parse_gemini(item, namespace=namespace, position=f"{position}.{key}[{index}]")
            return
    if "tools" in obj and "name" not in obj:
        tools = obj["tools"]
        if not isinstance(tools, list):
            raise CatalogError("'tools' must be a list of tool definitions", position=position or None)
        yield from iter_tool_specs(tools, namespace=namespace, position=f"{position}.tools" if position else "tools")
        return
    yield _parse_one(obj, namespace=namespace, position=position)


def normalize_parameters(schema: object, *, tool_name: str, position: str | None = None) -> JsonObject:
    """Return `schema` as an object JSON Schema, or raise `CatalogError` naming the tool.

    A missing schema means "no arguments". A schema that lacks ``"type"`` but is clearly an
    object schema (it has ``properties`` or is empty) gets ``"type": "object"`` added.
    """
    if schema is None:
        return dict(EMPTY_PARAMETERS)
    if not isinstance(schema, dict):
        raise CatalogError(
            f"tool {tool_name!r}: the parameter schema must be a JSON object, got {_kind(schema)}",
            tool_name=tool_name,
            position=position,
        )
    out = cast(JsonObject, schema)
    declared = out.get("type")
    if declared is None:
        out = {"type": "object", **out}
        if "properties" not in out:
            out["properties"] = {}
    elif declared != "object" and not (isinstance(declared, list) and "object" in declared):
        raise CatalogError(
            f"tool {tool_name!r}: the parameter schema must have type 'object', got {declared!r}",
            tool_name=tool_name,
            position=position,
        )
    dialect = out.get("$schema")
    if dialect is not None and not isinstance(dialect, str):
        raise CatalogError(
            f"tool {tool_name!r}: '$schema' must be a string URI, got {_kind(dialect)}",
            tool_name=tool_name,
            position=position,
        )
    try:
        check_schema(out)
    except SchemaError as exc:
        where = "/".join(str(part) for part in exc.path) or "(root)"
        raise CatalogError(
            f"tool {tool_name!r}: invalid JSON Schema at {where}: {exc.message}", tool_name=tool_name, position=position
        ) from None
    return out


def _parse_one(obj: JsonObject, *, namespace: str | None, position: str) -> ToolSpec:
    kind = obj.get("type")
    if kind == "function" and "function" in obj:
        inner = obj["function"]
        if not isinstance(inner, dict):
            raise CatalogError("'function' must be an object", position=position or None)
        return _build(cast(JsonObject, inner), schema_key="parameters", namespace=namespace, position=position)
    if kind not in (None, "function", "custom"):
        name = obj.get("name")
        raise CatalogError(
            f"{kind!r} is a provider-hosted tool, not a function tool; remove it from the catalog",
            tool_name=name if isinstance(name, str) else None,
            position=position or None,
        )
    if "input_schema" in obj:
        return _build(obj, schema_key="input_schema", namespace=namespace, position=position)
    if "inputSchema" in obj:
        return _build(obj, schema_key="inputSchema", namespace=namespace, position=position)
    for key in _GEMINI_JSON_SCHEMA_KEYS:
        if key in obj:
            return _build(obj, schema_key=key, namespace=namespace, position=position)
    return _build(obj, schema_key="parameters", namespace=namespace, position=position)


def _parse_gemini(item: object, *, namespace: str | None, position: str) -> ToolSpec:
    if not isinstance(item, dict):
        raise CatalogError(f"a function declaration must be an object, got {_kind(item)}", position=position)
    obj = cast(JsonObject, item)
    for key in _GEMINI_JSON_SCHEMA_KEYS:
        if key in obj:
            return _build(obj, schema_key=key, namespace=namespace, position=position)
    parameters = obj.get("parameters")
    converted = {**obj, "parameters": _openapi_to_json_schema(parameters)} if parameters is not None else obj
    return _build(converted, schema_key="parameters", namespace=namespace, position=position)


def _openapi_to_json_schema(value: object) -> object:
    """Lower-case Gemini's OpenAPI type names (``"STRING"`` → ``"string"``) throughout a schema."""
    if isinstance(value, list):
        return [_openapi_to_json_schema(item) for item in value]
    if not isinstance(value, dict):
        return value
    out: JsonObject = {}
    for key, item in value.items():
        if key == "type" and isinstance(item, str):
            out[key] = item.lower()
        elif key == "nullable" and item is True:
            continue
        elif key in _DATA_KEYS:
            out[key] = item
        elif key in _SCHEMA_MAPS and isinstance(item, dict):
            out[key] = {name: _openapi_to_json_schema(sub) for name, sub in item.items()}
        else:
            out[key] = _openapi_to_json_schema(item)
    if value.get("nullable") is True and isinstance(out.get("type"), str):
        out["type"] = [out["type"], "null"]
    return out


def _build(obj: JsonObject, *, schema_key: str, namespace: str | None, position: str) -> ToolSpec:
    where = position or None
    name = obj.get("name")
    if name is None:
        raise CatalogError("tool definition has no 'name'", position=where)
    if not isinstance(name, str) or not _NAME_RE.fullmatch(name):
        raise CatalogError(
            f"tool name {name!r} is invalid: use 1-256 characters without spaces, control or invisible characters",
            tool_name=str(name),
            position=where,
        )
    description = obj.get("description")
    if description is None:
        description = ""
    if not isinstance(description, str):
        raise CatalogError(
            f"tool {name!r}: 'description' must be a string, got {_kind(description)}", tool_name=name, position=where
        )
    parameters = normalize_parameters(obj.get(schema_key), tool_name=name, position=where)
    title = _optional_str(obj, "title", name, where)
    own_namespace = _optional_str(obj, "namespace", name, where)
    annotations = _optional_object(obj, "annotations", name, where)
    output_schema = _optional_object(obj, "outputSchema", name, where) or _optional_object(
        obj, "output_schema", name, where
    )
    return ToolSpec(
        name=name,
        description=description,
        parameters=parameters,
        namespace=own_namespace if own_namespace is not None else namespace,
        title=title,
        annotations=annotations,
        output_schema=output_schema,
        defer=_defer_policy(obj, name, where),
        meta=_optional_object(obj, "_meta", name, where),
    )


def _defer_policy(obj: JsonObject, name: str, where: str | None) -> DeferPolicy:
    policy = obj.get("defer")
    if policy is not None:
        if policy in ("never", "auto", "always"):
            return policy
        raise CatalogError(
            f"tool {name!r}: 'defer' must be 'never', 'auto' or 'always', got {policy!r}",
            tool_name=name,
            position=where,
        )
    loading = obj.get("defer_loading")
    if loading is True:
        return "always"
    if loading is False:
        return "never"
    return "auto"


def _optional_str(obj: JsonObject, key: str, name: str, where: str | None) -> str | None:
    value = obj.get(key)
    if value is None or isinstance(value, str):
        return value
    raise CatalogError(f"tool {name!r}: '{key}' must be a string, got {_kind(value)}", tool_name=name, position=where)


def _optional_object(obj: JsonObject, key: str, name: str, where: str | None) -> JsonObject | None:
    value = obj.get(key)
    if value is None or isinstance(value, dict):
        return cast(JsonObject | None, value)
    raise CatalogError(f"tool {name!r}: '{key}' must be an object, got {_kind(value)}", tool_name=name, position=where)


def _kind(value: object) -> str:
    if value is None:
        return "null"
    return {bool: "a boolean", int: "a number", float: "a number", str: "a string", list: "a list"}.get(
        type(value), type(value).__name__
    )
