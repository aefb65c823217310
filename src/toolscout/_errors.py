"""The toolscout exception tree.

```
ToolscoutError
 ├── CatalogError          a tool definition or catalog file is malformed or duplicated
 ├── ConfigError           a setting has a wrong type or value
 ├── SearchError           a query cannot be run (invalid or over-long regex)
 └── StoreError            a session store cannot be opened or written
```

Errors raised towards *the model* are never exceptions: dispatch turns them into
structured `ToolError` results (see `toolscout.dispatch`).
"""

from __future__ import annotations

__all__ = ["CatalogError", "ConfigError", "SearchError", "StoreError", "ToolscoutError"]


class ToolscoutError(Exception):
    """Base class of every error toolscout raises."""


class CatalogError(ToolscoutError):
    """A tool definition or a catalog file is malformed, or two tools share a name.

    Attributes:
        tool_name: The offending tool's name, when one could be read.
        position: Where the definition sits, e.g. ``"catalog.json: tools[3]"`` (``tools[3]``: the fourth tool).
    """

    def __init__(self, message: str, *, tool_name: str | None = None, position: str | None = None) -> None:
        self.tool_name = tool_name
        self.position = position
        self.detail = message
        where = f" ({position})" if position else ""
        super().__init__(f"{message}{where}")

    def within(self, source: str) -> CatalogError:
        """The same error, its position prefixed with the file (``catalog.json: tools[3]``)."""
        position = f"{source}: {self.position}" if self.position else source
        return CatalogError(self.detail, tool_name=self.tool_name, position=position)


class ConfigError(ToolscoutError):
    """A configuration value has the wrong type or is out of range.

    Attributes:
        key: The dotted name of the offending setting.
        detail: The message without the key.
    """

    def __init__(self, message: str, *, key: str) -> None:
        self.key = key
        self.detail = message
        super().__init__(f"{key}: {message}")


class SearchError(ToolscoutError):
    """A search cannot be run, e.g. an invalid or over-long regular expression."""


class StoreError(ToolscoutError):
    """A session store cannot be opened, read or written."""
