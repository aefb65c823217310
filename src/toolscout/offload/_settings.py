"""`OffloadSettings`: when a tool result is offloaded, and the limits of the offload tools."""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field, PlainValidator, StrictBool, ValidationInfo, field_validator

from .._errors import ConfigError
from .._validation import Finite, NoBool, Switch, validate_section
from ..catalog import ToolSpec

__all__ = ["Limit", "OffloadSettings", "default_jq_concurrency"]

_MIN_BUDGET = 200
_MIB = 1 << 20
_DEFAULT_TOTAL = 4 << 30
_PRINCIPAL_SHARES = 4


def _limit(value: object) -> int | Literal["never"]:
    if value == "never" or (isinstance(value, int) and not isinstance(value, bool) and value >= _MIN_BUDGET):
        return value
    raise ValueError(f'must be "never" or a budget in tokens of at least {_MIN_BUDGET}')


Limit: TypeAlias = Annotated[int | Literal["never"], PlainValidator(_limit)]
"""A per-tool or per-namespace override: a budget in tokens, or ``"never"`` to never offload."""


class OffloadSettings(BaseModel):
    """Settings of context offloading. Build from a config mapping with `from_mapping`.

    A result whose text costs more than its budget (in tokens, measured with the
    `TokenCounter` in use) is stored and replaced by a short stub with a handle; the model
    reads it back with the offload tools, whose answers are bounded by `read_tokens`.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    enabled: Annotated[StrictBool, Switch] = True
    """Offload large results and list the offload tools (false: results pass through unchanged)."""
    budget_tokens: Annotated[int, NoBool, Field(ge=_MIN_BUDGET)] = 4_000
    """A result costing more than this many tokens is offloaded (at or below it, it is sent as is)."""
    preview_tokens: Annotated[int, NoBool, Field(ge=0)] = 500
    """Tokens of the head preview (and JSON shape summary) a stub carries (at most half of ``budget_tokens``)."""
    read_tokens: Annotated[int, NoBool, Field(ge=_MIN_BUDGET)] = 4_000
    """The most tokens one read, search or query answer carries."""
    max_matches: Annotated[int, NoBool, Field(ge=1, le=1000)] = 20
    """The most matches one search answer lists."""
    session_bytes: Annotated[int, NoBool, Field(ge=_MIB)] = 256 * _MIB
    """Bytes of stored outputs one session may hold; the oldest are evicted past it."""
    total_bytes: Annotated[int, NoBool, Field(ge=_MIB)] | None = None
    """Bytes of stored outputs all sessions together may hold (null: 4 GiB, or ``session_bytes`` if larger);
    past it a caller's own oldest outputs are evicted, never another caller's: when the others hold too much,
    the new output is refused (its stub keeps the preview)."""
    principal_bytes: Annotated[int, NoBool, Field(ge=_MIB)] | None = None
    """Bytes of stored outputs all sessions of one caller (a gateway token, an OAuth subject; ``local``
    without auth) may hold together; past it the caller's own oldest outputs are evicted. Null: a quarter of
    the total, at least ``session_bytes`` (1 GiB by default), so at least four callers can each fill their
    share before any output is refused, and one caller still holds four full sessions. A gateway with one
    caller may set it to the total."""
    jq_timeout_s: Annotated[float, Finite, Field(gt=0)] = 10.0
    """Seconds a jq query may run before it is stopped."""
    jq_memory_mb: Annotated[int, NoBool, Field(ge=64)] = 2_048
    """Memory (MiB) the jq worker process may use, where the platform can enforce it."""
    jq_concurrency: Annotated[int, NoBool, Field(ge=1)] | None = None
    """jq queries run at the same time, each in its own worker process (null: the number of CPUs this
    process may use); at most ``jq_concurrency`` x ``jq_memory_mb`` MiB go to jq at any moment."""
    jq_queue_s: Annotated[float, Finite, Field(gt=0)] = 10.0
    """Seconds a jq query waits for a free worker when all are busy; then it is answered "busy, retry"."""
    store: str | None = Field(default=None, min_length=1)
    """Where outputs live: null or ``file`` (files in ``folder``, private to this process), or a ``redis://``
    (``rediss://``, ``unix://``) URL shared by every gateway replica (needs ``toolscout[redis]``)."""
    folder: Path | None = None
    """Folder the outputs are stored in, one sub-folder per session (null: a private temporary folder);
    may start with ``~``."""
    ttl_s: Annotated[float, Finite, Field(gt=0)] = 3600.0
    """A shared store (``redis://``) drops a session's outputs this many seconds after its last use by any
    replica (a file store's outputs go when the gateway session ends, after ``session_idle_s``)."""
    tools: dict[Annotated[str, Field(min_length=1)], Limit] = Field(default_factory=dict)
    """Per-tool overrides by exact name or glob (``github__list_*``): a budget in tokens or ``"never"``;
    they win over ``namespaces``."""
    namespaces: dict[Annotated[str, Field(min_length=1)], Limit] = Field(default_factory=dict)
    """Per-namespace overrides (the upstream server's name in the gateway): a budget or ``"never"``."""

    @field_validator("preview_tokens")
    @classmethod
    def _preview_within_budget(cls, value: int, info: ValidationInfo) -> int:
        budget = info.data.get("budget_tokens")
        if isinstance(budget, int) and value > budget // 2:
            raise ValueError(f"must be at most half of budget_tokens ({budget // 2})")
        return value

    @field_validator("total_bytes")
    @classmethod
    def _total_above_session(cls, value: int | None, info: ValidationInfo) -> int | None:
        session = info.data.get("session_bytes")
        if value is not None and isinstance(session, int) and value < session:
            raise ValueError(f"must be at least session_bytes ({session})")
        return value

    @field_validator("principal_bytes")
    @classmethod
    def _principal_between_session_and_total(cls, value: int | None, info: ValidationInfo) -> int | None:
        session, total = info.data.get("session_bytes"), info.data.get("total_bytes")
        if value is not None and isinstance(session, int) and value < session:
            raise ValueError(f"must be at least session_bytes ({session})")
        if value is not None and isinstance(total, int) and value > total:
            raise ValueError(f"must be at most total_bytes ({total})")
        return value

    @field_validator("folder", mode="before")
    @classmethod
    def _expand_user(cls, value: object) -> object:
        return Path(value).expanduser() if isinstance(value, str) and value else value

    @property
    def total_cap(self) -> int:
        """Bytes all sessions together may hold (`total_bytes`, else 4 GiB or `session_bytes` if larger)."""
        return self.total_bytes if self.total_bytes is not None else max(_DEFAULT_TOTAL, self.session_bytes)

    @property
    def principal_cap(self) -> int:
        """Bytes one caller's sessions may hold (`principal_bytes`, else total_cap / 4, at least session_bytes)."""
        if self.principal_bytes is not None:
            return self.principal_bytes
        return max(self.total_cap // _PRINCIPAL_SHARES, self.session_bytes)

    @property
    def jq_workers(self) -> int:
        """How many jq queries may run at once (`jq_concurrency`, else `default_jq_concurrency`)."""
        return self.jq_concurrency or default_jq_concurrency()

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

        ``None`` gives the defaults; a bare ``true``/``false`` sets `enabled`.

        Raises:
            ConfigError: An unknown key or a value of the wrong type; the key is named.
        """
        if config is None or isinstance(config, bool):
            return cls() if config is None else cls(enabled=config)
        if not isinstance(config, Mapping):
            raise ConfigError(f"must be a table/object or true/false, got {type(config).__name__}", key=prefix)
        return validate_section(cls, config, prefix)


def default_jq_concurrency() -> int:
    """The CPUs this process may run on (at least 1): the default number of jq workers."""
    affinity = getattr(os, "sched_getaffinity", None)
    count = len(affinity(0)) if affinity is not None else os.cpu_count()
    return max(count or 1, 1)
