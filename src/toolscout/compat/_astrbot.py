"""AstrBot: ``provider_settings.tool_schema_mode`` and ``provider_settings.tool_search``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool

from .._errors import ConfigError
from .._settings import Name
from .._validation import NoBool
from ._base import Translated, check_siblings, read_block

__all__ = ["AstrBotTranslator"]

_ROOT = "provider_settings"
_MODE = "tool_schema_mode"
_KEY = "tool_search"
_BLOCK = f"{_ROOT}.{_KEY}"
_MODES: dict[str, str] = {"full": "off", "skills_like": "on", "tool_search": "on", "auto": "auto"}


class _Mode(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    tool_schema_mode: Literal["full", "skills_like", "tool_search", "auto"] = "full"


class _Block(BaseModel):
    """AstrBot's ``provider_settings.tool_search``, with its documented defaults."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    threshold: Annotated[int, NoBool, Field(ge=0)] = 25
    max_results: Annotated[int, NoBool, Field(ge=1, le=100)] = 5
    always_loaded_tools: tuple[Name, ...] = ()
    auto_always_load_builtin: StrictBool = True


class AstrBotTranslator:
    """``tool_schema_mode`` → mode and style; ``tool_search`` → threshold, limits and always-loaded tools.

    ``full`` sends every tool (off). ``tool_search`` always defers and ``auto`` defers once more
    than ``threshold`` tools are deferrable (the count alone decides); both reveal what
    ``tool_search`` finds into the tool list from the next step (AstrBot's generic path).
    ``skills_like`` (names and descriptions first, parameters once chosen) becomes reveal with
    stubs. ``max_results`` bounds every search.
    """

    name = "AstrBot"
    roots = (_ROOT,)

    def translate(self, document: Mapping[str, object], *, source: str | None) -> Translated | None:
        """Translate AstrBot's tool-search keys (None when `document` has neither)."""
        settings = document.get(_ROOT)
        if not isinstance(settings, Mapping):
            return None
        check_siblings(settings, (_MODE, _KEY), _ROOT, source=source)
        if _MODE not in settings and _KEY not in settings:
            return None
        mode_key = f"{_ROOT}.{_MODE}"
        mode = read_block(_Mode, {k: v for k, v in settings.items() if k == _MODE}, _ROOT, source=source)
        raw = settings.get(_KEY, {})
        if raw is None:
            raw = {}
        if not isinstance(raw, Mapping):
            where = f" (in {source})" if source else ""
            raise ConfigError(f"must be an object of tool search settings{where}", key=_BLOCK)
        block = read_block(_Block, raw, _BLOCK, source=source)
        out = Translated(system=self.name, block=_ROOT)
        schema_mode = mode.tool_schema_mode
        target = _MODES[schema_mode]
        if _MODE in settings:
            out.set("mode", target, source=mode_key, written=settings[_MODE], reason=f"{schema_mode} mode")
        else:
            out.imply("mode", target, reason="AstrBot's default tool_schema_mode is full")
        if target == "off":
            for key, value in raw.items():
                out.ignore(f"{_BLOCK}.{key}", value, "no effect while tool_schema_mode is full")
        else:
            self._search(out, block, raw, schema_mode)
        for key, value in settings.items():
            if key not in (_MODE, _KEY):
                out.ignore(f"{_ROOT}.{key}", value, "not part of AstrBot's tool search")
        return out

    @staticmethod
    def _search(out: Translated, block: _Block, raw: Mapping[str, object], schema_mode: str) -> None:
        def written(key: str) -> bool:
            return key in raw

        out.imply("style", "reveal", reason="found tools join the tool list from the next step")
        out.imply("reveal_stubs", schema_mode == "skills_like", reason="skills_like sends names first, schemas later")
        if schema_mode == "auto":
            threshold = block.threshold + 1  # AstrBot defers when the count is above the threshold
            why = "AstrBot defers above the threshold: more than N tools is at least N + 1"
            if written("threshold"):
                out.set(
                    "threshold_tools", threshold, source=f"{_BLOCK}.threshold", written=raw["threshold"], reason=why
                )
            else:
                out.imply("threshold_tools", threshold, reason=f"AstrBot's default threshold (25); {why}")
            out.imply("threshold_pct", None, reason="AstrBot activates by tool count only, never by context share")
        elif written("threshold"):
            out.ignore(f"{_BLOCK}.threshold", raw["threshold"], "only used when tool_schema_mode is auto")
        for target in ("search_default_limit", "search_max_limit"):
            if written("max_results"):
                out.set(
                    target,
                    block.max_results,
                    source=f"{_BLOCK}.max_results",
                    written=raw["max_results"],
                    reason="every search returns at most this many tools",
                )
            else:
                out.imply(target, block.max_results, reason="AstrBot's default max_results (5)")
        if written("always_loaded_tools"):
            out.set(
                "never_defer",
                list(block.always_loaded_tools),
                source=f"{_BLOCK}.always_loaded_tools",
                written=raw["always_loaded_tools"],
                reason="always sent in full",
            )
        if written("auto_always_load_builtin"):
            out.ignore(
                f"{_BLOCK}.auto_always_load_builtin",
                raw["auto_always_load_builtin"],
                "toolscout has no built-in tools: a host names its core tools (ToolScout(core=...)), which are never "
                "deferred; in the gateway every tool comes from an MCP server, which AstrBot always defers",
            )
