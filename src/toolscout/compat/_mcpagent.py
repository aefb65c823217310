"""mcpagent: Tool Search Mode, pre-discovered tools and the ``selectedServers`` / ``selectedTools`` filter."""

from __future__ import annotations

import json
from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict, StrictBool

from .._errors import ConfigError
from .._settings import Name
from ._base import Translated, read_block

__all__ = ["McpAgentTranslator"]

_ROOT = "mcpagent"
_NAMES = {"search": "search_tools", "describe": "add_tool"}


class _Block(BaseModel):
    """mcpagent's agent options (``WithToolSearchMode``, ``WithPreDiscoveredTools``, ``WithSelected*``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    toolSearchMode: StrictBool = False
    preDiscoveredTools: tuple[Name, ...] = ()
    selectedServers: tuple[Name, ...] = ()
    selectedTools: tuple[Name, ...] = ()


class McpAgentTranslator:
    """The ``mcpagent`` section: its agent options under their own names.

    ``toolSearchMode: true`` always defers and reveals the tools a search finds (mcpagent's
    search_tools + add_tool, in one step) under mcpagent's names: the search tool is ``search_tools``
    (``names`` loads tools as ``add_tool`` does; an empty query browses as ``show_all_tools`` does),
    and a call of ``add_tool`` with ``names`` is answered too. False sends every tool. ``preDiscoveredTools`` are
    available from the first turn. ``selectedServers`` / ``selectedTools`` become the scope
    (their union; ``server:*`` selects a whole server); empty lists mean no filtering.
    """

    name = "mcpagent"
    roots = (_ROOT,)

    def translate(self, document: Mapping[str, object], *, source: str | None) -> Translated | None:
        """Translate the ``mcpagent`` section (None when `document` has none)."""
        raw = document.get(_ROOT)
        if raw is None:
            return None
        if not isinstance(raw, Mapping):
            where = f" (in {source})" if source else ""
            raise ConfigError(f"must be an object of mcpagent options{where}", key=_ROOT)
        block = read_block(_Block, raw, _ROOT, source=source)
        out = Translated(system=self.name, block=_ROOT)
        mode = "on" if block.toolSearchMode else "off"
        if "toolSearchMode" in raw:
            why = "tool search mode always defers" if block.toolSearchMode else "normal mode sends every tool"
            out.set("mode", mode, source=f"{_ROOT}.toolSearchMode", written=raw["toolSearchMode"], reason=why)
        else:
            out.imply("mode", mode, reason="mcpagent's default is normal mode: every tool is sent")
        if block.toolSearchMode:
            out.imply("style", "reveal", reason="found tools join the tool list (mcpagent: search_tools, add_tool)")
            out.imply("reveal_stubs", False, reason="mcpagent hides deferred tools until they are added")
            out.imply("bridge_names", dict(_NAMES), reason="mcpagent's tool names (show_all_tools: an empty query)")
        if "preDiscoveredTools" in raw:
            out.set(
                "pre_discovered",
                list(block.preDiscoveredTools),
                source=f"{_ROOT}.preDiscoveredTools",
                written=raw["preDiscoveredTools"],
                reason="available from the first turn without a search",
            )
        scope: dict[str, object] = {}
        for key, target, value in (
            ("selectedServers", "servers", block.selectedServers),
            ("selectedTools", "tools", block.selectedTools),
        ):
            if key not in raw:
                continue
            if value:
                scope[target] = list(value)
                mapped = (f"scope.{target} = {json.dumps(list(value))}",)
                out.note(f"{_ROOT}.{key}", raw[key], mapped, "the union of both lists")
            else:
                out.ignore(f"{_ROOT}.{key}", raw[key], "an empty list means no filtering")
        if scope:
            out.settings["scope"] = scope
            out.origins["scope"] = f"{_ROOT}.selectedServers/selectedTools"
        return out
