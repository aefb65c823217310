"""`Catalog`: an ordered, immutable set of uniquely named tools with a content fingerprint."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

from .._errors import CatalogError
from ._shapes import iter_tool_specs
from ._spec import ToolSpec

__all__ = ["Catalog"]


class Catalog:
    """An ordered, immutable collection of tools, unique by name.

    Build one from records, from definitions in any supported shape (`from_definitions`), or
    from a JSON file (`from_file`). `fingerprint` changes whenever any tool's content or the
    order changes, so heavy structures (search indexes, embeddings) can be cached by it.
    """

    __slots__ = ("_by_name", "_tools", "fingerprint")

    def __init__(self, tools: Iterable[ToolSpec] = ()) -> None:
        """Create a catalog from records.

        Raises:
            CatalogError: Two tools share a name.
        """
        ordered = tuple(tools)
        by_name: dict[str, ToolSpec] = {}
        for index, tool in enumerate(ordered):
            if tool.name in by_name:
                raise CatalogError(
                    f"duplicate tool name {tool.name!r}: rename one of them or load them under different namespaces",
                    tool_name=tool.name,
                    position=f"tools[{index}]",
                )
            by_name[tool.name] = tool
        self._tools = ordered
        self._by_name: Mapping[str, ToolSpec] = by_name
        digest = hashlib.sha256()
        for tool in ordered:
            digest.update(tool.fingerprint.encode("ascii"))
        self.fingerprint: str = digest.hexdigest()[:32]

    @classmethod
    def from_definitions(cls, value: object, *, namespace: str | None = None, source: str = "") -> Catalog:
        """Read tool definitions in any supported shape (see `toolscout.catalog._shapes`).

        Args:
            value: A definition, a list of them, or an object with a ``tools`` list.
            namespace: Namespace for tools that do not name their own.
            source: A label for error messages (a file name).

        Raises:
            CatalogError: A definition is malformed or two tools share a name.
        """
        try:
            specs = list(iter_tool_specs(value, namespace=namespace))
        except CatalogError as exc:
            raise exc.within(source) if source else exc from None
        seen: dict[str, int] = {}
        for index, spec in enumerate(specs):
            if spec.name in seen:
                error = CatalogError(
                    f"duplicate tool name {spec.name!r} (first defined as tools[{seen[spec.name]}]); "
                    "rename one of them or load them under different namespaces",
                    tool_name=spec.name,
                    position=f"tools[{index}]",
                )
                raise error.within(source) if source else error
            seen[spec.name] = index
        return cls(specs)

    @classmethod
    def from_file(cls, path: str | Path, *, namespace: str | None = None) -> Catalog:
        """Load a JSON catalog file: a list of tool definitions, or an object with a ``tools`` list.

        Raises:
            CatalogError: The file is missing, is not valid JSON, or holds a malformed definition.
        """
        file = Path(path)
        try:
            text = file.read_text(encoding="utf-8")
        except OSError as exc:
            raise CatalogError(f"cannot read catalog file: {exc.strerror or exc}", position=str(file)) from None
        except UnicodeDecodeError:
            raise CatalogError("catalog file is not UTF-8 text", position=str(file)) from None
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            raise CatalogError(
                f"invalid JSON: {exc.msg}", position=f"{file}: line {exc.lineno}, column {exc.colno}"
            ) from None
        return cls.from_definitions(value, namespace=namespace, source=file.name)

    def merge(self, *others: Catalog) -> Catalog:
        """Return a new catalog holding this catalog's tools followed by the others'.

        Raises:
            CatalogError: A name appears in more than one catalog.
        """
        return Catalog([*self._tools, *(tool for other in others for tool in other)])

    @property
    def tools(self) -> tuple[ToolSpec, ...]:
        """All tools, in catalog order."""
        return self._tools

    def get(self, name: str) -> ToolSpec | None:
        """Return the tool called `name`, or None."""
        return self._by_name.get(name)

    def __getitem__(self, name: str) -> ToolSpec:
        return self._by_name[name]

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    def __iter__(self) -> Iterator[ToolSpec]:
        return iter(self._tools)

    def __len__(self) -> int:
        return len(self._tools)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Catalog) and other.fingerprint == self.fingerprint

    def __hash__(self) -> int:
        return hash(self.fingerprint)

    def __repr__(self) -> str:
        return f"Catalog({len(self._tools)} tools, fingerprint={self.fingerprint[:12]})"

    def namespaces(self) -> dict[str | None, tuple[ToolSpec, ...]]:
        """Group the tools by namespace, namespaces in first-seen order."""
        groups: dict[str | None, list[ToolSpec]] = {}
        for tool in self._tools:
            groups.setdefault(tool.namespace, []).append(tool)
        return {key: tuple(value) for key, value in groups.items()}
