"""`SearchSettings`: every knob of deferral, activation, disclosure and search limits."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial
from typing import Literal, TypeAlias

from ._config import check, is_int, settings_from_mapping
from ._errors import ConfigError

__all__ = ["Mode", "SearchSettings", "Style"]

Mode: TypeAlias = Literal["auto", "on", "off"]
"""`auto`: defer when the threshold is reached; `on`: defer whenever something is deferrable; `off`: never."""
Style: TypeAlias = Literal["bridge", "reveal"]
"""`bridge`: tool_search / tool_describe / tool_call; `reveal`: tool_search reveals tools into the array."""

_MODES: dict[object, Mode] = {"auto": "auto", "on": "on", "off": "off", True: "auto", False: "off"}


@dataclass(frozen=True, slots=True, kw_only=True)
class SearchSettings:
    """Settings for one `ToolScout`. Build from a config mapping with `from_mapping`."""

    mode: Mode = "auto"
    """When deferral is active (see `Mode`)."""
    style: Style = "bridge"
    """How deferred tools are disclosed (see `Style`)."""
    reveal_stubs: bool = False
    """Reveal style only: send not-yet-revealed tools as name + description stubs instead of hiding them.
    Stubs are replaced in place when revealed, so the array is not append-only in this variant."""
    threshold_pct: float = 10.0
    """`auto`: activate when deferrable schemas reach this share (percent) of the model's context window."""
    threshold_tools: int | None = 30
    """`auto`: also activate when this many tools are deferrable (None: count never activates)."""
    fallback_threshold_tokens: int = 20_000
    """`auto`: the token threshold when the model's context window is unknown."""
    model: str | None = None
    """The model in use; its context window feeds the `auto` threshold."""
    context_window: int | None = None
    """Explicit context window in tokens (overrides the built-in table)."""
    never_defer: tuple[str, ...] = ()
    """Tool names or globs (``fetch_*``) always sent in full."""
    pre_discovered: tuple[str, ...] = ()
    """Tools available from the first turn without a search (sent after the bridge tools)."""
    search_default_limit: int = 5
    """Hits returned when the model gives no limit."""
    search_max_limit: int = 20
    """The most hits the model may ask for."""
    listing_budget_tokens: int = 800
    """Token budget of the catalog listing in the guidance (0 disables it)."""
    description_chars: int = 300
    """Search results cut tool descriptions to this many characters, at a word boundary."""

    def __post_init__(self) -> None:
        check(self.mode in ("auto", "on", "off"), "mode", "must be 'auto', 'on', 'off', true or false")
        check(self.style in ("bridge", "reveal"), "style", "must be 'bridge' or 'reveal'")
        check(
            isinstance(self.threshold_pct, int | float)
            and not isinstance(self.threshold_pct, bool)
            and math.isfinite(self.threshold_pct)
            and 0 <= self.threshold_pct <= 100,
            "threshold_pct",
            "must be a number from 0 to 100",
        )
        check(
            self.threshold_tools is None or (is_int(self.threshold_tools) and self.threshold_tools >= 1),
            "threshold_tools",
            "must be a positive integer or null",
        )
        for key in ("fallback_threshold_tokens", "listing_budget_tokens"):
            value = getattr(self, key)
            check(is_int(value) and value >= 0, key, "must be a non-negative integer")
        check(
            self.context_window is None or (is_int(self.context_window) and self.context_window > 0),
            "context_window",
            "must be a positive integer or null",
        )
        check(is_int(self.search_max_limit) and 1 <= self.search_max_limit <= 100, "search_max_limit", "must be 1-100")
        check(
            is_int(self.search_default_limit) and 1 <= self.search_default_limit <= self.search_max_limit,
            "search_default_limit",
            f"must be from 1 to search_max_limit ({self.search_max_limit})",
        )
        check(is_int(self.description_chars) and self.description_chars >= 40, "description_chars", "must be >= 40")
        for key in ("never_defer", "pre_discovered"):
            value = getattr(self, key)
            check(
                isinstance(value, tuple) and all(isinstance(item, str) and item for item in value),
                key,
                "must be a list of non-empty strings",
            )

    @classmethod
    def from_mapping(cls, config: Mapping[str, object] | bool | None, *, prefix: str = "tool_search") -> SearchSettings:
        """Read settings from a config mapping (e.g. a parsed TOML/JSON section).

        A bare ``true`` means ``mode = "auto"`` and ``false`` means ``mode = "off"``; ``None``
        gives the defaults. Lists become tuples.

        Raises:
            ConfigError: An unknown key or a value of the wrong type; the key is named.
        """
        if config is None:
            return cls()
        if isinstance(config, bool):
            return cls(mode=_MODES[config])
        if not isinstance(config, Mapping):
            raise ConfigError(f"must be a table/object or true/false, got {type(config).__name__}", key=prefix)
        return settings_from_mapping(cls, config, prefix=prefix, convert=partial(_convert, prefix=prefix))


def _convert(key: str, value: object, *, prefix: str) -> object:
    if key == "mode":
        if value not in _MODES or isinstance(value, int) and not isinstance(value, bool):
            raise ConfigError(f"must be 'auto', 'on', 'off', true or false, got {value!r}", key=f"{prefix}.mode")
        return _MODES[value]
    return tuple(value) if isinstance(value, list) else value
