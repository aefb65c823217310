"""Build a `ToolSpec` from a plain Python function: schema from type hints, text from the docstring."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, get_type_hints

import docstring_parser
from pydantic import ConfigDict, Field, create_model

from .._errors import CatalogError
from .._types import DeferPolicy, JsonObject
from ._shapes import normalize_parameters
from ._spec import ToolSpec

__all__ = ["tool_from_callable"]

_SKIPPED_KINDS = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)


def tool_from_callable(
    func: Callable[..., object],
    *,
    name: str | None = None,
    description: str | None = None,
    namespace: str | None = None,
    defer: DeferPolicy = "auto",
) -> ToolSpec:
    """Describe `func` as a tool.

    The parameter schema comes from the signature's type hints (via pydantic); the
    description and per-parameter descriptions come from the docstring (Google, reST or
    NumPy style). ``*args`` / ``**kwargs`` are not exposed.

    Raises:
        CatalogError: A parameter's type cannot be expressed as JSON Schema.
    """
    tool_name = name or getattr(func, "__name__", None)
    if not tool_name or tool_name == "<lambda>":
        raise CatalogError("cannot infer a tool name from this callable; pass name=...")
    doc = docstring_parser.parse(inspect.getdoc(func) or "")
    param_docs = {param.arg_name: param.description or "" for param in doc.params}
    try:
        hints = get_type_hints(func)
    except (NameError, TypeError) as exc:
        raise CatalogError(f"tool {tool_name!r}: cannot resolve type hints: {exc}", tool_name=tool_name) from None
    fields: dict[str, Any] = {}
    for index, param in enumerate(inspect.signature(func).parameters.values()):
        if param.kind in _SKIPPED_KINDS:
            continue
        annotation = hints.get(param.name, Any)
        default = ... if param.default is inspect.Parameter.empty else param.default
        # Neutral field names with the real name as alias: pydantic reserves or rejects some
        # parameter names (`model_config`, `schema`, `_private`), but an alias can be anything.
        fields[f"field_{index}"] = (
            annotation,
            Field(default, alias=param.name, description=param_docs.get(param.name) or None),
        )
    try:
        model = create_model(f"{tool_name}_arguments", __config__=ConfigDict(extra="forbid"), **fields)
        schema: JsonObject = model.model_json_schema(by_alias=True)
    except Exception as exc:  # pydantic raises several unrelated types for unsupported annotations
        raise CatalogError(f"tool {tool_name!r}: cannot build a JSON schema: {exc}", tool_name=tool_name) from None
    schema.pop("title", None)
    for prop in _properties(schema).values():
        if isinstance(prop, dict):
            prop.pop("title", None)
    text = description if description is not None else _summary(doc)
    return ToolSpec(
        name=tool_name,
        description=text,
        parameters=normalize_parameters(schema, tool_name=tool_name),
        namespace=namespace,
        defer=defer,
    )


def _summary(doc: docstring_parser.Docstring) -> str:
    parts = [part for part in (doc.short_description, doc.long_description) if part]
    return "\n\n".join(parts)


def _properties(schema: JsonObject) -> dict[str, object]:
    props = schema.get("properties")
    return props if isinstance(props, dict) else {}
