"""`ToolSpec`: one immutable tool record, whatever shape it was read from."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field

from .._types import DeferPolicy, JsonObject

__all__ = ["EMPTY_PARAMETERS", "NAMESPACE_SEPARATOR", "ToolSpec", "canonical_json", "namespace_of"]

EMPTY_PARAMETERS: JsonObject = {"type": "object", "properties": {}}

NAMESPACE_SEPARATOR = "__"
"""Between a namespace and a tool's own name (``github__create_issue``); the gateway's default separator."""


def namespace_of(name: str) -> str | None:
    """The namespace a tool name carries: what precedes its first ``__`` (``ops__create_invoice`` → ``ops``).

    The gateway names every upstream tool ``<server>__<tool>`` with the server as its namespace; a
    library tool named the same way gets the same namespace unless its definition names one.
    """
    namespace, separator, rest = name.partition(NAMESPACE_SEPARATOR)
    return namespace if separator and namespace and rest else None


def canonical_json(value: object) -> str:
    """Serialize `value` as compact JSON with sorted keys (stable bytes for hashing and caching)."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolSpec:
    """A tool definition in toolscout's own neutral form.

    Records are frozen; treat the schema mappings as read-only (derive a changed copy
    with `dataclasses.replace`). `fingerprint` identifies the content.
    """

    name: str
    """The name the model calls the tool by (already namespaced where the source did so)."""
    description: str = ""
    """What the tool does, as written by its author."""
    parameters: JsonObject = field(default_factory=lambda: dict(EMPTY_PARAMETERS))
    """JSON Schema of the arguments; always an object schema."""
    namespace: str | None = None
    """The server or toolset the tool came from; by default the one its name carries (`namespace_of`)."""
    title: str | None = None
    """A human-readable title (MCP `title`)."""
    annotations: JsonObject | None = None
    """MCP tool annotations (`readOnlyHint`, `destructiveHint`, ...), passed through untouched."""
    output_schema: JsonObject | None = None
    """JSON Schema of structured results (MCP `outputSchema`), if declared."""
    defer: DeferPolicy = "auto"
    """Deferral policy: `never` (always sent in full), `auto` (default) or `always`."""
    meta: JsonObject | None = None
    """MCP `_meta` (vendor metadata such as a deprecation notice), passed through untouched."""
    fingerprint: str = field(init=False, repr=False, compare=False)
    """Content hash of every field above."""

    def __post_init__(self) -> None:
        if self.namespace is None:
            object.__setattr__(self, "namespace", namespace_of(self.name))
        content = canonical_json(
            [
                self.name,
                self.description,
                self.parameters,
                self.namespace,
                self.title,
                self.annotations,
                self.output_schema,
                self.defer,
                # Only when set, so that every tool without it keeps the fingerprint it had.
                *([self.meta] if self.meta is not None else []),
            ]
        )
        object.__setattr__(self, "fingerprint", hashlib.sha256(content.encode("utf-8")).hexdigest()[:32])

    def __hash__(self) -> int:
        return hash(self.fingerprint)

    def to_definition(self) -> JsonObject:
        """Return the neutral `{"name", "description", "parameters"}` definition (plus `namespace` when set)."""
        out: JsonObject = {"name": self.name, "description": self.description, "parameters": self.parameters}
        if self.namespace is not None:
            out["namespace"] = self.namespace
        return out
