"""Write docs/CONFIGURATION.md: every setting, from the models themselves (run after changing a setting).

.venv/bin/python scripts/gen_config_docs.py          # rewrite the file
.venv/bin/python scripts/gen_config_docs.py --check  # exit 1 when the file is stale
"""

from __future__ import annotations

import sys
import types
import typing
from pathlib import Path
from typing import Any

from pydantic import BaseModel, RootModel
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from toolscout import BridgeNames, ScopeSettings, ScoutSettings
from toolscout.gateway import AuthSettings, GatewaySettings
from toolscout.gateway._internal import HttpServer, StdioServer
from toolscout.offload import OffloadSettings
from toolscout.search import RerankSettings
from toolscout.search.embeddings import EmbeddingSettings

OUT = Path(__file__).parents[1] / "docs" / "CONFIGURATION.md"
HEADER = """# Configuration reference

Generated from the settings models by `scripts/gen_config_docs.py`; do not edit by hand.

The library takes these keys as `ScoutSettings(...)` (the first table); the gateway reads all of
them from the `toolscout` section of its config file. Every key can also come from an environment
variable `TOOLSCOUT_<KEY>` (nested keys joined by `__`, e.g. `TOOLSCOUT_OFFLOAD__BUDGET_TOKENS=8000`):
in the gateway the environment wins over the file; in the library, arguments given in code win over
the environment. An invalid value is an error naming the key, the limit it broke and where it came
from (the file, or the environment variable); an unknown key names the closest valid one.
"""


def type_name(annotation: Any) -> str:
    """A short, readable form of a field's type."""
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Annotated:
        return type_name(args[0])
    if origin is typing.Literal:
        return " \\| ".join(f"`{arg!r}`".replace("'", '"') for arg in args)
    if origin in (typing.Union, types.UnionType):
        return " \\| ".join(type_name(arg) for arg in args if arg is not type(None)) + (
            " \\| null" if type(None) in args else ""
        )
    if origin in (tuple, list):
        return f"list of {type_name(args[0])}" if args else "list"
    if origin is dict:
        return f"table of {type_name(args[0])} → {type_name(args[1])}"
    if isinstance(annotation, type) and issubclass(annotation, RootModel):  # a section that is a table of tables
        return type_name(annotation.model_fields["root"].annotation)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return f"table ({annotation.__name__})"
    names = {str: "string", int: "integer", float: "number", bool: "boolean"}
    return names.get(annotation, getattr(annotation, "__name__", str(annotation)))


def constraints(field: FieldInfo) -> str:
    """The field's limits, as ``>= 1, <= 100`` (also inside an optional type)."""
    metadata = list(field.metadata)
    for arg in typing.get_args(field.annotation):
        if typing.get_origin(arg) is typing.Annotated:
            metadata += [item for item in typing.get_args(arg)[1:] if hasattr(item, "metadata")]
            metadata += [meta for item in typing.get_args(arg)[1:] for meta in getattr(item, "metadata", ())]
        if isinstance(arg, type) and issubclass(arg, RootModel):
            metadata += arg.model_fields["root"].metadata
    parts: list[str] = []
    for item in metadata:
        for name, symbol in (("gt", ">"), ("ge", ">="), ("lt", "<"), ("le", "<="), ("min_length", "min length")):
            value = getattr(item, name, None)
            if value is not None:
                parts.append(f"{symbol} {value}")
        pattern = getattr(item, "pattern", None)
        if pattern:
            parts.append(f"`{pattern}`")
    return ", ".join(parts)


def default(field: FieldInfo) -> str:
    """The field's default as the docs show it."""
    value = field.default
    if value is PydanticUndefined:
        return "required" if field.default_factory is None else "`{}`"
    if isinstance(value, BaseModel):
        return "(table)"
    if value is None:
        return "`null`"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, tuple):
        return f"`{list(value)}`"
    return f"`{value!r}`".replace("'", '"')


def table(title: str, model: type[BaseModel], prefix: str, skip: frozenset[str] = frozenset()) -> str:
    """One markdown table of `model`'s keys (prefixed with `prefix`), leaving out `skip`."""
    rows = ["| key | type | default | limits | meaning |", "|---|---|---|---|---|"]
    for name, field in model.model_fields.items():
        if name in skip:
            continue
        meaning = " ".join((field.description or "").split()).replace("|", "\\|")
        kind, limits = type_name(field.annotation), constraints(field)
        rows.append(f"| `{prefix}{name}` | {kind} | {default(field)} | {limits} | {meaning} |")
    return f"## {title}\n\n" + "\n".join(rows) + "\n"


def section_tables(model: type[BaseModel], prefix: str) -> list[str]:
    """A table for each section of `model` that is a table (or a table of tables), and of theirs, in order.

    Each is titled by its model's ``title`` (else its class name), so a registered scheme's section needs no
    line here.
    """
    found: list[str] = []
    for name, field in model.model_fields.items():
        inner = _table_model(field.annotation)
        if inner is not None:
            section, key = inner
            where = f"{prefix}{name}{key}"
            title = section.model_config.get("title") or section.__name__
            found += [table(f"{title} (`{where}`)", section, f"{where}."), *section_tables(section, f"{where}.")]
    return found


def _table_model(annotation: Any) -> tuple[type[BaseModel], str] | None:
    """The model of a field that is a table (``""``) or a table of tables (``".<label>"``), else None."""
    union = typing.get_origin(annotation) in (typing.Union, types.UnionType)
    kind = next(arg for arg in typing.get_args(annotation) if arg is not type(None)) if union else annotation
    if isinstance(kind, type) and issubclass(kind, RootModel):
        return _table_model(kind.model_fields["root"].annotation)
    if typing.get_origin(kind) is dict:
        value = typing.get_args(kind)[1]
        return (value, ".<label>") if isinstance(value, type) and issubclass(value, BaseModel) else None
    return (kind, "") if isinstance(kind, type) and issubclass(kind, BaseModel) else None


def render() -> str:
    """The whole reference page."""
    library = frozenset(ScoutSettings.model_fields)
    sections = [
        HEADER,
        table("Search, deferral and disclosure (library and gateway)", ScoutSettings, ""),
        table("Selected servers and tools (`scope`)", ScopeSettings, "scope."),
        table("Bridge tool names (`bridge_names`)", BridgeNames, "bridge_names."),
        table("Hybrid search's embedder (`embeddings`)", EmbeddingSettings, "embeddings."),
        table("The reranker over the top hits (`search_rerank`)", RerankSettings, "search_rerank."),
        table("Gateway", GatewaySettings, "", skip=library | {"offload", "auth"}),
        table("Offloading (`offload`)", OffloadSettings, "offload."),
        table("Who may call over HTTP (`auth`)", AuthSettings, "auth."),
        *section_tables(AuthSettings, "auth."),
        table("A local server (`mcpServers.<name>` with `command`)", StdioServer, ""),
        table("A remote server (`mcpServers.<name>` with `url`)", HttpServer, ""),
    ]
    return "\n".join(sections)


def main() -> int:
    """Write the page, or with ``--check`` only compare it."""
    text = render()
    if "--check" in sys.argv:
        if not OUT.exists() or OUT.read_text(encoding="utf-8") != text:
            print(f"{OUT} is stale: run python scripts/gen_config_docs.py", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
