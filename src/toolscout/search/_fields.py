"""The searchable text fields of a tool."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, TypeAlias, cast

from ..catalog import ToolSpec

__all__ = ["FIELD_NAMES", "FieldName", "ToolFields", "tool_fields"]

FieldName: TypeAlias = Literal["name", "namespace", "description", "param_names", "param_descriptions", "enums"]
"""One searchable field of a tool."""

FIELD_NAMES: tuple[FieldName, ...] = (
    "name",
    "namespace",
    "description",
    "param_names",
    "param_descriptions",
    "enums",
)
"""Every field, in index order."""

_MAPS = frozenset({"$defs", "definitions", "patternProperties"})
_STRUCTURAL = frozenset(
    {"properties", "items", "additionalProperties", "not", "contains", "if", "then", "else"}
    | {"anyOf", "oneOf", "allOf", "prefixItems"}
    | _MAPS
)
# A property schema made only of these keys has nothing more to collect below its description.
_PLAIN_KEYS = frozenset({"type", "description", "default", "format", "examples", "minimum", "maximum"})
_MAX_DEPTH = 12


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolFields:
    """The text of each searchable field of one tool."""

    name: str
    """The tool's name (split into words by the tokenizer)."""
    namespace: str
    """The tool's namespace, or ``""``."""
    description: str
    """The title (if any) and the description."""
    param_names: str
    """Every parameter name, nested ones included, space-separated."""
    param_descriptions: str
    """Every parameter's title and description."""
    enums: str
    """Every scalar `enum` / `const` value."""

    def text(self, field: FieldName) -> str:
        """Return the text of `field`."""
        return cast(str, getattr(self, field))


def tool_fields(tool: ToolSpec) -> ToolFields:
    """Extract the searchable fields of `tool`, walking nested parameter schemas.

    Args:
        tool: The tool record.

    Returns:
        The field texts.
    """
    found = _Found()
    _walk(tool.parameters, 0, found)
    description = f"{tool.title}\n{tool.description}" if tool.title else tool.description
    return ToolFields(
        name=tool.name,
        namespace=tool.namespace or "",
        description=description,
        param_names=" ".join(found.names),
        param_descriptions="\n".join(found.descriptions),
        enums=" ".join(found.enums),
    )


@dataclass(slots=True)
class _Found:
    names: list[str] = field(default_factory=list)
    descriptions: list[str] = field(default_factory=list)
    enums: list[str] = field(default_factory=list)


def _walk(schema: dict[str, object], depth: int, found: _Found) -> None:
    """Collect the parameter names, texts and enum values below `schema`."""
    if depth > _MAX_DEPTH:
        return
    for key in _STRUCTURAL.intersection(schema):
        value = schema[key]
        if key == "properties" and isinstance(value, dict):
            for prop_name, sub in value.items():
                found.names.append(str(prop_name))
                _visit(sub, depth, found)
        elif isinstance(value, list):
            for sub in value:
                _visit(sub, depth, found)
        elif key in _MAPS and isinstance(value, dict):
            for sub in value.values():
                _visit(sub, depth, found)
        else:
            _visit(value, depth, found)


def _visit(node: object, depth: int, found: _Found) -> None:
    if not isinstance(node, dict):
        return
    schema = cast(dict[str, object], node)
    text = schema.get("description")
    if isinstance(text, str):
        found.descriptions.append(text)
    if not _PLAIN_KEYS.issuperset(schema):
        title = schema.get("title")
        if isinstance(title, str):
            found.descriptions.append(title)
        values = schema.get("enum")
        if isinstance(values, list):
            found.enums.extend(str(item) for item in values if isinstance(item, str | int | float))
        const = schema.get("const")
        if isinstance(const, str):
            found.enums.append(const)
        _walk(schema, depth + 1, found)
