"""`OffloadSettings`: when a tool result is offloaded, and the limits of the offload tools."""

from __future__ import annotations

import fnmatch
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, TypeAlias

from .._config import check, is_int, settings_from_mapping
from .._errors import ConfigError
from ..catalog import ToolSpec

__all__ = ["Limit", "OffloadSettings"]

Limit: TypeAlias = int | Literal["never"]
"""A per-tool or per-namespace override: a budget in tokens, or ``"never"`` to never offload."""

_MIN_BUDGET = 200
_MIB = 1 << 20


@dataclass(frozen=True, slots=True, kw_only=True)
class OffloadSettings:
    """Settings of context offloading. Build from a config mapping with `from_mapping`.

    A result whose text costs more than its budget (in tokens, measured with the
    `TokenCounter` in use) is stored and replaced by a short stub with a handle; the model
    reads it back with the offload tools, whose answers are bounded by `read_tokens`.
    """

    enabled: bool = True
    """Offload large results and list the offload tools (False: results pass through unchanged)."""
    budget_tokens: int = 4_000
    """A result costing more than this many tokens is offloaded (at or below it, it is sent as is)."""
    preview_tokens: int = 500
    """Tokens of the head preview (and JSON shape summary) a stub carries."""
    read_tokens: int = 4_000
    """The most tokens one read, search or query answer carries."""
    max_matches: int = 20
    """The most matches one search answer lists."""
    session_bytes: int = 256 * _MIB
    """Bytes of stored outputs one session may hold; the oldest are evicted past it."""
    total_bytes: int | None = None
    """Bytes of stored outputs all sessions together may hold; the oldest of any session are evicted past it
    (None: 4 GiB, or `session_bytes` if larger)."""
    jq_timeout_s: float = 10.0
    """Seconds a jq query may run before it is stopped."""
    jq_memory_mb: int = 2_048
    """Memory (MiB) the jq worker process may use, where the platform can enforce it."""
    folder: Path | None = None
    """Folder the outputs are stored in, one sub-folder per session (None: a private temporary folder)."""
    tools: dict[str, Limit] = field(default_factory=dict)
    """Per-tool overrides by exact name or glob (``github__list_*``); they win over `namespaces`."""
    namespaces: dict[str, Limit] = field(default_factory=dict)
    """Per-namespace overrides (the upstream server's name in the gateway)."""

    def __post_init__(self) -> None:
        check(isinstance(self.enabled, bool), "enabled", "must be true or false")
        check(
            is_int(self.budget_tokens) and self.budget_tokens >= _MIN_BUDGET,
            "budget_tokens",
            f"must be >= {_MIN_BUDGET}",
        )
        check(
            is_int(self.preview_tokens) and 0 <= self.preview_tokens <= self.budget_tokens // 2,
            "preview_tokens",
            f"must be from 0 to half of budget_tokens ({self.budget_tokens // 2})",
        )
        check(is_int(self.read_tokens) and self.read_tokens >= _MIN_BUDGET, "read_tokens", f"must be >= {_MIN_BUDGET}")
        check(is_int(self.max_matches) and 1 <= self.max_matches <= 1000, "max_matches", "must be 1-1000")
        check(is_int(self.session_bytes) and self.session_bytes >= _MIB, "session_bytes", f"must be >= {_MIB}")
        check(
            self.total_bytes is None or (is_int(self.total_bytes) and self.total_bytes >= self.session_bytes),
            "total_bytes",
            f"must be >= session_bytes ({self.session_bytes})",
        )
        check(
            isinstance(self.jq_timeout_s, int | float)
            and not isinstance(self.jq_timeout_s, bool)
            and math.isfinite(self.jq_timeout_s)
            and self.jq_timeout_s > 0,
            "jq_timeout_s",
            "must be a positive number of seconds",
        )
        check(is_int(self.jq_memory_mb) and self.jq_memory_mb >= 64, "jq_memory_mb", "must be >= 64")
        check(self.folder is None or isinstance(self.folder, Path), "folder", "must be a path or null")
        for key in ("tools", "namespaces"):
            overrides = getattr(self, key)
            check(isinstance(overrides, dict), key, 'must be a table of name = budget or "never"')
            for name, limit in overrides.items():
                check(isinstance(name, str) and bool(name), key, "names must be non-empty strings")
                check(
                    limit == "never" or (is_int(limit) and limit >= _MIN_BUDGET),
                    f"{key}.{name}",
                    f'must be "never" or a budget in tokens >= {_MIN_BUDGET}',
                )

    def budget_for(self, tool: ToolSpec) -> int | None:
        """The budget in tokens that applies to `tool`'s results (None: never offloaded)."""
        limit: Limit = self.budget_tokens
        if tool.namespace is not None and tool.namespace in self.namespaces:
            limit = self.namespaces[tool.namespace]
        if tool.name in self.tools:
            limit = self.tools[tool.name]
        else:
            for pattern, value in self.tools.items():
                if fnmatch.fnmatchcase(tool.name, pattern):
                    limit = value
                    break
        return None if limit == "never" else limit

    @classmethod
    def from_mapping(cls, config: Mapping[str, object] | bool | None, *, prefix: str = "offload") -> OffloadSettings:
        """Read settings from a config mapping (e.g. a parsed TOML/JSON section).

        ``None`` gives the defaults; a bare ``true``/``false`` sets `enabled`. ``folder`` may
        start with ``~``.

        Raises:
            ConfigError: An unknown key or a value of the wrong type; the key is named.
        """
        if config is None:
            return cls()
        if isinstance(config, bool):
            return cls(enabled=config)
        if not isinstance(config, Mapping):
            raise ConfigError(f"must be a table/object or true/false, got {type(config).__name__}", key=prefix)
        return settings_from_mapping(cls, config, prefix=prefix, convert=_convert)


def _convert(key: str, value: object) -> object:
    if key == "folder" and isinstance(value, str) and value:
        return Path(value).expanduser()
    if key in ("tools", "namespaces") and isinstance(value, Mapping):
        return dict(value)
    return value
