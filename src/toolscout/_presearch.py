"""Pre-search: the tools a search of the user's message offers for one turn, before the model asks.

The search is the session's own ``tool_search`` (same scope, engine, reranker and confidences); this
module only decides what its answer offers: the hits at or above ``presearch.min_confidence``, at most
``presearch.max_tools`` of them, within ``presearch.max_tokens``, deferred and not already in the array.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from ._settings import PresearchSettings, ScoutSettings
from ._tokens import TokenCounter, tool_tokens
from .disclosure import TurnPlan
from .dispatch import BridgeAnswer, SearchAnswer
from .dispatch._internal import Resolution

__all__ = ["presearch_queries", "presearched"]

_FOLLOW_UP_WORDS = 12
_LOOK_BACK = 3
_WORD = re.compile(r"[a-z']+")
_REFERRING = frozenset(
    {"same", "again", "also", "too", "instead", "likewise", "similarly", "it", "that", "this", "those", "these", "them"}
)


def presearch_queries(message: str, earlier: Sequence[str], settings: ScoutSettings) -> tuple[str, ...]:
    """The queries tried in order: the message, then, for a follow-up, the user turn it refers back to.

    A follow-up ("now do the same for Oslo": at most ``_FOLLOW_UP_WORDS`` words, one of them referring
    back) names no capability of its own; the latest earlier turn that is not itself a follow-up
    (`earlier`: the user's earlier turns, oldest first; the last ``_LOOK_BACK`` are read) does. That
    turn is searched alone: joined with the follow-up, the follow-up's words dilute it. The message
    alone goes first, so a request that names a capability is never read through the last one.
    """
    limit = settings.max_query_chars
    queries = [message.strip()[:limit]]
    if _follow_up(message):
        for turn in reversed(earlier[-_LOOK_BACK:]):
            if turn.strip() and not _follow_up(turn):
                queries.append(turn.strip()[:limit])
                break
    return tuple(query for query in queries if query)


def _follow_up(message: str) -> bool:
    """A short message with a word that refers back to an earlier request."""
    words = _WORD.findall(message.lower())
    return 0 < len(words) <= _FOLLOW_UP_WORDS and not _REFERRING.isdisjoint(words)


def presearched(
    queries: tuple[str, ...],
    search: Callable[[str], Resolution],
    *,
    plan: TurnPlan,
    listed: frozenset[str],
    settings: PresearchSettings,
    counter: TokenCounter,
) -> tuple[str, ...]:
    """The tools offered: the confident hits of the first query whose search is confident in any.

    None when every search abstains or is unsure; a confident hit already in the array counts (the
    message needs nothing more) but is not offered again.
    """
    for query in queries:
        resolution = search(query)
        if not isinstance(resolution, BridgeAnswer) or not isinstance(resolution.answer, SearchAnswer):
            continue
        confident = [
            hit
            for hit in resolution.answer.tools
            if hit.confidence is not None and hit.confidence >= settings.min_confidence
        ]
        if not confident:
            continue
        offered: list[str] = []
        spent = 0
        for hit in confident:
            tool = plan.scoped.get(hit.name)
            if tool is None or hit.name not in plan.deferred or hit.name in listed:
                continue
            cost = tool_tokens(tool, counter)
            if spent + cost > settings.max_tokens:
                continue
            spent += cost
            offered.append(hit.name)
        return tuple(offered)
    return ()
