"""Pre-search: the tools a search of the user's message offers for one turn, before the model asks.

The search is the session's own ``tool_search`` (same scope, engine, reranker and confidences); this
module only decides what its answer offers. The per-hit confidence says how likely one hit is right; an
offer needs how likely the right tool is among the tools offered, a set-level chance. `OfferModel` estimates
it for the first k hits (k = 1 to `OFFER_DEPTH`) from `offer_features`: the hits' confidences (the first, the
k-th, the first left out, their sum) and how much of the request's words the first hit and the first k hits
cover. The offer is the smallest k whose chance reaches ``presearch.min_confidence`` (a sure single hit: one
tool; several weak hits: nothing), at most ``presearch.max_tools``, within ``presearch.max_tokens``,
deferred and not already in the array. The weights (``presearch.json`` beside this module) are fitted by
``bench/presearch_fit.py`` on BFCL's tuning requests and the tooldata dev split.
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import resources

from ._settings import PresearchSettings, ScoutSettings
from ._tokens import TokenCounter, tool_tokens
from .catalog import ToolSpec
from .disclosure import TurnPlan
from .dispatch import BridgeAnswer, SearchAnswer
from .dispatch._internal import Resolution

__all__ = [
    "OFFER_DEPTH",
    "OFFER_FEATURES",
    "OFFER_FILE",
    "OfferModel",
    "offer_features",
    "presearch_queries",
    "presearched",
]

OFFER_FILE = "presearch.json"
"""The fitted weights of `OfferModel` (package data of `toolscout`)."""
OFFER_DEPTH = 5
"""The largest offer the set-level chance is fitted for; the search asks for one hit more (the first left out)."""
_MODES = ("hybrid", "lexical")
OFFER_FEATURES = (
    "first",
    "last",
    "next",
    "sum",
    "first_coverage",
    "coverage",
    "hits",
    "first_logit",
    "last_logit",
    "next_logit",
    "name_match",
    "first_name_match",
)
"""What `offer_features` describes an offer of the first k hits by, in order."""

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


_TEXT_WORD = re.compile(r"[^\W_]+")
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
_STEM = 5
_STOP = frozenset(
    "the and for with from that this what which who whom how when where why can could would should will "
    "please into about then than them they their there these those your you are was were been being have has "
    "had not but all any some more most other our out get use using want need like just also its it's".split()
)


def _words(text: str, *, stop: bool = False) -> set[str]:
    """The word stems of `text` (camelCase and snake_case split; first `_STEM` letters), stop words dropped."""
    words = (word.lower() for word in _TEXT_WORD.findall(_CAMEL.sub(" ", text)))
    return {word[:_STEM] for word in words if len(word) > 2 and not (stop and word in _STOP)}


def offer_features(query: str, hits: Sequence[tuple[float, str, str]]) -> list[list[float]]:
    """The features of offering the first k hits, for k = 1 to `OFFER_DEPTH` (`OFFER_FEATURES`, in order).

    `hits`: each search hit's confidence, its tool's name and description, best first. Confidences are read
    as they are and as log-odds (a missing hit: 0); coverage is the share of the request's words (three letters
    or more, stop words dropped; all of them for a request with none) that the first hit's text, or the first
    k hits' texts, hold; the name match is the share of a tool name's words the request holds.
    """
    confidences = [confidence for confidence, _, _ in hits] + [0.0] * (OFFER_DEPTH + 1)
    asked = _words(query, stop=True)
    texts = [_words(f"{name} {description}") for _, name, description in hits[:OFFER_DEPTH]]
    names = [_words(name) for _, name, _ in hits[:OFFER_DEPTH]]
    matches = [len(words & asked) / len(words) if words else 0.0 for words in names]
    found = 1.0 if texts else 0.0
    first = len(texts[0] & asked) / len(asked) if asked and texts else found
    rows = []
    covered: set[str] = set()
    for k in range(1, OFFER_DEPTH + 1):
        if k <= len(texts):
            covered |= texts[k - 1] & asked
        last, following = confidences[k - 1], confidences[k]
        rows.append(
            [
                confidences[0],
                last,
                following,
                sum(confidences[:k]),
                first,
                len(covered) / len(asked) if asked else found,
                min(len(hits), OFFER_DEPTH + 1) / (OFFER_DEPTH + 1),
                _logit(confidences[0]),
                _logit(last),
                _logit(following),
                max(matches[:k], default=0.0),
                matches[0] if matches else 0.0,
            ]
        )
    return rows


def _logit(confidence: float) -> float:
    clipped = min(max(confidence, 1e-4), 1 - 1e-4)
    return math.log(clipped / (1 - clipped))


@dataclass(frozen=True, slots=True)
class OfferModel:
    """The chance that the right tool is among the first k hits: one logistic regression per k and search mode."""

    weights: dict[str, tuple[tuple[float, ...], ...]]
    """Per search mode (``hybrid``, ``lexical``) and k = 1 to `OFFER_DEPTH`: the intercept, then one weight per
    feature of `OFFER_FEATURES`."""

    def __post_init__(self) -> None:
        for mode in _MODES:
            rows = self.weights.get(mode)
            if rows is None or len(rows) != OFFER_DEPTH or any(len(row) != len(OFFER_FEATURES) + 1 for row in rows):
                raise ValueError(
                    f"offer weights need, for {mode!r}, {OFFER_DEPTH} rows of {len(OFFER_FEATURES) + 1} numbers "
                    f"(intercept, {', '.join(OFFER_FEATURES)})"
                )

    @classmethod
    def from_json(cls, fitted: dict[str, object]) -> OfferModel:
        """Read ``{"hybrid": [[intercept, *weights], ...], "lexical": ...}`` as ``bench/presearch_fit.py`` writes it."""
        weights = {}
        for mode in _MODES:
            rows = fitted.get(mode)
            if not isinstance(rows, list):
                raise ValueError(f"offer model has no {mode!r} list of weights")
            weights[mode] = tuple(tuple(float(value) for value in row) for row in rows)
        return cls(weights)

    @staticmethod
    def packaged() -> OfferModel:
        """The model fitted for the shipped search (``presearch.json``, read once)."""
        return _packaged()

    def chances(self, features: Sequence[Sequence[float]], *, mode: str) -> list[float]:
        """Per k, the chance that the right tool is among the first k hits (`offer_features`' rows).

        `mode`: the search mode that ran (any mode but ``hybrid`` reads as ``lexical``).
        """
        chances = []
        for row, weights in zip(features, self.weights["hybrid" if mode == "hybrid" else "lexical"], strict=True):
            z = weights[0] + sum(w * x for w, x in zip(weights[1:], row, strict=True))
            chances.append(1.0 / (1.0 + math.exp(-max(min(z, 60.0), -60.0))))
        return chances

    def size(self, query: str, hits: Sequence[tuple[float, str, str]], *, mode: str, target: float, most: int) -> int:
        """The smallest k (at most `most` and the hits there are) whose chance reaches `target`; 0 for none."""
        chances = self.chances(offer_features(query, hits), mode=mode)
        for k in range(1, min(most, len(hits), OFFER_DEPTH) + 1):
            if chances[k - 1] >= target:
                return k
        return 0


@functools.cache
def _packaged() -> OfferModel:
    text = (resources.files(__package__) / OFFER_FILE).read_text(encoding="utf-8")
    return OfferModel.from_json(json.loads(text))


def presearched(
    queries: tuple[str, ...],
    search: Callable[[str], Resolution],
    *,
    plan: TurnPlan,
    listed: frozenset[str],
    settings: PresearchSettings,
    counter: TokenCounter,
    mode: str,
) -> tuple[str, ...]:
    """The tools offered: the smallest sure set of hits (`OfferModel.size`) of the first query that has one.

    None when every search abstains or no set is sure enough; an offered hit already in the array counts (the
    message needs nothing more) but is not offered again.
    """
    model = OfferModel.packaged()
    for query in queries:
        resolution = search(query)
        if not isinstance(resolution, BridgeAnswer) or not isinstance(resolution.answer, SearchAnswer):
            continue
        hits = [hit for hit in resolution.answer.tools if hit.confidence is not None]
        texts = [(hit.confidence or 0.0, *_text(plan.scoped.get(hit.name), hit.name)) for hit in hits]
        size = model.size(query, texts, mode=mode, target=settings.min_confidence, most=settings.max_tools)
        if not size:
            continue
        confident = hits[:size]
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


def _text(tool: ToolSpec | None, name: str) -> tuple[str, str]:
    return (name, "") if tool is None else (tool.name, tool.description)
