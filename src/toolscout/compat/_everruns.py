"""everruns: the ``tool_search`` capability (stubs, revealed tools carry their schema from the next step)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from .._errors import ConfigError
from .._settings import Name
from .._validation import NoBool
from ._base import Translated, check_siblings, read_block

__all__ = ["EverrunsTranslator"]

_ROOT = "capabilities"
_KEY = "tool_search"
_BLOCK = f"{_ROOT}.{_KEY}"
_RESULT_CAP = 8  # everruns returns (and reveals) at most 8 tools per search
_TOP_BAND = 0.5  # everruns returns only hits scoring at least half the top score


class _Block(BaseModel):
    """everruns' ``tool_search`` capability config, with its documented default."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    threshold: Annotated[int, NoBool, Field(ge=1)] = 15
    never_defer: tuple[Name, ...] = ()


class EverrunsTranslator:
    """``capabilities: ["tool_search"]`` or ``capabilities.tool_search`` → reveal style with stubs.

    Deferral starts once ``threshold`` tools (default 15) are deferrable; the context share does
    not decide. ``never_defer`` keeps tools in full. A search returns, and reveals, at most 8 tools, and only
    those scoring at least half the best score.
    """

    name = "everruns"
    roots = (_ROOT,)

    def translate(self, document: Mapping[str, object], *, source: str | None) -> Translated | None:
        """Translate the ``tool_search`` capability (None when `document` does not enable it)."""
        out = Translated(system=self.name, block=_BLOCK)
        found = self._find(document.get(_ROOT), out, source=source)
        if found is None:
            return None
        switch, raw = found
        block = read_block(_Block, raw, _BLOCK, source=source)
        out.set("mode", "auto", source=switch[0], written=switch[1], reason="on: defer at or above the threshold")
        if "threshold" in raw:
            written = raw["threshold"]
            why = "defer once this many tools are deferrable"
            out.set("threshold_tools", block.threshold, source=f"{_BLOCK}.threshold", written=written, reason=why)
        else:
            out.imply("threshold_tools", block.threshold, reason="everruns' default threshold (15 tools)")
        if "never_defer" in raw:
            out.set(
                "never_defer",
                list(block.never_defer),
                source=f"{_BLOCK}.never_defer",
                written=raw["never_defer"],
                reason="always sent in full",
            )
        out.imply("threshold_pct", None, reason="everruns activates by tool count only, never by context share")
        out.imply("style", "reveal", reason="tool_search reveals its matches into the tool list")
        out.imply("reveal_stubs", True, reason="deferred tools are sent as name + description stubs")
        out.imply("search_max_reveal", _RESULT_CAP, reason="everruns reveals at most 8 tools per search")
        out.imply("search_top_band", _TOP_BAND, reason="everruns drops hits scoring under half the top score")
        out.imply("search_default_limit", _RESULT_CAP, reason="everruns returns up to 8 tools per search unasked")
        out.imply("search_max_limit", _RESULT_CAP, reason="everruns returns at most 8 tools per search")
        return out

    @staticmethod
    def _find(
        capabilities: object, out: Translated, *, source: str | None
    ) -> tuple[tuple[str, object], Mapping[str, object]] | None:
        """The key that enables the capability (and its value as written), and its config; None if off."""
        where = f" (in {source})" if source else ""
        if isinstance(capabilities, list):
            for index, item in enumerate(capabilities):
                if not isinstance(item, str):
                    raise ConfigError(f"must be a capability name (a string){where}", key=f"{_ROOT}[{index}]")
            if _KEY not in capabilities:
                return None
            for index, item in enumerate(capabilities):
                if item != _KEY:
                    out.ignore(f"{_ROOT}[{index}]", item, "another everruns capability")
            return (f"{_ROOT}[{capabilities.index(_KEY)}]", _KEY), {}
        if not isinstance(capabilities, Mapping):
            return None
        check_siblings(capabilities, (_KEY,), _ROOT, source=source)
        if _KEY not in capabilities:
            return None
        raw = capabilities[_KEY]
        for key, value in capabilities.items():
            if key != _KEY:
                out.ignore(f"{_ROOT}.{key}", value, "another everruns capability")
        if raw is None or raw is True:
            return (_BLOCK, raw), {}
        if not isinstance(raw, Mapping):
            raise ConfigError(f"must be an object with threshold and never_defer{where}", key=_BLOCK)
        return (_BLOCK, raw), raw
