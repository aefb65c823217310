"""Load tools by name: ``tool_describe`` and ``tool_search`` with ``names`` (mcpagent's ``add_tool``).

Names resolve as `ToolNames` reads them (any case, with or without the namespace). Every loaded
tool comes back with its full schema; in the reveal style it is also in the tool list from the
next step on. Unknown names get close-name candidates; a call naming only unknown tools is an
``unknown_tool`` error.
"""

from __future__ import annotations

from .._settings import ScoutSettings
from .._texts import Search
from ..catalog._internal import ToolNames
from ..disclosure import TurnPlan
from ._answers import LoadAnswer
from ._entries import bad_request, candidates, loaded_entry, unknown_tools_error
from ._errors import ToolError

__all__ = ["answer_load"]


def answer_load(
    names: object, *, plan: TurnPlan, listed: frozenset[str], settings: ScoutSettings
) -> tuple[LoadAnswer, tuple[str, ...]] | ToolError:
    """Load the tools `names` names; returns the answer and the tools it discovers."""
    if isinstance(names, str):
        names = [names]
    if not isinstance(names, list) or not names or not all(isinstance(name, str) and name.strip() for name in names):
        return bad_request(Search.names_list(settings.bridge_names))
    if len(names) > settings.max_names_per_call:
        return bad_request(Search.too_many_names(settings.max_names_per_call))
    spellings = ToolNames.of(plan.scoped)
    loaded: dict[str, None] = {}
    already: dict[str, None] = {}
    missing: list[str] = []
    for written in dict.fromkeys(names):
        match = (written,) if written in plan.scoped else _matched(spellings, written)
        if not match:
            missing.append(written)
        for name in match:
            (already if name in listed else loaded)[name] = None
    if not loaded and not already:
        return unknown_tools_error(missing, plan, hint=Search.unknown_names(settings.bridge_names))
    tools = [plan.scoped[name] for name in loaded]
    answer = LoadAnswer(
        tools=tuple(loaded_entry(tool, settings.describe_chars) for tool in tools),
        already_listed=tuple(already),
        not_found=tuple(missing),
        candidates=candidates(missing, plan) if missing else (),
        hint=_load_hint(settings),
    )
    return answer, tuple(name for name in loaded if name in plan.deferred)


def _load_hint(settings: ScoutSettings) -> str:
    bridge = settings.bridge_names
    if settings.style != "reveal":
        return Search.described(bridge)
    return Search.loaded_or_call(bridge) if settings.reveal_call_tool else Search.LOADED


def _matched(spellings: ToolNames, written: str) -> tuple[str, ...]:
    found = spellings.match(written)
    return found.names if found is not None else ()
