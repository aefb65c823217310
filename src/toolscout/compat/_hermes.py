"""Hermes Agent: ``tools.tool_search`` (bridge tools, activation by share of the context window)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, model_validator

from .._errors import ConfigError
from .._validation import Finite, NoBool
from ._base import Translated, check_siblings, read_block

__all__ = ["HermesTranslator"]

_ROOT = "tools"
_KEY = "tool_search"
_BLOCK = f"{_ROOT}.{_KEY}"
# YAML 1.1 reads an unquoted `enabled: on` as true and `off` as false.
_SWITCH: dict[bool, str] = {True: "on", False: "off"}


def _switch(value: object) -> object:
    return _SWITCH[value] if isinstance(value, bool) else value


class _Block(BaseModel):
    """Hermes' ``tools.tool_search`` block, with its documented defaults and ranges."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    enabled: Annotated[Literal["auto", "on", "off"], BeforeValidator(_switch)] = "auto"
    threshold_pct: Annotated[float, Finite, Field(ge=0, le=100)] = 10
    search_default_limit: Annotated[int, NoBool, Field(ge=1)] = 5
    max_search_limit: Annotated[int, NoBool, Field(ge=1, le=50)] = 20

    @model_validator(mode="after")
    def _default_within_max(self) -> _Block:
        if self.search_default_limit > self.max_search_limit:
            raise ValueError(
                f"search_default_limit ({self.search_default_limit}) is above max_search_limit "
                f"({self.max_search_limit}): lower the one or raise the other"
            )
        return self


class HermesTranslator:
    """``tools.tool_search`` → bridge style; ``enabled`` → mode; limits and the context share as written.

    Hermes decides activation by the deferrable schemas' share of the context window only, so the
    tool-count threshold is off. The legacy ``tools.tool_search: true`` means ``enabled: auto``
    (``false``: off).
    """

    name = "Hermes Agent"
    roots = (_ROOT,)

    def translate(self, document: Mapping[str, object], *, source: str | None) -> Translated | None:
        """Translate ``tools.tool_search`` (None when `document` has none)."""
        tools = document.get(_ROOT)
        if not isinstance(tools, Mapping):
            return None
        check_siblings(tools, (_KEY,), _ROOT, source=source)
        if _KEY not in tools:
            return None
        raw = tools[_KEY]
        out = Translated(system=self.name, block=_BLOCK)
        if isinstance(raw, bool):
            block = _Block(enabled="auto" if raw else "off")
            out.set("mode", block.enabled, source=_BLOCK, written=raw, reason="the legacy switch: true is auto")
            written: Mapping[str, object] = {}
        elif isinstance(raw, Mapping):
            block = read_block(_Block, raw, _BLOCK, source=source)
            written = raw
        else:
            where = f" (in {source})" if source else ""
            raise ConfigError(f"must be an object or true/false{where}", key=_BLOCK)
        values = {
            "enabled": ("mode", block.enabled, "auto, on and off mean the same in toolscout"),
            "threshold_pct": ("threshold_pct", block.threshold_pct, "the same share of the context window"),
            "search_default_limit": ("search_default_limit", block.search_default_limit, "the same meaning"),
            "max_search_limit": ("search_max_limit", block.max_search_limit, "the same meaning"),
        }
        if isinstance(written.get("enabled"), bool):
            values["enabled"] = ("mode", block.enabled, "YAML reads an unquoted on/off as true/false")
        for key, (target, value, reason) in values.items():
            if key in written:
                out.set(target, value, source=f"{_BLOCK}.{key}", written=written[key], reason=reason)
            elif not (key == "enabled" and isinstance(raw, bool)):
                out.imply(target, value, reason=f"Hermes' default for {key}")
        out.imply("style", "bridge", reason="Hermes sends tool_search, tool_describe and tool_call")
        out.imply("threshold_tools", None, reason="Hermes activates by context share only, never by tool count")
        for key, value in tools.items():
            if key != _KEY:
                out.ignore(f"{_ROOT}.{key}", value, "not part of Hermes' tool search")
        return out
